#!/usr/bin/env bash
# Peer comparison for the proxy's boxes: requests/s and added latency through
#   direct            the origin itself (middlebench server, no work)
#   box(bytes)        a middlebench box with no stage: byte forwarding
#   box(http)         a middlebench box with waf, ratelimit, uablock and fault
#                     configured but inactive: every request parsed and staged
#   toxiproxy         Shopify's toxiproxy with no toxics
#   nginx             nginx as a plain reverse proxy with upstream keep-alive
#   nginx(stream)     nginx's stream module: a byte forwarder in C, the byte
#                     box's peer (Debian's libnginx-mod-stream)
# Same origin, same load generator, same connections, ROUNDS interleaved
# rounds (each round runs every target once, the order rotated):
#   throughput   hey -z DURATION -c CONNS, requests/s; and wrk -t1 -c CONNS,
#                whose CPU per request is a fraction of hey's; each with
#                the generator's own CPU share
#   latency      internal/cmd/hoplat: LAT_REQUESTS round trips at one keep-alive
#                connection per target, the targets interleaved request by
#                request (order rotated each time), so every target meets the
#                same moments of the machine: what each box adds to the
#                direct p50 and p99 (one wrk -c1 run after another compared
#                two moments: its added p99 read −60..2780 µs, noise)
#   CPU/req      CPU time (user + system, /proc/PID/stat of the target and its
#                children) the target spent per request answered during its
#                hey run: what the proxy costs the machine. Load from other
#                processes moves it far less than req/s, which on shared
#                cores is mostly what the others leave. Also measured at
#                a fixed offered rate (FIXED_RATE req/s in all, default
#                2000; 0: not): the same work in the same time for every
#                target, the steadiest figure of the cost of a request.
#                Twice: with hey -q, whose CONNS workers start together
#                and so send in bursts (at 2000 req/s, 50 requests every
#                25 ms: a box then sleeps over 20 ms between bursts), and
#                with vegeta at a steady rate on as many connections. A
#                box blocked in epoll_wait paid the Go scheduler (sysmon's
#                hand-offs of its P) until its loop kept its waits under
#                10 ms (proxy/eventset_linux.go, waitBlocked): at 2000
#                req/s in hey's bursts the HTTP box then read 50 [45..69]
#                µs per request against toxiproxy's 60 (0.83×), the build
#                before 64 (1.13×), the byte box 44 against 50 (3 rounds,
#                2026-12-03 19:31-19:40 UTC).
# Each figure is the median over rounds with its spread [least..most]; the
# ratios to toxiproxy are the median of the per-round ratios (each round's
# runs share that moment's load), with their spread.
# Pinning (taskset CPU lists; empty = not pinned): the load generators on
# PIN_GEN (default 0), the origin on PIN_ORIGIN (default 1), every target on
# PIN_TARGET (default: not pinned): the same for every target. The output
# says which. Unpinned, a target's threads are mostly woken on the CPU of
# the process that wrote to them, the generator's: hey's rate is then how
# the scheduler splits CPU 0 between hey and the target, and separates the
# targets little (2026-12-02, 5 rounds: nginx 1.00×, box(bytes) 1.04× at
# 0.74× toxiproxy's CPU per request, spreads 0.6..1.6). PIN_TARGET=1 puts
# every target on the origin's CPU (a Go target then runs with GOMAXPROCS 1):
# the generator has its CPU to itself and the figures spread a few per cent
# (box(http) 0.97 [0.93..0.97]× with hey, 3 rounds), a steadier reading of
# what a single-CPU target costs, which is not what it costs with two. With
# one P the boxes' epoll loops wait in Go's poller rather than block in
# epoll_wait (proxy/eventset_linux.go): pinned, box(http) on its HTTP loop
# read 0.89× toxiproxy with hey at 0.99× its CPU per request, unpinned
# 1.07× at 0.74× (2026-12-03); since the poller's loops make raw system
# calls (internal/rawio), pinned 1.13× at 0.77×, the build before beside
# it 1.08× at 0.83× (3 rounds, 2026-12-03 15:35-15:44).
# Targets (issue 16): box(http) ≥ 1.0× toxiproxy's requests/s, box(bytes) ≥
# 1.2×, and each box's added p50 and p99 ≤ toxiproxy's. Under hey, box(bytes)
# reads about what nginx(stream) does (2026-12-03, 22:43 and 22:51 UTC, 3
# and 5 rounds: box(bytes) 1.49 and 1.12× toxiproxy, nginx(stream) 1.19 and
# 1.28×; box(bytes) ÷ nginx(stream) 1.13 and 1.03 at 0.75 and 0.90× its CPU
# per request): hey (about 42 µs of CPU per request) and the origin (28)
# leave a forwarder little to gain. The byte box is at the kernel's floor
# there: 4 TCP segments per request (no pure ACK), exactly 2 reads and 2
# writes, 0.36 epoll_pwait, 1.6-2 µs of user CPU of its 15-17.
#
# Everything listens on 127.0.0.1 and is stopped on exit. The machine is
# shared: read ratios of the same run, with the uptime printed beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNS=${CONNS:-50}
DURATION=${DURATION:-5s}
LAT_REQUESTS=${LAT_REQUESTS:-20000}
ROUNDS=${ROUNDS:-3}
FIXED_RATE=${FIXED_RATE:-2000}
PIN_GEN=${PIN_GEN-0}
PIN_ORIGIN=${PIN_ORIGIN-1}
PIN_TARGET=${PIN_TARGET-}
BIN=bin/middlebench
# BEFORE_BIN=path: also run its boxes as box(bytes)@before and box(http)@before,
# interleaved with the others: before and after measured in the same run.
BEFORE_BIN=${BEFORE_BIN:-}
PEERS=$PWD/.bench/bin
TOXIPROXY_VERSION=v2.5.0
HEY_VERSION=v0.1.5
VEGETA_VERSION=v12.13.0
mkdir -p "$PEERS" .bench/tmp
TMP=$(mktemp -d "$PWD/.bench/tmp/proxy.XXXXXX")

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

