# Issue 32: conditions the first zoo lacked, one cause each (or a control),
# with the expected codes written from the setup before the analyzer ran:
# servers whose own time has a long tail or two modes, caches that replay
# Server-Timing and proxies that strip it, connection queues in proxies and
# load balancers (HAProxy maxconn, nginx max_conns), open-model streams
# against a server that degrades, failures seen through summaries without
# status codes, a small listen backlog, and firewalls between namespaces.
# Each saves its peers' own counters (peer-counters.txt) as the check that
# the cause was there. Ports: ZOO_PORT_BASE; namespaces: ZOO_NETNS (prefix).
# shellcheck shell=bash disable=SC2034

NSP=${ZOO_NETNS:-zoo}
NS_CLI_IP=10.250.32.1
NS_SRV_IP=10.250.32.2

LOGNORMAL="lognormal:p50=20ms,p99=600ms"

# haproxy_up SERVER_OPTS [FRONTEND_LINES [BACKEND_LINES]]: HAProxy on
# P_HAPROXY before the fake server (one server line with SERVER_OPTS), its
# stats as CSV on P_HAPROXY+5 (saved as the case's counters).
haproxy_up() {
	mkdir -p "$RUN/haproxy"
	CONFIG="global
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout queue 30s
frontend fe
  bind 127.0.0.1:$P_HAPROXY
  ${2:-}
  default_backend be
backend be
  ${3:-}
  server s1 127.0.0.1:$P_SERVER $1
listen stats
  bind 127.0.0.1:$((P_HAPROXY + 5))
  stats enable
  stats uri /stats"
	printf '%s\n' "$CONFIG" >"$RUN/haproxy/haproxy.cfg"
	bg haproxy "haproxy -db -f haproxy.cfg (HAProxy $(haproxy -v | head -1 | awk '{print $3}'), config below)" \
		haproxy -db -f "$RUN/haproxy/haproxy.cfg"
	wait_port "$P_HAPROXY"
	COUNTERS="curl -fsS 'http://127.0.0.1:$((P_HAPROXY + 5))/stats;csv' | cut -d, -f1-8,14,15,18,40-44"
}

# varnish_up: varnishd (default VCL: a GET answered 200 without Cache-Control
# is cached for the default TTL, 120 s) on P_VARNISH before the fake server.
varnish_up() {
	rm -rf "$RUN/varnish"
	bg varnish "varnishd -F -a 127.0.0.1:$P_VARNISH -T 127.0.0.1:$P_VARNISH_ADMIN -b 127.0.0.1:$P_SERVER -n <dir> -s malloc,32m (varnish $(varnishd -V 2>&1 | head -1 | grep -o '[0-9][0-9.]*' | head -1), its default VCL)" \
		varnishd -F -a "127.0.0.1:$P_VARNISH" -T "127.0.0.1:$P_VARNISH_ADMIN" -b "127.0.0.1:$P_SERVER" -n "$RUN/varnish" -s malloc,32m
	wait_port "$P_VARNISH"
	COUNTERS="varnishstat -n '$RUN/varnish' -1 -f MAIN.client_req -f MAIN.cache_hit -f MAIN.cache_miss -f MAIN.backend_req"
}

