# nginx from Debian in front of the fake server: limit_req (429, 503, a sweep), limit_rate, TLS, a User-Agent rule, a read timeout.
# shellcheck shell=bash disable=SC2034

case_nginx_limit_req_429() {
	WHAT="nginx limit_req 20 r/s (no burst) with limit_req_status 429 before the fake server (50 ms), constant-arrival-rate 60/s 5 s: 2 of 3 rejected"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=zoo:1m rate=20r/s;" "limit_req zone=zoo; limit_req_status 429;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=60 DUR=5s VUS=10 MAX_VUS=30
}

case_nginx_limit_req_503() {
	WHAT="nginx limit_req 20 r/s (no burst), default status 503, before the fake server (50 ms), constant-arrival-rate 60/s 5 s: 2 of 3 rejected"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=zoo:1m rate=20r/s;" "limit_req zone=zoo;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=60 DUR=5s VUS=10 MAX_VUS=30
}

case_nginx_limit_req_sweep() {
	WHAT="nginx limit_req 20 r/s (no burst, 429) before the fake server (50 ms), ramping-arrival-rate 10,20,40,80/s x 2 s: rejections from the 40/s step on, fast"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=zoo:1m rate=20r/s;" "limit_req zone=zoo; limit_req_status 429;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=ramping-arrival-rate STEPS=10,20,40,80 HOLD=2s VUS=20 MAX_VUS=30
}

case_nginx_ua_403() {
	WHAT="nginx: if (\$http_user_agent ~ k6) return 403, before the fake server (which sees nothing), constant-arrival-rate 40/s 5 s"
	MUST="tool-blocked"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "" "if (\$http_user_agent ~ k6) { return 403; }"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_nginx_limit_rate() {
	WHAT="nginx limit_rate 32k (per request, download) before the fake server (20 ms, 48 KiB bodies), constant-vus 6 8 s: 32 KB at once, the rest at the next second's tick (~0-1 s per body)"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	NOTE="nginx lets a request send limit_rate x (whole seconds elapsed + 1) bytes: the first second's worth goes at once"
	mbserver --work 20ms --size 48KiB
	nginx_proxy "" "limit_rate 32k;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-vus VUS=6 DUR=8s
}

case_nginx_tls_reuse() {
	WHAT="nginx TLS termination (self-signed RSA 2048) before the fake server (50 ms), k6 reusing connections, constant-vus 3 5 s: one handshake per VU"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	nginx_tls ""
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_NGINX_TLS/" EXEC=constant-vus VUS=3 DUR=5s
}

case_nginx_tls_http2() {
	WHAT="nginx TLS termination with http2 before the fake server (50 ms), k6 negotiating HTTP/2 and reusing its connection, constant-vus 3 5 s"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  server {
    listen 127.0.0.1:$P_NGINX_TLS ssl http2;
    ssl_certificate $WORK/tls/cert.pem;
    ssl_certificate_key $WORK/tls/key.pem;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_NGINX_TLS/" EXEC=constant-vus VUS=3 DUR=5s
}

case_nginx_tls_no_reuse() {
	WHAT="nginx TLS termination (self-signed RSA 2048) before the fake server (50 ms), noConnectionReuse: a TCP and TLS handshake per request on loopback (a few ms), constant-vus 3 5 s"
	MUST="healthy"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	NOTE="a loopback handshake costs a few ms against 50 ms of work: real, but not what makes this run slow"
	mbserver --work 50ms
	nginx_tls ""
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_NGINX_TLS/" EXEC=constant-vus VUS=3 DUR=5s NO_REUSE=1
}

case_nginx_proxy_read_timeout_504() {
	WHAT="nginx proxy_read_timeout 150 ms before the fake server (work uniform 50..300 ms): ~60 % answered 504 after 150 ms, constant-arrival-rate 20/s 6 s"
	MUST="upstream-failing"; MAY="server-slow path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NOTE="504s carry no Server-Timing: server_time holds only the answers under 150 ms; server-stats has every request (the server finished them all)"
	mbserver --work uniform:50ms..300ms
	nginx_proxy "" "proxy_read_timeout 150ms;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=20 DUR=6s VUS=10 MAX_VUS=20
}