go build -o "$BIN" ./cmd/middlebench # always: a stale binary would measure old code
go build -o "$PEERS/hoplat" ./internal/cmd/hoplat
HEY=${HEY:-$(command -v hey || true)}
if [ -z "$HEY" ]; then
	[ -x "$PEERS/hey" ] || GOBIN=$PEERS go install "github.com/rakyll/hey@$HEY_VERSION"
	HEY=$PEERS/hey
fi
VEGETA=${VEGETA:-$(command -v vegeta || true)}
if [ -z "$VEGETA" ] && [ "$FIXED_RATE" -gt 0 ]; then
	[ -x "$PEERS/vegeta" ] || GOBIN=$PEERS go install "github.com/tsenart/vegeta/v12@$VEGETA_VERSION"
	VEGETA=$PEERS/vegeta
fi
TOXIPROXY=${TOXIPROXY:-$(command -v toxiproxy-server || true)}
if [ -z "$TOXIPROXY" ]; then
	[ -x "$PEERS/toxiproxy-server" ] || { GOBIN=$PEERS go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" && mv "$PEERS/server" "$PEERS/toxiproxy-server"; }
	TOXIPROXY=$PEERS/toxiproxy-server
fi
# apt_get PACKAGE: installs it (after an update if the lists are stale).
apt_get() { apt-get install -y "$1" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "$1" >/dev/null 2>&1; }; }
for pkg in nginx:nginx-light wrk:wrk; do
	command -v "${pkg%%:*}" >/dev/null && continue
	apt_get "${pkg#*:}" || echo "${pkg%%:*}: could not install; skipped"
done
STREAM_MODULE=/usr/lib/nginx/modules/ngx_stream_module.so
if command -v nginx >/dev/null && [ ! -e "$STREAM_MODULE" ]; then
	apt_get libnginx-mod-stream || echo "nginx(stream): could not install libnginx-mod-stream; skipped"
fi

# free_port prints a port nobody on 127.0.0.1 answers on, below the
# kernel's ephemeral range: a port in that range may be the local end of
# an outgoing connection (the boxes' to the origin), which answers nothing
# yet makes a listener's bind fail (nginx did: Address already in use).
EPHEMERAL_LOW=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
	local p
	for _ in $(seq 1 200); do
		p=$((10000 + RANDOM % (EPHEMERAL_LOW - 10000)))
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

