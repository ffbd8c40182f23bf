#!/usr/bin/env bash
# Peer comparison for the proxy's boxes: requests/s and latency through
#   direct            the origin itself (middlebench server, no work)
#   box (bytes)       a middlebench box with no stage: byte forwarding
#   box (http)        a middlebench box with every HTTP stage configured but inactive
#   toxiproxy         Shopify's toxiproxy with no toxics
#   nginx             nginx as a plain reverse proxy with upstream keep-alive
# Same origin, same load generator (hey), same connections, one run each,
# printed side by side. Targets: a box adds ≤ 100 µs p50 per hop (see the Go
# benchmark BenchmarkHopOverhead for a precise figure), and a box with no
# stage active does at least toxiproxy's requests/s.
#
# Everything listens on 127.0.0.1 and is stopped on exit. The machine is
# shared and hey runs on the same 2 cores: read ratios, not absolutes.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNS=${CONNS:-50}
DURATION=${DURATION:-5s}
BIN=bin/middlebench
PEERS=$PWD/.bench/bin
TOXIPROXY_VERSION=v2.5.0
HEY_VERSION=v0.1.5
mkdir -p "$PEERS" .bench/tmp
TMP=$(mktemp -d "$PWD/.bench/tmp/proxy.XXXXXX")

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

[ -x "$BIN" ] || go build -o "$BIN" ./cmd/middlebench
[ -x "$PEERS/hey" ] || GOBIN=$PEERS go install "github.com/rakyll/hey@$HEY_VERSION"
[ -x "$PEERS/toxiproxy-server" ] || { GOBIN=$PEERS go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" && mv "$PEERS/server" "$PEERS/toxiproxy-server"; }
if ! command -v nginx >/dev/null; then
	(apt-get install -y nginx-light >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y nginx-light >/dev/null 2>&1; }) || echo "nginx: could not install; skipped"
fi

# free_port prints a port nobody on 127.0.0.1 answers on.
free_port() {
	local p
	for _ in $(seq 1 200); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
	done
	echo "no free port" >&2; return 1
}

# wait_port waits (5 s at most) until something listens on the port.
wait_port() {
	for _ in $(seq 1 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	echo "nothing listens on 127.0.0.1:$1" >&2; return 1
}

ORIGIN=$(free_port)
"$BIN" server --listen "127.0.0.1:$ORIGIN" >"$TMP/origin.log" 2>&1 & pids+=($!)
wait_port "$ORIGIN"

BYTES=$(free_port)
"$BIN" proxy --listen "127.0.0.1:$BYTES" --upstream "http://127.0.0.1:$ORIGIN" --duration 10m >"$TMP/bytes.log" 2>&1 & pids+=($!)
HTTPBOX=$(free_port)
"$BIN" proxy --listen "127.0.0.1:$HTTPBOX" --upstream "http://127.0.0.1:$ORIGIN" --duration 10m \
	--stage waf --stage 'ratelimit:rate=1000000000/s' --stage 'uablock:patterns=[^never-matches$]' --stage fault \
	>"$TMP/http.log" 2>&1 & pids+=($!)
wait_port "$BYTES"; wait_port "$HTTPBOX"

TOXI_API=$(free_port); TOXI=$(free_port)
"$PEERS/toxiproxy-server" -host 127.0.0.1 -port "$TOXI_API" >"$TMP/toxiproxy.log" 2>&1 & pids+=($!)
wait_port "$TOXI_API"
curl -fsS -X POST "http://127.0.0.1:$TOXI_API/proxies" \
	-d "{\"name\":\"bench\",\"listen\":\"127.0.0.1:$TOXI\",\"upstream\":\"127.0.0.1:$ORIGIN\"}" >/dev/null
wait_port "$TOXI"

NGINX=""
if command -v nginx >/dev/null; then
	NGINX=$(free_port)
	mkdir -p "$TMP/nginx/logs"
	cat >"$TMP/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/logs/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	upstream origin { server 127.0.0.1:$ORIGIN; keepalive 128; }
	server {
		listen 127.0.0.1:$NGINX;
		location / {
			proxy_pass http://origin;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
		}
	}
}
CONF
	nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' & pids+=($!)
	wait_port "$NGINX"
fi

# run NAME PORT: one hey run; prints "name req/s p50 p99".
run() {
	local out rps p50 p99
	out=$("$PEERS/hey" -z "$DURATION" -c "$CONNS" -disable-compression "http://127.0.0.1:$2/" 2>&1)
	rps=$(awk '/Requests\/sec:/ {print $2}' <<<"$out")
	p50=$(awk '/ 50%% in / {print $3*1000}' <<<"$out")
	p99=$(awk '/ 99%% in / {print $3*1000}' <<<"$out")
	echo "$1 ${rps:-0} ${p50:-0} ${p99:-0}"
}

results=()
results+=("$(run direct "$ORIGIN")")
results+=("$(run 'box(bytes)' "$BYTES")")
results+=("$(run 'box(http,inactive)' "$HTTPBOX")")
results+=("$(run toxiproxy "$TOXI")")
[ -n "$NGINX" ] && results+=("$(run nginx "$NGINX")")

echo "hey -z $DURATION -c $CONNS, same origin; shared 2-core machine, hey on the same cores"
printf '%-20s %10s %8s %9s %9s\n' target 'req/s' 'vs direct' 'p50 ms' 'p99 ms'
direct=$(awk '{print $2}' <<<"${results[0]}")
for r in "${results[@]}"; do
	read -r name rps p50 p99 <<<"$r"
	printf '%-20s %10.0f %8.2f  %9.2f %9.2f\n' "$name" "$rps" "$(awk -v a="$rps" -v b="$direct" 'BEGIN{print (b>0)?a/b:0}')" "$p50" "$p99"
done
box=$(awk '{print $2}' <<<"${results[1]}")
toxi=$(awk '{print $2}' <<<"${results[3]}")
httpbox=$(awk '{print $2}' <<<"${results[2]}")
echo "box (http, every stage inactive) vs toxiproxy: $(awk -v a="$httpbox" -v b="$toxi" 'BEGIN{printf "%.2f", (b>0)?a/b:0}')× (net/http's server side is the rest of the gap)"
if awk -v a="$box" -v b="$toxi" 'BEGIN{exit !(a>=b)}'; then
	echo "target met: box (bytes) $box req/s ≥ toxiproxy $toxi req/s"
else
	echo "target missed this run: box (bytes) $box req/s < toxiproxy $toxi req/s (shared machine: rerun before concluding)"
fi
