# The zoo's cases, sourced by gen.sh. Each case_<name> sets what it is and
# the codes it expects FIRST (from what it configures), then builds its path
# and runs k6. mustNot defaults to every other code (rest): a code that is
# neither must nor may is wrong on that case.
# shellcheck shell=bash disable=SC2034

# Every code the zoo judges: DESIGN.md's table, then the codes the zoo
# proposes (see the zoo's README).
CODES="healthy server-slow path-latency tls-handshake-slow connect-slow connection-wait hidden-connection-cost
upload-limited download-limited rate-limited tool-blocked generator-saturated closed-model-backlog throughput-ceiling
upstream-failing accept-queue"

# rest: every code that is neither in MUST nor in MAY.
rest() {
	local c o=""
	for c in $CODES; do
		[[ " $MUST $MAY " == *" $c "* ]] || o+="$c "
	done
	echo "${o% }"
}

url() { echo "http://127.0.0.1:$1/${2:-}"; }

# format NAME MUST MAY WHY: the lists of one format that cannot carry the
# evidence of the whole run (its mustNot: every other code).
format() {
	local MUST=$2 MAY=$3
	FORMATS+="${FORMATS:+$'\n'}$1: {must: $(yaml_list "$MUST"), may: $(yaml_list "$MAY"), mustNot: $(yaml_list "$(rest)"), why: $(yaml_str "$4")}"
}

# summaries MUST MAY WHY: the same lists for both summaries (export and handleSummary).
summaries() { format summary-export "$@"; format handle-summary "$@"; }

NO_SUMMARY_STATUS="a summary has no status or error codes"

# --- healthy baselines, one per executor ------------------------------------

case_healthy_constant_vus() {
	WHAT="fake server (50 ms of work) straight, constant-vus 3 VUs 5 s"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=5s
}

case_healthy_ramping_vus() {
	WHAT="fake server (50 ms) straight, ramping-vus sweep 1,2,4,8 VUs x 2 s: throughput grows with VUs"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_healthy_constant_arrival_rate() {
	WHAT="fake server (50 ms) straight, constant-arrival-rate 40/s 5 s (5..20 VUs)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_healthy_large_bodies() {
	WHAT="fake server (20 ms) straight with 1 MiB bodies and no cap (loopback), constant-vus 3 5 s: big downloads that nothing limits"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 1MiB
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=5s
}

case_healthy_ramping_arrival_rate() {
	WHAT="fake server (50 ms) straight, ramping-arrival-rate 10,20,40,60/s x 2 s (5..30 VUs)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=10,20,40,60 HOLD=2s VUS=5 MAX_VUS=30
}

# --- toxiproxy ----------------------------------------------------------------

case_toxi_latency_down() {
	WHAT="toxiproxy latency 150 ms jitter 30 ms downstream, fake server 50 ms, constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":150,"jitter":30}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s
}

case_toxi_latency_up() {
	WHAT="toxiproxy latency 150 ms jitter 30 ms upstream (the request is late), fake server 50 ms, constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"upstream","attributes":{"latency":150,"jitter":30}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s
}

# --- compound -------------------------------------------------------------------

case_server_slow_250() {
	WHAT="fake server 250 ms of work straight (the compound case's server alone), constant-vus 3 6 s"
	MUST="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 250ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=6s
}

case_compound_server250_path250() {
	WHAT="fake server 250 ms behind toxiproxy latency 250 ms downstream, constant-vus 3 6 s: two causes, each half of waiting"
	MUST="server-slow path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 250ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":250,"jitter":0}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=6s
}

# --- nginx ----------------------------------------------------------------------