# The command prefixes that pin (taskset execs the command: $! is its PID).
on_cpus() { [ -n "$1" ] && echo "taskset -c $1"; true; }
read -ra GEN_ON <<<"$(on_cpus "$PIN_GEN")"
read -ra ORIGIN_ON <<<"$(on_cpus "$PIN_ORIGIN")"
read -ra TARGET_ON <<<"$(on_cpus "$PIN_TARGET")"
pin_note() { [ -n "$1" ] && echo "CPU $1" || echo "not pinned"; }

ORIGIN=$(free_port)
"${ORIGIN_ON[@]}" "$BIN" server --listen "127.0.0.1:$ORIGIN" >"$TMP/origin.log" 2>&1 & pids+=($!)
ORIGIN_PID=$!
wait_port "$ORIGIN"

BYTES=$(free_port)
"${TARGET_ON[@]}" "$BIN" proxy --listen "127.0.0.1:$BYTES" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m >"$TMP/bytes.log" 2>&1 & pids+=($!)
BYTES_PID=$!
HTTPBOX=$(free_port)
"${TARGET_ON[@]}" "$BIN" proxy --listen "127.0.0.1:$HTTPBOX" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m \
	--stage waf --stage 'ratelimit:rate=1000000000/s' --stage 'uablock:patterns=[^never-matches$]' --stage fault \
	>"$TMP/http.log" 2>&1 & pids+=($!)
HTTP_PID=$!
wait_port "$BYTES"; wait_port "$HTTPBOX"

TOXI_API=$(free_port); TOXI=$(free_port)
"${TARGET_ON[@]}" "$TOXIPROXY" -host 127.0.0.1 -port "$TOXI_API" >"$TMP/toxiproxy.log" 2>&1 & pids+=($!)
TOXI_PID=$!
wait_port "$TOXI_API"
curl -fsS -X POST "http://127.0.0.1:$TOXI_API/proxies" \
	-d "{\"name\":\"bench\",\"listen\":\"127.0.0.1:$TOXI\",\"upstream\":\"127.0.0.1:$ORIGIN\"}" >/dev/null
wait_port "$TOXI"

names=(direct 'box(bytes)' 'box(http)' toxiproxy)
ports=("$ORIGIN" "$BYTES" "$HTTPBOX" "$TOXI")
procs=("$ORIGIN_PID" "$BYTES_PID" "$HTTP_PID" "$TOXI_PID")
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
		keepalive_requests 100000000; # the default 1000 would reconnect hey's, wrk's and hoplat's connections
		location / {
			proxy_pass http://origin;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
		}
	}
}
CONF
	"${TARGET_ON[@]}" nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' & pids+=($!)
	wait_port "$NGINX"
	names+=(nginx); ports+=("$NGINX"); procs+=("$!")
fi
stream_i=
if command -v nginx >/dev/null && [ -e "$STREAM_MODULE" ]; then
	STREAM=$(free_port)
	mkdir -p "$TMP/stream/logs"
	cat >"$TMP/stream/nginx.conf" <<CONF
