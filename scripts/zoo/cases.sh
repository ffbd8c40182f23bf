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