# nginx_proxy EXTRA_HTTP LOCATION_BODY: nginx on P_NGINX proxying to the fake server.
nginx_proxy() {
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  $1
  server {
    listen 127.0.0.1:$P_NGINX;
    location / {
      $2
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
}

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

# --- transport failures from the zoo's Go origin ----------------------------------

case_origin_reset() {
	WHAT="Go origin that reads each request then resets the connection (RST), constant-arrival-rate 40/s 5 s: no HTTP answer at all"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode reset
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_eof() {
	WHAT="Go origin that reads each request then closes without answering (EOF), constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode eof
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_garbage() {
	WHAT="Go origin that reads each request then answers bytes that are not HTTP (an SSH banner), constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	summaries "" "upstream-failing tool-blocked" "$NO_SUMMARY_STATUS: all requests fail fast with bytes received, which a block (403) shows too"
	origin -mode garbage
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_cut_body() {
	WHAT="Go origin that answers 200 with Content-Length 65536, sends 1 KiB of the body and closes, constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	summaries "" "upstream-failing tool-blocked" "$NO_SUMMARY_STATUS: all requests fail fast with bytes received, which a block (403) shows too"
	origin -mode cut
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

# --- toxiproxy: caps and failures -------------------------------------------------

case_toxi_bandwidth_down() {
	WHAT="toxiproxy bandwidth 128 KB/s per connection downstream, fake server 20 ms with 64 KiB bodies, constant-vus 3 8 s: ~0.5 s per body, the first chunk late too"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 64KiB
	toxiproxy $P_SERVER
	toxic '{"name":"bw","type":"bandwidth","stream":"downstream","attributes":{"rate":128}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=8s
}

case_toxi_bandwidth_up() {
	WHAT="toxiproxy bandwidth 512 KB/s per connection upstream, 256 KiB uploads (POST) to the fake server (20 ms), constant-vus 2 8 s: ~0.5 s per upload"
	MUST="upload-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms
	toxiproxy $P_SERVER
	toxic '{"name":"bw","type":"bandwidth","stream":"upstream","attributes":{"rate":512}}'
	k6run upload.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=2 DUR=8s BODY_KB=256
}

case_toxi_limit_data() {
	WHAT="toxiproxy limit_data 20000 bytes downstream (each connection closed after ~20 kB), fake server 10 ms with 4 KiB bodies, constant-arrival-rate 40/s 5 s: about every 5th request on a connection cut"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	summaries "" "upstream-failing rate-limited" "$NO_SUMMARY_STATUS: a share of fast failures is a limiter's signature too"
	mbserver --work 10ms --size 4KiB
	toxiproxy $P_SERVER
	toxic '{"name":"cut","type":"limit_data","stream":"downstream","attributes":{"bytes":20000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=20 MAX_VUS=20
}

case_toxi_timeout() {
	WHAT="toxiproxy timeout 1000 ms downstream (no data comes back; the connection is closed after 1 s), fake server 50 ms, constant-arrival-rate 10/s 5 s: every request fails after ~1 s"
	MUST="upstream-failing"; MAY="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NOTE="the fake server answered every request; toxiproxy drops the answers"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"to","type":"timeout","stream":"downstream","attributes":{"timeout":1000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=10 DUR=5s VUS=15 MAX_VUS=30
}

case_toxi_reset_peer() {
	WHAT="toxiproxy reset_peer 300 ms downstream (data held 300 ms, then the connection reset), fake server 50 ms, constant-arrival-rate 40/s 5 s: every request reset after ~0.3 s, VUs run short"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NOTE="dropped_iterations come from VUs held by the 0.3 s failures, not from the generator's CPU"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"rst","type":"reset_peer","stream":"downstream","attributes":{"timeout":300}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_toxi_slow_close() {
	WHAT="toxiproxy slow_close 1000 ms downstream with a new connection per request (noConnectionReuse), fake server 50 ms, constant-vus 3 5 s: the client has its answer before the close, nothing to see"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"sc","type":"slow_close","stream":"downstream","attributes":{"delay":1000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s NO_REUSE=1
}

case_toxi_slicer() {
	WHAT="toxiproxy slicer downstream (128-byte slices +-64, 2 ms apart), fake server 20 ms with 16 KiB bodies, constant-vus 3 6 s: ~0.25 s of receiving per body"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 16KiB
	toxiproxy $P_SERVER
	toxic '{"name":"sl","type":"slicer","stream":"downstream","attributes":{"average_size":128,"size_variation":64,"delay":2000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=6s
}

# --- nginx: caps, TLS, timeouts ---------------------------------------------------------

case_nginx_limit_rate() {
	WHAT="nginx limit_rate 32k (per request, download) before the fake server (20 ms, 48 KiB bodies), constant-vus 6 8 s: 32 KB at once, the rest at the next second's tick (~0-1 s per body)"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	NOTE="nginx lets a request send limit_rate x (whole seconds elapsed + 1) bytes: the first second's worth goes at once"
	mbserver --work 20ms --size 48KiB
	nginx_proxy "" "limit_rate 32k;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-vus VUS=6 DUR=8s
}

# nginx_tls EXTRA_LOCATION: nginx terminating TLS on P_NGINX_TLS before the fake server.
nginx_tls() {
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  server {
    listen 127.0.0.1:$P_NGINX_TLS ssl;
    ssl_certificate $WORK/tls/cert.pem;
    ssl_certificate_key $WORK/tls/key.pem;
    location / {
      $1
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
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

# --- middlebench's own boxes and fake server ------------------------------------------

case_mb_waf_delay() {
	WHAT="middlebench proxy waf:delay=200ms before the fake server (50 ms), constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage waf:delay=200ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=5s
}

case_mb_tls_handshake_no_reuse() {
	WHAT="middlebench proxy tls:handshakeDelay=150ms before the fake server (50 ms), noConnectionReuse (a handshake per request), constant-vus 3 6 s"
	MUST="tls-handshake-slow"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage tls:handshakeDelay=150ms
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_BOX/" EXEC=constant-vus VUS=3 DUR=6s NO_REUSE=1
}

case_mb_ratelimit_429() {
	WHAT="middlebench proxy ratelimit:rate=20/s,window=1s (fixed window, 429) before the fake server (50 ms), constant-arrival-rate 50/s 5 s"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage ratelimit:rate=20/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=50 DUR=5s VUS=20 MAX_VUS=20
}

case_mb_ratelimit_429_no_server_stats() {
	WHAT="as mb-ratelimit-429 (fixed window 20/s, 429, fake server 50 ms, constant-arrival-rate 50/s 5 s), analysed without the server's stats: k6's own server_time trend is the only server view"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NO_STATS=1
	NOTE="server-stats.json is saved but not passed: the case is a user without an APM"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage ratelimit:rate=20/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=50 DUR=5s VUS=20 MAX_VUS=20
}

case_mb_read_rate_upload() {
	WHAT="fake server --read-rate 1MiB/s shared by all connections (20 ms), 256 KiB uploads (POST), constant-vus 2 8 s: each upload ~0.5 s (E2's cap)"
	MUST="upload-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --read-rate 1MiB/s
	k6run upload.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=2 DUR=8s BODY_KB=256
}

case_mb_uablock_403() {
	WHAT="middlebench proxy uablock (default patterns: k6's User-Agent) before the fake server (which sees nothing), constant-arrival-rate 40/s 5 s"
	MUST="tool-blocked"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage uablock
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_mb_bandwidth_per_connection() {
	WHAT="middlebench proxy bandwidth:down=128KiB/s,perConnection=true before the fake server (20 ms, 64 KiB bodies), constant-vus 3 8 s: ~0.5 s per body"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 64KiB
	mbproxy $P_SERVER --stage bandwidth:down=128KiB/s,perConnection=true
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=8s
}

case_mb_accept_rate_no_reuse() {
	WHAT="middlebench proxy accept:rate=40/s,backlog=2 before the fake server (10 ms), noConnectionReuse, constant-vus 10 6 s: each request waits to be accepted"
	MUST="accept-queue"; MAY="closed-model-backlog connect-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 10ms
	mbproxy $P_SERVER --stage accept:rate=40/s,backlog=2
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=10 DUR=6s NO_REUSE=1
}

case_origin_accept_backlog_no_reuse() {
	WHAT="Go origin (10 ms) with listen backlog 2 accepting one connection per 25 ms, noConnectionReuse, constant-vus 10 6 s: the accept queue and dropped SYNs"
	MUST="accept-queue"; MAY="closed-model-backlog connect-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	origin -mode ok -work 10ms -backlog 2 -accept-every 25ms
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-vus VUS=10 DUR=6s NO_REUSE=1
}

case_mb_workers_backlog() {
	WHAT="fake server --workers 4 --work 50ms (80/s; its queue reported as queue;dur and in its stats), constant-vus 20 6 s: latency ~ 20 / 80 = 250 ms"
	MUST="closed-model-backlog"; MAY="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --workers 4 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=20 DUR=6s
}

case_origin_pool_backlog() {
	WHAT="Go origin with 4 workers x 50 ms whose Server-Timing times the work only (80/s), constant-vus 20 6 s: latency ~ 20 / 80 = 250 ms, server_time 50 ms"
	MUST="closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	origin -mode ok -work 50ms -workers 4
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-vus VUS=20 DUR=6s
}

case_origin_pool_sweep() {
	WHAT="Go origin with 4 workers x 50 ms (unreported queue), ramping-vus sweep 2,4,8,16 VUs x 2 s: throughput flat at ~80/s from 4 VUs, latency ~ VUs / 80"
	MUST="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	summaries "closed-model-backlog" "throughput-ceiling" "a summary has no steps: the flat throughput across VUs is not in it"
	origin -mode ok -work 50ms -workers 4
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=ramping-vus STEPS=2,4,8,16 HOLD=2s
}

case_mb_workers_sweep() {
	WHAT="fake server --workers 4 --work 50ms (80/s, its queue reported), ramping-vus sweep 2,4,8,16 x 2 s: throughput flat from 4 VUs, latency ~ VUs / 80 (seed 003's closed sweep, small)"
	MUST="closed-model-backlog throughput-ceiling"; MAY="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	summaries "closed-model-backlog" "throughput-ceiling server-slow" "a summary has no steps: the flat throughput across VUs is not in it"
	mbserver --workers 4 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=2,4,8,16 HOLD=2s
}

case_mb_write_rate_shared() {
	WHAT="fake server --write-rate 2MiB/s shared by all connections, 20 ms, 128 KiB bodies, constant-vus 8 6 s: 16 bodies/s at most, each ~0.5 s"
	MUST="download-limited"; MAY="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 128KiB --write-rate 2MiB/s
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=8 DUR=6s
}

case_mb_write_rate_sweep() {
	WHAT="fake server --write-rate 2MiB/s shared, 20 ms, 128 KiB bodies, ramping-vus sweep 1,2,4,8 x 2 s: throughput stops at 16/s while receiving grows"
	MUST="download-limited throughput-ceiling"; MAY="closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	summaries "download-limited" "throughput-ceiling closed-model-backlog" "a summary has no steps: the ceiling across VUs is not in it"
	mbserver --work 20ms --size 128KiB --write-rate 2MiB/s
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_mb_cpu_bound_sweep() {
	WHAT="GOMAXPROCS=64 fake server --cpu 30ms pinned to CPU 1 (k6 on CPU 0), ramping-vus sweep 1,2,4,8 x 2 s: the server's own time grows with load (~30 ms to ~240 ms)"
	MUST="server-slow"; MAY="throughput-ceiling closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	SERVER_CPU=1 mbserver GOMAXPROCS=64 --cpu 30ms
	TASKSET=0 k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_mb_open_model_cliff() {
	WHAT="fake server --workers 10 --work 50ms (200/s), ramping-arrival-rate 100,150,200,250,300/s x 2 s (20..100 VUs): past 200/s the server's queue grows and k6 runs out of VUs"
	MUST="throughput-ceiling"; MAY="closed-model-backlog server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	NOTE="dropped_iterations here come from VUs held by the server's queue (server_queue, queue_time), not from the generator's CPU"
	summaries "" "throughput-ceiling closed-model-backlog server-slow" "a summary has no steps: the ceiling across rates is not in it"
	mbserver --workers 10 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=100,150,200,250,300 HOLD=2s VUS=20 MAX_VUS=100
}

# --- a saturated generator --------------------------------------------------------------

case_gen_saturated_constant_rate() {
	WHAT="k6 pinned to CPU 0 (taskset -c 0) burning 8 ms of CPU per iteration (burn.js), constant-arrival-rate 150/s 6 s (5..10 VUs), fake server 10 ms on CPU 1: k6 can do ~100/s"
	MUST="generator-saturated"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	SERVER_CPU=1 mbserver --work 10ms
	TASKSET=0 k6run burn.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=150 DUR=6s VUS=5 MAX_VUS=10 CPU_MS=8
}

case_gen_saturated_ramping_rate() {
	WHAT="k6 pinned to CPU 0 burning 8 ms of CPU per iteration, ramping-arrival-rate 40,80,120,160/s x 2 s (5..10 VUs), fake server 10 ms on CPU 1: the knee near 100/s"
	MUST="generator-saturated"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	SERVER_CPU=1 mbserver --work 10ms
	TASKSET=0 k6run burn.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=40,80,120,160 HOLD=2s VUS=5 MAX_VUS=10 CPU_MS=8
}

# --- compound paths: two and three causes ---------------------------------------------------

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