load_module $STREAM_MODULE;
worker_processes 2;
pid $TMP/stream/nginx.pid;
error_log $TMP/stream/logs/error.log;
events { worker_connections 4096; }
stream { server { listen 127.0.0.1:$STREAM; proxy_pass 127.0.0.1:$ORIGIN; } }
CONF
	"${TARGET_ON[@]}" nginx -p "$TMP/stream" -c "$TMP/stream/nginx.conf" -g 'daemon off;' & pids+=($!)
	wait_port "$STREAM"
	stream_i=${#names[@]}
	names+=('nginx(stream)'); ports+=("$STREAM"); procs+=("$!")
fi
if [ -n "$BEFORE_BIN" ]; then
	for kind in bytes http; do
		port=$(free_port)
		stages=()
		[ "$kind" = http ] && stages=(--stage waf --stage 'ratelimit:rate=1000000000/s' --stage 'uablock:patterns=[^never-matches$]' --stage fault)
		"${TARGET_ON[@]}" "$BEFORE_BIN" proxy --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m "${stages[@]}" >"$TMP/before-$kind.log" 2>&1 & pids+=($!)
		names+=("box($kind)@before"); ports+=("$port"); procs+=("$!")
		wait_port "$port"
	done
fi
n=${#names[@]}

# ticks PID: CPU clock ticks (user + system) of PID and its children (nginx's workers).
ticks() {
	local t=0 p
	for p in "$1" $(pgrep -P "$1" || true); do
		t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
HZ=$(getconf CLK_TCK)
# per_request TICKS ANSWERS: µs of CPU per answered request (0: none answered).
per_request() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN{printf "%.2f", (n>0)?t*1e6/hz/n:0}'; }

# rps PORT PID: one hey run; prints "req/s answers cpu-ticks failed gen%": its
# 2xx answers, the ticks PID spent, and the requests that failed (an error,
# or a status outside 2xx: a rate of those is no rate to compare), and
# hey's own CPU share of its CPU.
# With a third argument Q, each connection sends at most Q requests/s.
rps() {
	local t0 t1 w0 w1 out q=()
	[ -n "${3:-}" ] && q=(-q "$3")
	t0=$(ticks "$2")
	w0=$(date +%s.%N)
	out=$(/usr/bin/time -f 'cpu %U %S' "${GEN_ON[@]}" "$HEY" -z "$DURATION" -c "$CONNS" "${q[@]}" -disable-compression "http://127.0.0.1:$1/" 2>&1)
	t1=$(ticks "$2")
	w1=$(date +%s.%N)
	awk -v t=$((t1 - t0)) -v w="$(awk -v a="$w0" -v b="$w1" 'BEGIN{print b-a}')" '/Requests\/sec:/ {r=$2} /Error distribution:/ {e=1}
		/^[ \t]*\[[0-9]+\][ \t]+[0-9]+ responses/ {c=$1; gsub(/[][]/, "", c); if (c >= 200 && c <= 299) n+=$2; else f+=$2}
		e && /^[ \t]*\[[0-9]+\]/ {c=$1; gsub(/[][]/, "", c); f+=c}
		/^cpu / {g=($2+$3)/w*100}
		END {printf "%s %d %d %d %.0f\n", r+0, n+0, t, f+0, g}' <<<"$out"
}

# steady PORT PID: one vegeta run at FIXED_RATE req/s on CONNS connections;
# prints "req/s answers cpu-ticks failed" as rps does.
steady() {
	local t0 t1 out
	t0=$(ticks "$2")
	out=$(echo "GET http://127.0.0.1:$1/" | "${GEN_ON[@]}" "$VEGETA" attack -rate="$FIXED_RATE/s" -duration="$DURATION" \
		-workers "$CONNS" -max-workers "$CONNS" -max-connections "$CONNS" | "$VEGETA" report)
	t1=$(ticks "$2")
	awk -v t=$((t1 - t0)) '/^Requests/ {gsub(/,/, ""); r=$(NF-1)} /^Status Codes/ {for (i = 4; i <= NF; i++) {split($i, c, ":"); if (c[1] >= 200 && c[1] <= 299) n+=c[2]; else f+=c[2]}}
		END {if (n == 0) f++; printf "%s %d %d %d\n", r+0, n+0, t, f+0}' <<<"$out"
}

# wrps PORT: one wrk run (-t1 -c CONNS); prints "req/s failed gen%": the
# requests that failed (socket errors, statuses outside 2xx) and wrk's own
# CPU share of its CPU. wrk costs a fraction of hey's CPU per request, so
# it leaves more of the two CPUs to the target and the origin (through a
# box, 2026-12-02: hey 65-68 % of its CPU, wrk 22-29 %); a box's req/s is
# judged with both.
wrps() {
	command -v wrk >/dev/null || { echo "0 0 0"; return; }
	local out t0 t1
	t0=$(date +%s.%N)
	out=$(/usr/bin/time -f 'cpu %U %S' "${GEN_ON[@]}" wrk -t1 -c "$CONNS" -d "$DURATION" "http://127.0.0.1:$1/" 2>&1)
	t1=$(date +%s.%N)
	awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" '/Requests\/sec:/ {r=$2} /Non-2xx or 3xx responses:/ {f+=$NF}
		/Socket errors:/ {for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) f+=$i+0} /^unable to connect/ {f++}
		/^cpu / {c=($2+$3)/w*100} END {printf "%s %d %.0f\n", r+0, f+0, c}' <<<"$out"
}

# lat: one hoplat run through every target, interleaved; prints per target
# "name p50 p99" in µs, in the order of names.
lat() {
	local args=() i
	for i in $(seq 0 $((n - 1))); do args+=("$i=127.0.0.1:${ports[$i]}"); done
	"${GEN_ON[@]}" "$PEERS/hoplat" -n "$LAT_REQUESTS" "${args[@]}" | awk '{print $1, $2, $3}'
}

# median of the arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# The figures of target I in round R: RPS[I,R] req/s, CPU[I,R] µs of CPU
# per answered request, P50/P99[I,R] µs at one connection.
uptime_before=$(uptime)
declare -A RPS CPU P50 P99 FCPU FRPS SCPU SRPS FAILED GEN WRPS WGEN
for round in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + round - 1) % n))
		read -r a b c d e <<<"$(rps "${ports[$i]}" "${procs[$i]}")"
		FAILED[$i]=$((${FAILED[$i]:-0} + d))
		RPS[$i,$round]=$a
		GEN[$i,$round]=$e
		read -r a d e <<<"$(wrps "${ports[$i]}")"
		FAILED[$i]=$((${FAILED[$i]:-0} + d))
		WRPS[$i,$round]=$a
		WGEN[$i,$round]=$e
		CPU[$i,$round]=$(per_request "$c" "$b")
		if [ "$FIXED_RATE" -gt 0 ]; then
			read -r a b c d _ <<<"$(rps "${ports[$i]}" "${procs[$i]}" "$((FIXED_RATE / CONNS))")"
			FAILED[$i]=$((${FAILED[$i]:-0} + d))
			FCPU[$i,$round]=$(per_request "$c" "$b")
			FRPS[$i,$round]=$a
			read -r a b c d <<<"$(steady "${ports[$i]}" "${procs[$i]}")"
			FAILED[$i]=$((${FAILED[$i]:-0} + d))
			SCPU[$i,$round]=$(per_request "$c" "$b")
			SRPS[$i,$round]=$a
		fi
	done
	latency=$(lat) || { echo "hoplat failed: no latency figures" >&2; exit 1; }
	while read -r i a b; do P50[$i,$round]=$a; P99[$i,$round]=$b; done <<<"$latency"
	echo "round $round of $ROUNDS done; $(uptime)"