# nginx_cache EXTRA_LOCATION: nginx on P_NGINX caching the fake server's 200s
# for a minute (it stores and replays every header, Server-Timing too); each
# request's cache status is logged (the counters).
nginx_cache() {
	mkdir -p "$RUN/nginx/cache"
	nginx_up "proxy_cache_path $RUN/nginx/cache keys_zone=zoo:1m;
  log_format cache \$upstream_cache_status;
  upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  server {
    listen 127.0.0.1:$P_NGINX;
    access_log $RUN/nginx/logs/cache.log cache;
    location / {
      $1
      proxy_cache zoo;
      proxy_cache_valid 200 1m;
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
	COUNTERS="echo 'nginx cache status per request:'; sort '$RUN/nginx/logs/cache.log' | uniq -c"
}

# nginx_strip: nginx on P_NGINX that hides the fake server's Server-Timing.
nginx_strip() {
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  server {
    listen 127.0.0.1:$P_NGINX;
    location / {
      proxy_hide_header Server-Timing;
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
}

# netns_pair: two namespaces (NSP-cli for k6, NSP-srv for the server) joined
# by a veth pair; k6 runs in the first, the server listens in the second.
netns_pair() {
	CLINS=$NSP-cli SRVNS=$NSP-srv
	ip netns del "$CLINS" 2>/dev/null || true
	ip netns del "$SRVNS" 2>/dev/null || true
	ip netns add "$CLINS"
	cleanups+=("ip netns del $CLINS")
	ip netns add "$SRVNS"
	cleanups+=("ip netns del $SRVNS")
	ip link add "${NSP}c" netns "$CLINS" type veth peer name "${NSP}s" netns "$SRVNS"
	ip -n "$CLINS" addr add "$NS_CLI_IP/30" dev "${NSP}c"
	ip -n "$SRVNS" addr add "$NS_SRV_IP/30" dev "${NSP}s"
	local ns
	for ns in "$CLINS" "$SRVNS"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$CLINS" link set "${NSP}c" up
	ip -n "$SRVNS" link set "${NSP}s" up
	K6NS=$CLINS
	setup+=("ip netns add $CLINS; ip netns add $SRVNS; a veth pair between them, $NS_CLI_IP/30 (k6) and $NS_SRV_IP/30 (the server)")
}

# ns_server ARGS...: the fake server in NSP-srv on NS_SRV_IP:P_SERVER.
ns_server() {
	bg server "ip netns exec $SRVNS middlebench server --listen $NS_SRV_IP:$P_SERVER --allow-remote $*" \
		ip netns exec "$SRVNS" "$MB" server --listen "$NS_SRV_IP:$P_SERVER" --allow-remote "$@"
	local _
	for _ in $(seq 1 100); do
		ip netns exec "$SRVNS" bash -c "exec 3<>/dev/tcp/$NS_SRV_IP/$P_SERVER" 2>/dev/null && break
		sleep 0.05
	done
	STATS=$P_SERVER STATS_HOST=$NS_SRV_IP
}

# firewall INPUT_RULE [OUTPUT_RULE]: nftables in NSP-srv (table inet zoo), each rule
# with a counter, on the veth only (the stats are read over the loopback).
firewall() {
	local rules="table inet zoo {
  chain input { type filter hook input priority 0; policy accept;
    ${1:-}
  }
  chain output { type filter hook output priority 0; policy accept;
    ${2:-}
  }
}"
	ip netns exec "$SRVNS" nft -f - <<<"$rules"
	setup+=("ip netns exec $SRVNS nft -f - <<< '$(tr '\n' ' ' <<<"$rules")'")
	COUNTERS="ip netns exec $SRVNS nft list ruleset"
}

ns_url() { echo "http://$NS_SRV_IP:$P_SERVER/"; }

# --- a server whose own time has a long tail or two modes ---------------------

case_tail_lognormal_direct() {
	WHAT="fake server straight, work lognormal p50 20 ms p99 600 ms (a long tail of its own), constant-vus 4 8 s: waiting is the server's time, nothing queues"
	MUST=""; MAY="healthy server-slow"; MUSTNOT=$(rest)
	NOTE="the server's own time is all of waiting; whether a 20 ms median with a 600 ms p99 is slow is the floor's call, so it is one of healthy and server-slow; no backlog (4 VUs, no worker limit), nothing in the path"
	ANALYZE="executor: constant-vus"
	mbserver --work "$LOGNORMAL"
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=4 DUR=8s
}

case_tail_submillisecond_direct() {
	WHAT="fake server straight with no work (sub-millisecond answers), per-vu-iterations 4 VUs x 500 as fast as they go: thousands of requests a second, the control of a fast server"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: per-vu-iterations"
	mbserver --work 0s
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=per-vu-iterations VUS=4 ITERS=500
}

case_tail_bimodal_waf() {
	WHAT="middlebench proxy waf:delay=100ms before a two-mode fake server (97 % of requests 20 ms, 3 % 600 ms, by ?work=), constant-vus 4 8 s"
	MUST="path-latency"; MAY="server-slow"; MUSTNOT=$(rest)
	NOTE="the WAF's 100 ms is outside the server on every request; the server's slow mode is its own (server-slow allowed, not required); nothing queues"
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms
	mbproxy $P_SERVER --stage waf:delay=100ms
	k6run mix.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=4 DUR=8s SLOW_SHARE=0.03 FAST=20ms SLOW=600ms
	COUNTERS="curl -fsS http://127.0.0.1:$P_BOX_ADMIN/stats"
}

case_tail_lognormal_link() {
	WHAT="middlebench proxy link:latency=40ms before a fake server whose work is lognormal p50 20 ms p99 600 ms, constant-vus 4 8 s"
	MUST="path-latency"; MAY="server-slow"; MUSTNOT=$(rest)
	NOTE="the link delays every request outside the server; the tail is the server's own (server-slow allowed); nothing queues"
	ANALYZE="executor: constant-vus"
	mbserver --work "$LOGNORMAL"
	mbproxy $P_SERVER --stage link:latency=40ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=4 DUR=8s
	COUNTERS="curl -fsS http://127.0.0.1:$P_BOX_ADMIN/stats"
}

case_tail_bimodal_ratelimit() {
	WHAT="nginx limit_req 10 r/s (no burst, 429) before a two-mode fake server (97 % 20 ms, 3 % 600 ms), constant-arrival-rate 30/s 6 s: 2 of 3 rejected fast"
	MUST="rate-limited"; MAY="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 20ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=one:1m rate=10r/s; limit_req_status 429;" "limit_req zone=one;"
	k6run mix.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=30 DUR=6s VUS=10 MAX_VUS=40 SLOW_SHARE=0.03 FAST=20ms SLOW=600ms
}

case_tail_bimodal_pool_backlog() {
	WHAT="fake server --workers 2 with two-mode work (97 % 20 ms, 3 % 600 ms: about 37 ms a request, 53/s), constant-vus 10 8 s: a closed backlog in front of a two-mode server (its queue reported as queue;dur)"
	MUST="closed-model-backlog"; MAY="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --workers 2 --work 20ms
	k6run mix.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=10 DUR=8s SLOW_SHARE=0.03 FAST=20ms SLOW=600ms
}

case_tail_lognormal_haproxy_maxconn() {
	WHAT="HAProxy (server maxconn 2: the rest queue in HAProxy) before a fake server whose work is lognormal p50 20 ms p99 600 ms, constant-vus 10 8 s: a closed backlog the server does not see"
	MUST="closed-model-backlog"; MAY="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work "$LOGNORMAL"
	haproxy_up "maxconn 2"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-vus VUS=10 DUR=8s
}

# --- caches that replay Server-Timing, proxies that strip it -------------------

case_cache_nginx_replay() {
	WHAT="nginx proxy_cache (200s kept 1 min) before the fake server (100 ms): a miss, then every answer a hit that replays the stored Server-Timing app;dur=100, constant-arrival-rate 40/s 5 s"
	MUST="healthy"; MUSTNOT=$(rest)
	NOTE="the cache answers in well under a millisecond; the server worked once (its stats); the replayed 100 ms is not this request's"
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 100ms
	nginx_cache ""
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=3 MAX_VUS=10
}

case_cache_varnish_replay() {
	WHAT="varnish (default VCL) before the fake server (100 ms): a miss, then hits that replay Server-Timing app;dur=100, constant-arrival-rate 40/s 5 s, no server stats (k6's replayed server_time trend only)"
	MUST="healthy"; MUSTNOT=$(rest)
	NOTE="server-stats.json is saved but not passed: the user sees only the replayed Server-Timing"
	NO_STATS=1
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 100ms
	varnish_up
	k6run get.js -- "TARGET=$(url $P_VARNISH)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=3 MAX_VUS=10
}

case_cache_replay_behind_waf() {
	WHAT="middlebench proxy waf:delay=150ms, then nginx proxy_cache replaying Server-Timing app;dur=100 on every hit, then the fake server (100 ms, reached once), constant-vus 3 6 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	NOTE="waiting is the WAF's 150 ms; the replayed 100 ms is no work of this request (the server's stats: one request), so not server-slow"
	ANALYZE="executor: constant-vus"
	mbserver --work 100ms
	nginx_cache ""
	mbproxy $P_NGINX --stage waf:delay=150ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=6s
}

case_strip_servertiming_waf() {
	WHAT="middlebench proxy waf:delay=200ms, then nginx that hides Server-Timing, then the fake server (50 ms), constant-vus 3 6 s, with the server's stats (its own 50 ms)"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	nginx_strip
	mbproxy $P_NGINX --stage waf:delay=200ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=6s
	COUNTERS="curl -fsS http://127.0.0.1:$P_BOX_ADMIN/stats"
}

case_strip_servertiming_slow_server() {
	WHAT="nginx that hides Server-Timing before the fake server (300 ms), constant-vus 3 6 s, with the server's stats (its own 300 ms)"
	MUST="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 300ms
	nginx_strip
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-vus VUS=3 DUR=6s
}

# --- connection queues in proxies and load balancers ---------------------------

case_haproxy_maxconn_backlog() {
	WHAT="HAProxy with server maxconn 2 (the rest queue in HAProxy) before the fake server (50 ms, no worker limit: 40/s through HAProxy), constant-vus 10 6 s: latency ~ 10 / 40 = 250 ms, server time 50 ms"
	MUST="closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	haproxy_up "maxconn 2"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-vus VUS=10 DUR=6s
}

case_haproxy_maxconn_sweep() {
	WHAT="HAProxy with server maxconn 2 before the fake server (50 ms: 40/s), ramping-vus sweep 1,2,4,8 x 2 s: throughput flat from 2 VUs, latency ~ VUs / 40"
	MUST="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest)
	summaries "closed-model-backlog" "throughput-ceiling" "a summary has no steps: the flat throughput across VUs is not in it"
	ANALYZE="executor: ramping-vus"
	mbserver --work 50ms
	haproxy_up "maxconn 2"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_haproxy_maxconn_open_cliff() {
	WHAT="HAProxy with server maxconn 4 before the fake server (50 ms: 80/s), ramping-arrival-rate 40,60,80,100,120/s x 2 s (10..100 VUs): past 80/s the queue grows in HAProxy, not in the server"
	MUST="throughput-ceiling"; MUSTNOT=$(rest)
	summaries "" "throughput-ceiling path-latency" "a summary has no steps: the ceiling across rates is not in it; the wait outside the server is HAProxy's queue, a place in the path"
	NOTE="an open model: VUs are allocated as the queue grows (no closed backlog); the server's own time stays 50 ms"
	ANALYZE="executor: ramping-arrival-rate"
	mbserver --work 50ms
	haproxy_up "maxconn 4"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=ramping-arrival-rate STEPS=40,60,80,100,120 HOLD=2s VUS=10 MAX_VUS=100
}

case_nginx_upstream_max_conns_502() {
	WHAT="nginx upstream server max_conns=2 (open-source nginx has no queue: past 2 connections it answers 502 at once) before the fake server (50 ms), constant-arrival-rate 60/s 5 s (3 in flight on average: about a third refused)"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	NOTE="a connection limit, not a rate limit: the 502s are the proxy's for an upstream it will not open; no limiter"
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER max_conns=2; }
  server {
    listen 127.0.0.1:$P_NGINX;
    location / { proxy_pass http://origin; }
  }"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=60 DUR=5s VUS=10 MAX_VUS=20
}

# --- open-model streams against a server that degrades -------------------------

case_open_degrading_server() {
	WHAT="fake server straight whose work grows from 20 to 800 ms over the run (?work= by elapsed time), constant-arrival-rate 15/s 8 s (2..60 VUs): k6 allocates VUs as latency grows"
	MUST="server-slow"; MUSTNOT=$(rest)
	NOTE="an open model at a constant 15/s: the VUs follow latency; nothing queues and no ceiling is reached (the server has no worker limit)"
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 20ms
	k6run mix.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=15 DUR=8s VUS=2 MAX_VUS=60 RAMP_FROM=20 RAMP_TO=800 RAMP_S=8
}

case_open_degrading_server_waf() {
	WHAT="middlebench proxy waf:delay=100ms before a fake server whose work grows from 20 to 800 ms over the run, constant-arrival-rate 15/s 8 s (2..60 VUs)"
	MUST="server-slow path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 20ms
	mbproxy $P_SERVER --stage waf:delay=100ms
	k6run mix.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=15 DUR=8s VUS=2 MAX_VUS=60 RAMP_FROM=20 RAMP_TO=800 RAMP_S=8
	COUNTERS="curl -fsS http://127.0.0.1:$P_BOX_ADMIN/stats"
}

# --- failures seen through summaries without status codes ----------------------

case_nginx_limit_req_2rs_429() {
	WHAT="nginx limit_req 2 r/s (no burst, 429) before the fake server (50 ms), constant-arrival-rate 40/s 5 s: about 19 of 20 rejected, the server serves about 10"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=one:1m rate=2r/s; limit_req_status 429;" "limit_req zone=one;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_nginx_limit_req_403() {
	WHAT="nginx limit_req 5 r/s (no burst) answering 403 (limit_req_status 403) before the fake server (50 ms), constant-arrival-rate 40/s 5 s: a limiter that answers as a block does"
	MUST="rate-limited"; MUSTNOT=$(rest)
	NOTE="a limiter, whatever its status: the server serves about 5 a second (its stats), the rest are refused fast"
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	nginx_proxy "limit_req_zone \$binary_remote_addr zone=one:1m rate=5r/s; limit_req_status 403;" "limit_req zone=one;"
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_haproxy_ua_deny_429() {
	WHAT="HAProxy denying k6's User-Agent with 429 (http-request deny deny_status 429) before the fake server (which sees nothing), constant-arrival-rate 40/s 5 s: a block that answers as a limiter does"
	MUST="tool-blocked"; MUSTNOT=$(rest)
	NOTE="a block, whatever its status: every request refused for 5 s and the server served none (its stats), which no limiter with a rate does"
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	haproxy_up "" "http-request deny deny_status 429 if { req.hdr(user-agent) -m sub k6 }"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_mb_ratelimit_2rs_no_stats() {
	WHAT="middlebench proxy ratelimit:rate=2/s,window=1s (fixed window, 429) before the fake server (50 ms), constant-arrival-rate 40/s 5 s, analysed without the server's stats"
	MUST="rate-limited"; MUSTNOT=$(rest)
	NOTE="server-stats.json is saved but not passed; about 2 a second pass (their Server-Timing is in k6's server_time trend)"
	NO_STATS=1
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage ratelimit:rate=2/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
	COUNTERS="curl -fsS http://127.0.0.1:$P_BOX_ADMIN/stats"
}

# --- kernel queues and firewalls between namespaces ----------------------------

case_kernel_backlog_open() {
	WHAT="Go origin (10 ms) with listen backlog 4 accepting one connection per 25 ms (40/s), noConnectionReuse, constant-arrival-rate 60/s 6 s (10..80 VUs): the kernel's accept queue overflows, SYNs are dropped and retried"
	MUST="accept-queue"; MUSTNOT=$(rest)
	NOTE="one cause: the accept queue; the SYN retransmits in connecting are its own (not a separate connect-slow)"
	ANALYZE="executor: constant-arrival-rate"
	# k6 and the origin in one namespace of their own, so its kernel counters are this run's
	local ns=$NSP-k
	ip netns del "$ns" 2>/dev/null || true
	ip netns add "$ns"
	cleanups+=("ip netns del $ns")
	ip -n "$ns" link set lo up
	setup+=("ip netns add $ns; ip -n $ns link set lo up (k6 and the origin inside it)")
	bg origin "ip netns exec $ns go run ./internal/cmd/zoo-origin -listen 127.0.0.1:$P_ORIGIN -mode ok -work 10ms -backlog 4 -accept-every 25ms" \
		ip netns exec "$ns" "$ORIGIN" -listen "127.0.0.1:$P_ORIGIN" -mode ok -work 10ms -backlog 4 -accept-every 25ms
	local _
	for _ in $(seq 1 100); do
		ip netns exec "$ns" bash -c "exec 3<>/dev/tcp/127.0.0.1/$P_ORIGIN" 2>/dev/null && break
		sleep 0.05
	done
	K6NS=$ns
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=60 DUR=6s VUS=10 MAX_VUS=80 NO_REUSE=1 TIMEOUT=10s
	COUNTERS="ip netns exec $ns nstat -az TcpExtListenOverflows TcpExtListenDrops TcpExtTCPTimeouts TcpRetransSegs"
}

case_fw_syn_drop_share() {
	WHAT="nftables in the server's namespace drops 1 SYN in 5 (numgen random) to the fake server (50 ms), k6 in another namespace over a veth, noConnectionReuse, constant-vus 4 6 s: a dropped SYN is retried after 1 s"
	MUST="connect-slow"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	netns_pair
	ns_server --work 50ms
	firewall "iifname ${NSP}s tcp dport $P_SERVER tcp flags & (syn | ack) == syn numgen random mod 5 == 0 counter drop"
	k6run get.js -- "TARGET=$(ns_url)" EXEC=constant-vus VUS=4 DUR=6s NO_REUSE=1
}

case_fw_reply_drop_share() {
	WHAT="nftables in the server's namespace drops 1 in 10 of the fake server's outgoing segments (numgen random), k6 in another namespace over a veth reusing connections, fake server 50 ms, constant-vus 4 8 s: a lost answer is retransmitted ~200 ms later"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	netns_pair
	ns_server --work 50ms
	firewall "" "oifname ${NSP}s tcp sport $P_SERVER numgen random mod 10 == 0 counter drop"
	k6run get.js -- "TARGET=$(ns_url)" EXEC=constant-vus VUS=4 DUR=8s
}

case_fw_reject() {
	WHAT="nftables in the server's namespace rejects every connection to the fake server with a TCP reset, k6 in another namespace, constant-arrival-rate 20/s 5 s: connection refused at once"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	netns_pair
	ns_server --work 50ms
	firewall "iifname ${NSP}s tcp dport $P_SERVER counter reject with tcp reset"
	k6run get.js -- "TARGET=$(ns_url)" EXEC=constant-arrival-rate RATE=20 DUR=5s VUS=5 MAX_VUS=20
}

case_fw_drop_all_timeout() {
	WHAT="nftables in the server's namespace drops every SYN to the fake server, k6 in another namespace with a 2 s request timeout, constant-arrival-rate 10/s 5 s (up to 40 VUs): every request times out"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	netns_pair
	ns_server --work 50ms
	firewall "iifname ${NSP}s tcp dport $P_SERVER counter drop"
	k6run get.js -- "TARGET=$(ns_url)" EXEC=constant-arrival-rate RATE=10 DUR=5s VUS=10 MAX_VUS=40 TIMEOUT=2s
}

# --- a second batch, each also in k6's CSV (--out csv) ---------------------------

case_open_ramping_degrading_server() {
	WHAT="fake server straight whose work grows from 20 to 600 ms over the run, ramping-arrival-rate 10,15,20,25/s x 2 s (2..60 VUs): throughput follows the arrivals while the server slows; also --out csv"
	MUST="server-slow"; MUSTNOT=$(rest)
	NOTE="an open model: no ceiling (the server has no worker limit, throughput follows the rate), no closed backlog"
	ANALYZE="executor: ramping-arrival-rate"
	CSV=1
	mbserver --work 20ms
	k6run mix.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=10,15,20,25 HOLD=2s VUS=2 MAX_VUS=60 RAMP_FROM=20 RAMP_TO=600 RAMP_S=8
}

case_haproxy_maxconn_open_constant() {
	WHAT="HAProxy with server maxconn 2 before the fake server (50 ms: 40/s), constant-arrival-rate 60/s 6 s (10..40 VUs): the offered rate is above what HAProxy lets through, the queue grows in HAProxy; also --out csv"
	MUST="throughput-ceiling"; MUSTNOT=$(rest)
	summaries "" "throughput-ceiling path-latency" "a summary has no steps: the throughput held below the arrivals is not in it; the wait outside the server is HAProxy's queue, a place in the path"
	NOTE="an open model held at 40/s by a proxy's connection limit; the server's own time stays 50 ms"
	ANALYZE="executor: constant-arrival-rate"
	CSV=1
	mbserver --work 50ms
	haproxy_up "maxconn 2"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-arrival-rate RATE=60 DUR=6s VUS=10 MAX_VUS=40
}

case_varnish_replay_behind_link() {
	WHAT="middlebench proxy link:latency=100ms, then varnish replaying Server-Timing app;dur=100 on every hit, then the fake server (100 ms, reached once), constant-vus 3 6 s, no server stats; also --out csv"
	MUST="path-latency"; MUSTNOT=$(rest)
	NOTE="the link is the wait; the replayed 100 ms (the same figure on every response) is no work of this request, so not server-slow. server-stats.json is saved but not passed"
	NO_STATS=1
	ANALYZE="executor: constant-vus"
	CSV=1
	mbserver --work 100ms
	varnish_up
	mbproxy $P_VARNISH --stage link:latency=100ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=6s
}

case_fw_reply_drop_open() {
	WHAT="nftables in the server's namespace drops 1 in 10 of the fake server's outgoing segments, k6 in another namespace over a veth, fake server 50 ms, constant-arrival-rate 40/s 6 s (5..40 VUs): a lost answer comes ~200 ms later; also --out csv"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	CSV=1
	netns_pair
	ns_server --work 50ms
	firewall "" "oifname ${NSP}s tcp sport $P_SERVER numgen random mod 10 == 0 counter drop"
	k6run get.js -- "TARGET=$(ns_url)" EXEC=constant-arrival-rate RATE=40 DUR=6s VUS=5 MAX_VUS=40
}

case_kernel_backlog_reuse_control() {
	WHAT="Go origin (10 ms) with listen backlog 4 accepting one connection per 25 ms, k6 reusing connections (4 VUs: 4 connections, accepted within 100 ms), constant-vus 4 5 s: the control of the accept queue; also --out csv"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	CSV=1
	origin -mode ok -work 10ms -backlog 4 -accept-every 25ms
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-vus VUS=4 DUR=5s
}

case_strip_servertiming_healthy() {
	WHAT="nginx that hides Server-Timing before the fake server (50 ms), constant-vus 3 5 s, with the server's stats (its own 50 ms): a control through a proxy with no header; also --out csv"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	CSV=1
	mbserver --work 50ms
	nginx_strip
	k6run get.js -- "TARGET=$(url $P_NGINX)" EXEC=constant-vus VUS=3 DUR=5s
}

case_tail_lognormal_open() {
	WHAT="fake server straight, work lognormal p50 20 ms p99 600 ms, constant-arrival-rate 30/s 8 s (5..60 VUs): k6 allocates VUs for the tail; also --out csv"
	MUST=""; MAY="healthy server-slow"; MUSTNOT=$(rest)
	NOTE="as tail-lognormal-direct in an open model: the server's own tail is all of waiting, nothing queues (no worker limit), no ceiling; one of healthy and server-slow"
	ANALYZE="executor: constant-arrival-rate"
	CSV=1
	mbserver --work "$LOGNORMAL"
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=30 DUR=8s VUS=5 MAX_VUS=60
}

case_haproxy_ua_deny_403_no_stats() {
	WHAT="HAProxy denying k6's User-Agent with 403 before the fake server (which sees nothing), constant-arrival-rate 40/s 5 s, analysed without the server's stats; also --out csv"
	MUST="tool-blocked"; MUSTNOT=$(rest)
	NOTE="server-stats.json is saved but not passed (it shows 0 requests)"
	NO_STATS=1
	ANALYZE="executor: constant-arrival-rate"
	CSV=1
	mbserver --work 50ms
	haproxy_up "" "http-request deny deny_status 403 if { req.hdr(user-agent) -m sub k6 }"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_haproxy_timeout_server_504() {
	WHAT="HAProxy with timeout server 150ms before the fake server (work uniform 50..300 ms): the ~60 % slower than 150 ms answered 504 by HAProxy, constant-arrival-rate 20/s 6 s; also --out csv"
	MUST="upstream-failing"; MAY="server-slow"; MUSTNOT=$(rest)
	NOTE="the failures are HAProxy's 504s for an upstream slower than its timeout; the server's slowness is real (server-slow allowed)"
	ANALYZE="executor: constant-arrival-rate"
	CSV=1
	mbserver --work uniform:50ms..300ms
	haproxy_up "" "" "timeout server 150ms"
	k6run get.js -- "TARGET=$(url $P_HAPROXY)" EXEC=constant-arrival-rate RATE=20 DUR=6s VUS=5 MAX_VUS=20
}
