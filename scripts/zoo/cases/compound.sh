# Compound paths: two and three causes at once.
# shellcheck shell=bash disable=SC2034

case_compound_server250_path250() {
	WHAT="fake server 250 ms behind toxiproxy latency 250 ms downstream, constant-vus 3 6 s: two causes, each half of waiting"
	MUST="server-slow path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 250ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":250,"jitter":0}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=6s
}

case_compound_latency_ratelimit() {
	WHAT="toxiproxy latency 100 ms downstream, then nginx limit_req 20 r/s with 429, then the fake server (50 ms), constant-arrival-rate 50/s 6 s: the 429s come back in ~100 ms, the passes in ~150 ms"
	MUST="path-latency rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=zoo:1m rate=20r/s;" "limit_req zone=zoo; limit_req_status 429;"
	toxiproxy $P_NGINX
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":100,"jitter":10}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=50 DUR=6s VUS=20 MAX_VUS=30
}

case_compound_latency_bandwidth() {
	WHAT="toxiproxy latency 100 ms then bandwidth 256 KB/s per connection downstream, fake server 20 ms with 64 KiB bodies, constant-vus 3 8 s"
	MUST="path-latency download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 64KiB
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":100,"jitter":10}}'
	toxic '{"name":"bw","type":"bandwidth","stream":"downstream","attributes":{"rate":256}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=8s
}

case_compound_latency_tls_no_reuse() {
	WHAT="toxiproxy latency 100 ms downstream before nginx TLS termination (fake server 50 ms), noConnectionReuse: each handshake waits for the late server flight, each request for the late answer, constant-vus 3 6 s"
	MUST="tls-handshake-slow path-latency"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	nginx_tls ""
	toxiproxy $P_NGINX_TLS
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":100,"jitter":10}}'
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_TOXI/" EXEC=constant-vus VUS=3 DUR=6s NO_REUSE=1
}

case_compound_latency_tls_reuse() {
	WHAT="toxiproxy latency 100 ms downstream before nginx TLS termination (fake server 50 ms), k6 reusing connections (one handshake per VU), constant-vus 3 6 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	nginx_tls ""
	toxiproxy $P_NGINX_TLS
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":100,"jitter":10}}'
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_TOXI/" EXEC=constant-vus VUS=3 DUR=6s
}

case_compound_3_server_latency_ratelimit() {
	WHAT="toxiproxy latency 150 ms downstream, then nginx limit_req 10 r/s with 429, then the fake server at 250 ms, constant-arrival-rate 25/s 6 s: three causes"
	MUST="server-slow path-latency rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 250ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=zoo:1m rate=10r/s;" "limit_req zone=zoo; limit_req_status 429;"
	toxiproxy $P_NGINX
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":150,"jitter":10}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=25 DUR=6s VUS=20 MAX_VUS=30
}

case_compound_3_tls_latency_limit_rate() {
	WHAT="toxiproxy latency 100 ms downstream before nginx TLS termination with limit_rate 32k (fake server 20 ms, 48 KiB bodies), noConnectionReuse, constant-vus 6 8 s: three causes"
	MUST="tls-handshake-slow path-latency download-limited"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 48KiB
	nginx_tls "limit_rate 32k;"
	toxiproxy $P_NGINX_TLS
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":100,"jitter":10}}'
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_TOXI/" EXEC=constant-vus VUS=6 DUR=8s NO_REUSE=1
}

case_compound_mb_waf_ratelimit() {
	WHAT="middlebench proxy waf:delay=150ms then ratelimit:rate=20/s (429) before the fake server (50 ms), constant-arrival-rate 50/s 6 s"
	MUST="path-latency rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage waf:delay=150ms --stage ratelimit:rate=20/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=50 DUR=6s VUS=20 MAX_VUS=30
}