done
uptime_after=$(uptime)

# series NAME I [BASE]: target I's per-round values of array NAME, or
# their ratios to target BASE's in the same round ("added": less BASE's).
series() {
	local -n a=$1
	local r
	for r in $(seq 1 "$ROUNDS"); do
		case ${3:-} in
		'') echo "${a[$2,$r]}" ;;
		ratio:*) awk -v x="${a[$2,$r]}" -v y="${a[${3#ratio:},$r]}" 'BEGIN{printf "%.3f\n", (y>0)?x/y:0}' ;;
		less:*) awk -v x="${a[$2,$r]}" -v y="${a[${3#less:},$r]}" 'BEGIN{printf "%.1f\n", x-y}' ;;
		esac
	done
}
# stat: "median least most" of the numbers on stdin.
stat() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "0 0 0"; exit} m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; print m, v[1], v[NR]}'; }
# fig FORMAT "median least most": the median with its spread.
fig() { read -r m lo hi <<<"$2"; printf "$1 [$1..$1]" "$m" "$lo" "$hi"; }

toxi_i=3
echo
echo "throughput: hey -z $DURATION -c $CONNS and wrk -t1 -c $CONNS -d $DURATION; latency: hoplat, $LAT_REQUESTS round trips per target at one connection, targets interleaved; $ROUNDS interleaved rounds (order rotated each round)"
echo "pinned: load generators (hey, wrk) on $(pin_note "$PIN_GEN"); origin on $(pin_note "$PIN_ORIGIN"); every target on $(pin_note "$PIN_TARGET") ($(nproc) CPUs, shared with other processes)"
echo "uptime before: $uptime_before"
echo "uptime after:  $uptime_after"
echo "figures: median over rounds [least..most]; ratios: median of the per-round ratios to toxiproxy's [least..most]"
echo "gen %: the generator's own CPU share of its CPU in those runs (near 100: the generator, not the target, sets the rate)"
printf '%-17s %-20s %-18s %-6s %-20s %-18s %-6s %-18s %-18s %-16s %-16s\n' target 'req/s hey' 'hey/toxiproxy' 'gen %' 'req/s wrk' 'wrk/toxiproxy' 'gen %' 'CPU us/req' 'CPU/toxiproxy' '+p50 us/hop' '+p99 us/hop'
declare -A RQ WQ CQ A50 A99
for i in $(seq 0 $((n - 1))); do
	RQ[$i]=$(series RPS "$i" "ratio:$toxi_i" | stat)
	WQ[$i]=$(series WRPS "$i" "ratio:$toxi_i" | stat)
	CQ[$i]=$(series CPU "$i" "ratio:$toxi_i" | stat)
	A50[$i]=$(series P50 "$i" less:0 | stat)
	A99[$i]=$(series P99 "$i" less:0 | stat)
	printf '%-17s %-20s %-18s %-6s %-20s %-18s %-6s %-18s %-18s %-16s %-16s\n' "${names[$i]}" \
		"$(fig %.0f "$(series RPS "$i" | stat)")" "$(fig %.2f "${RQ[$i]}")" "$(series GEN "$i" | stat | cut -d' ' -f1)" \
		"$(fig %.0f "$(series WRPS "$i" | stat)")" "$(fig %.2f "${WQ[$i]}")" "$(series WGEN "$i" | stat | cut -d' ' -f1)" \
		"$(fig %.1f "$(series CPU "$i" | stat)")" "$(fig %.2f "${CQ[$i]}")" \
		"$(fig %.0f "${A50[$i]}")" "$(fig %.0f "${A99[$i]}")"
done
echo "(direct: the origin alone; its CPU/req is the origin's own)"
for i in $(seq 0 $((n - 1))); do
	[ "${FAILED[$i]:-0}" -gt 0 ] && echo "FAILURES: ${names[$i]}: ${FAILED[$i]} requests failed in hey's, wrk's and vegeta's runs (errors, statuses outside 2xx, or a vegeta run with no answer): its req/s is no success rate"
done
declare -A FQ SQ
if [ "$FIXED_RATE" -gt 0 ]; then
	echo
	echo "CPU per request at a fixed offered rate, in the same rounds: hey -z $DURATION -c $CONNS -q $((FIXED_RATE / CONNS)) (at most $FIXED_RATE req/s, in bursts),"
	echo "and vegeta attack -rate $FIXED_RATE/s on $CONNS connections (steady); every target does the same work in the same time,"
	echo "so its CPU is what a request costs it, whatever the others leave"
	printf '%-17s %-20s %-18s %-18s %-20s %-18s %-18s\n' target 'req/s bursts' 'CPU us/req' 'CPU/toxiproxy' 'req/s steady' 'CPU us/req' 'CPU/toxiproxy'
	for i in $(seq 0 $((n - 1))); do
		FQ[$i]=$(series FCPU "$i" "ratio:$toxi_i" | stat)
		SQ[$i]=$(series SCPU "$i" "ratio:$toxi_i" | stat)
		printf '%-17s %-20s %-18s %-18s %-20s %-18s %-18s\n' "${names[$i]}" "$(fig %.0f "$(series FRPS "$i" | stat)")" "$(fig %.1f "$(series FCPU "$i" | stat)")" "$(fig %.2f "${FQ[$i]}")" \
			"$(fig %.0f "$(series SRPS "$i" | stat)")" "$(fig %.1f "$(series SCPU "$i" | stat)")" "$(fig %.2f "${SQ[$i]}")"
	done
fi

med() { echo "${1%% *}"; }
# verdict TEXT VALUE WANT: "met"/"missed" for VALUE ≥ WANT.
verdict() { awk -v a="$2" -v b="$3" 'BEGIN{exit !(a>=b)}' && echo "met   : $1" || echo "missed: $1 (shared machine: rerun before concluding)"; }
# cost TEXT RATIO: verdict for a cost ratio (≤ 1.0×); 0 is no figure (no answers), not a cost.
cost() { awk -v a="$2" 'BEGIN{exit !(a>0)}' && verdict "$1" 1.0 "$2" || echo "missed: $1 (no figure: nothing was answered)"; }
verdict "box(http) $(fig %.2f "${RQ[2]}")× toxiproxy's req/s with hey, want ≥ 1.0×" "$(med "${RQ[2]}")" 1.0
verdict "box(bytes) $(fig %.2f "${RQ[1]}")× toxiproxy's req/s with hey, want ≥ 1.2×" "$(med "${RQ[1]}")" 1.2
verdict "box(http) $(fig %.2f "${WQ[2]}")× toxiproxy's req/s with wrk, want ≥ 1.0×" "$(med "${WQ[2]}")" 1.0
verdict "box(bytes) $(fig %.2f "${WQ[1]}")× toxiproxy's req/s with wrk, want ≥ 1.2×" "$(med "${WQ[1]}")" 1.2
# The byte box beside a byte forwarder in C: under hey, the generator and
# the origin take most of the two CPUs, and what they leave bounds any
# forwarder's req/s (not judged: the issue's targets are against toxiproxy).
if [ -n "$stream_i" ]; then
	echo "beside nginx(stream): box(bytes) $(fig %.2f "$(series RPS 1 "ratio:$stream_i" | stat)")× its req/s with hey, $(fig %.2f "$(series WRPS 1 "ratio:$stream_i" | stat)")× with wrk, $(fig %.2f "$(series CPU 1 "ratio:$stream_i" | stat)")× its CPU per request; nginx(stream) $(fig %.2f "${RQ[$stream_i]}")× toxiproxy's req/s with hey"
fi
for i in 1 2; do
	cost "${names[$i]} CPU per request $(fig %.2f "${CQ[$i]}")× toxiproxy's, want ≤ 1.0×" "$(med "${CQ[$i]}")"
	if [ "$FIXED_RATE" -gt 0 ]; then
		cost "${names[$i]} CPU per request at $FIXED_RATE req/s in bursts $(fig %.2f "${FQ[$i]}")× toxiproxy's, want ≤ 1.0×" "$(med "${FQ[$i]}")"
		cost "${names[$i]} CPU per request at $FIXED_RATE req/s steady $(fig %.2f "${SQ[$i]}")× toxiproxy's, want ≤ 1.0×" "$(med "${SQ[$i]}")"
	fi
	verdict "${names[$i]} adds p50 $(med "${A50[$i]}") µs ≤ toxiproxy's $(med "${A50[$toxi_i]}") µs" "$(med "${A50[$toxi_i]}")" "$(med "${A50[$i]}")"
	verdict "${names[$i]} adds p99 $(med "${A99[$i]}") µs ≤ toxiproxy's $(med "${A99[$toxi_i]}") µs" "$(med "${A99[$toxi_i]}")" "$(med "${A99[$i]}")"
done

# RSS_REQUESTS=N: N requests through each box after the rounds, the box's
# resident set sampled every second; its growth after the first tenth (the
# pools' warm-up) is printed: the median of the last tenth of the samples
# less the median of the second tenth. Single samples ride the garbage
# collector's sawtooth (a few hundred KiB at these rates); medians of
# tenths show a trend rather than where in a cycle a sample fell.
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }
if [ "${RSS_REQUESTS:-0}" -gt 0 ]; then
	for i in 1 2; do
		pid=${procs[$i]}
		samples=()
		threads0=$(threads "$pid")
		"${GEN_ON[@]}" "$HEY" -n "$RSS_REQUESTS" -c "$CONNS" -disable-compression "http://127.0.0.1:${ports[$i]}/" >"$TMP/rss.out" 2>&1 &
		hey_pid=$!
		while kill -0 "$hey_pid" 2>/dev/null; do samples+=("$(rss_kib "$pid")"); sleep 1; done
		wait "$hey_pid" || true
		samples+=("$(rss_kib "$pid")")
		answered=$(awk '/^[ \t]*\[[0-9]+\][ \t]+[0-9]+ responses/ {n+=$2} END {print n+0}' "$TMP/rss.out")
		k=${#samples[@]}
		t=$((k / 10 > 0 ? k / 10 : 1))
		warm=$(median "${samples[@]:t:t}")
		last=$(median "${samples[@]:k-t:t}")
		peak=$(printf '%s\n' "${samples[@]}" | sort -n | tail -1)
		echo "RSS ${names[$i]}: $answered of $RSS_REQUESTS requests answered in $k s; ${samples[0]} KiB at the start, $warm KiB in the second tenth, $last KiB in the last (medians; peak $peak KiB, last sample ${samples[$((k - 1))]} KiB): $(awk -v a="$last" -v b="$warm" 'BEGIN{print a-b}') KiB growth after the warm-up; OS threads $threads0 → $(threads "$pid") (each adds its stacks' touched pages)"
	done
fi
