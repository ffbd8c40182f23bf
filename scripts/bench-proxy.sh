#!/usr/bin/env bash
# Peer comparison for the proxy's boxes: requests/s and added latency through
#   direct            the origin itself (middlebench server, no work)
#   box(bytes)        a middlebench box with no stage: byte forwarding
#   box(http)         a middlebench box with waf, ratelimit, uablock and fault
#                     configured but inactive: every request parsed and staged
#   toxiproxy         Shopify's toxiproxy with no toxics
#   nginx             nginx as a plain reverse proxy with upstream keep-alive
# Same origin, same load generator, same connections, ROUNDS interleaved
# rounds (each round runs every target once, the order rotated), medians
# printed side by side with ratios to toxiproxy:
#   throughput   hey -z DURATION -c CONNS, requests/s
#   latency      wrk -t1 -c1 -d LAT_DURATION --latency: what each box adds to
#                the direct p50 and p99 at one connection, in the same round
#   CPU/req      CPU time (user + system, /proc) the target's own processes
#                spent per request answered during the hey runs: what the
#                proxy costs the machine the generator and origin share, a
#                figure that load from other processes moves far less than
#                req/s
# Targets (issue 16): box(http) ≥ 1.0× toxiproxy's requests/s, box(bytes) ≥
# 1.2×, and each box's added p50 and p99 ≤ toxiproxy's.
#
# Everything listens on 127.0.0.1 and is stopped on exit. The machine is
# shared and the generators run on the same cores: read ratios of the same
# run, and the load average printed with them.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNS=${CONNS:-50}
DURATION=${DURATION:-5s}
LAT_DURATION=${LAT_DURATION:-3s}
ROUNDS=${ROUNDS:-3}
BIN=bin/middlebench
# BEFORE_BIN=path: also run its boxes as box(bytes)@before and box(http)@before,
# interleaved with the others: before and after measured in the same run.
BEFORE_BIN=${BEFORE_BIN:-}
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

go build -o "$BIN" ./cmd/middlebench # always: a stale binary would measure old code
HEY=${HEY:-$(command -v hey || true)}
if [ -z "$HEY" ]; then
	[ -x "$PEERS/hey" ] || GOBIN=$PEERS go install "github.com/rakyll/hey@$HEY_VERSION"
	HEY=$PEERS/hey
fi
TOXIPROXY=${TOXIPROXY:-$(command -v toxiproxy-server || true)}
if [ -z "$TOXIPROXY" ]; then
	[ -x "$PEERS/toxiproxy-server" ] || { GOBIN=$PEERS go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" && mv "$PEERS/server" "$PEERS/toxiproxy-server"; }
	TOXIPROXY=$PEERS/toxiproxy-server
fi
for pkg in nginx:nginx-light wrk:wrk; do
	command -v "${pkg%%:*}" >/dev/null && continue
	(apt-get install -y "${pkg#*:}" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "${pkg#*:}" >/dev/null 2>&1; }) || echo "${pkg%%:*}: could not install; skipped"
done

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
ORIGIN_PID=$!
wait_port "$ORIGIN"

BYTES=$(free_port)
"$BIN" proxy --listen "127.0.0.1:$BYTES" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m >"$TMP/bytes.log" 2>&1 & pids+=($!)
BYTES_PID=$!
HTTPBOX=$(free_port)
"$BIN" proxy --listen "127.0.0.1:$HTTPBOX" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m \
	--stage waf --stage 'ratelimit:rate=1000000000/s' --stage 'uablock:patterns=[^never-matches$]' --stage fault \
	>"$TMP/http.log" 2>&1 & pids+=($!)
HTTP_PID=$!
wait_port "$BYTES"; wait_port "$HTTPBOX"

TOXI_API=$(free_port); TOXI=$(free_port)
"$TOXIPROXY" -host 127.0.0.1 -port "$TOXI_API" >"$TMP/toxiproxy.log" 2>&1 & pids+=($!)
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
	names+=(nginx); ports+=("$NGINX"); procs+=("$!")
fi
if [ -n "$BEFORE_BIN" ]; then
	for kind in bytes http; do
		port=$(free_port)
		stages=()
		[ "$kind" = http ] && stages=(--stage waf --stage 'ratelimit:rate=1000000000/s' --stage 'uablock:patterns=[^never-matches$]' --stage fault)
		"$BEFORE_BIN" proxy --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$ORIGIN" --duration 30m "${stages[@]}" >"$TMP/before-$kind.log" 2>&1 & pids+=($!)
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

# rps PORT PID: one hey run; prints "req/s answers cpu-ticks" (the ticks PID spent).
rps() {
	local t0 t1 out
	t0=$(ticks "$2")
	out=$("$HEY" -z "$DURATION" -c "$CONNS" -disable-compression "http://127.0.0.1:$1/" 2>&1)
	t1=$(ticks "$2")
	awk -v t=$((t1 - t0)) '/Requests\/sec:/ {r=$2} /^[ \t]*\[[0-9]+\][ \t]+[0-9]+ responses/ {n+=$2} END {printf "%s %d %d\n", r+0, n+0, t}' <<<"$out"
}

# lat PORT: one wrk run at one connection; prints "p50 p99" in µs.
lat() {
	command -v wrk >/dev/null || { echo "0 0"; return; }
	wrk -t1 -c1 -d "$LAT_DURATION" --latency "http://127.0.0.1:$1/" 2>&1 | awk '
		function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return (v+0)*1000; if (v ~ /s$/) return (v+0)*1e6; return v+0 }
		$1 == "50%" {p50 = us($2)} $1 == "99%" {p99 = us($2)}
		END {printf "%.1f %.1f\n", p50, p99}'
}

# median of the arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A R P50 P99 ANS TCK
for round in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + round - 1) % n))
		read -r a b c <<<"$(rps "${ports[$i]}" "${procs[$i]}")"
		R[$i]+="$a "; ANS[$i]=$((${ANS[$i]:-0} + b)); TCK[$i]=$((${TCK[$i]:-0} + c))
	done
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + round - 1) % n))
		read -r a b <<<"$(lat "${ports[$i]}")"
		P50[$i,$round]=$a; P99[$i,$round]=$b
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# added I: the median over rounds of target I's p50 and p99 less direct's in the same round.
added() {
	local d50=() d99=() r
	for r in $(seq 1 "$ROUNDS"); do
		d50+=("$(awk -v a="${P50[$1,$r]}" -v b="${P50[0,$r]}" 'BEGIN{print a-b}')")
		d99+=("$(awk -v a="${P99[$1,$r]}" -v b="${P99[0,$r]}" 'BEGIN{print a-b}')")
	done
	echo "$(median "${d50[@]}") $(median "${d99[@]}")"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b>0)?a/b:0}'; }
toxi_i=3
declare -A MED ADD50 ADD99
for i in $(seq 0 $((n - 1))); do
	# shellcheck disable=SC2086
	MED[$i]=$(median ${R[$i]})
	read -r ADD50[$i] ADD99[$i] <<<"$(added "$i")"
done

echo "throughput: hey -z $DURATION -c $CONNS; latency: wrk -t1 -c1 -d $LAT_DURATION; $ROUNDS interleaved rounds, medians"
echo "load average before $load_before, after $load_after (shared 2-core machine, generators on the same cores)"
# cpu I: CPU µs per answered request of target I's processes.
cpu() { awk -v t="${TCK[$1]}" -v n="${ANS[$1]}" -v hz="$HZ" 'BEGIN{printf "%.1f", (n>0)?t*1e6/hz/n:0}'; }
printf '%-17s %9s %8s %11s %11s %11s  %s\n' target 'req/s' 'vs toxi' '+p50 µs/hop' '+p99 µs/hop' 'CPU µs/req' 'req/s by round'
for i in $(seq 0 $((n - 1))); do
	printf '%-17s %9.0f %8s %11.1f %11.1f %11s  %s\n' "${names[$i]}" "${MED[$i]}" "$(ratio "${MED[$i]}" "${MED[$toxi_i]}")×" "${ADD50[$i]}" "${ADD99[$i]}" "$(cpu "$i")" "$(printf '%.0f ' ${R[$i]})"
done
echo "CPU per request vs toxiproxy's: box(bytes) $(ratio "$(cpu 1)" "$(cpu $toxi_i)")×, box(http) $(ratio "$(cpu 2)" "$(cpu $toxi_i)")× (direct: the origin's own)"

# verdict NAME VALUE WANT: "met"/"missed" for VALUE ≥ WANT.
verdict() { awk -v a="$2" -v b="$3" 'BEGIN{exit !(a>=b)}' && echo "met   : $1" || echo "missed: $1 (shared machine: rerun before concluding)"; }
verdict "box(http) $(ratio "${MED[2]}" "${MED[$toxi_i]}")× toxiproxy's req/s, want ≥ 1.0×" "$(ratio "${MED[2]}" "${MED[$toxi_i]}")" 1.0
verdict "box(bytes) $(ratio "${MED[1]}" "${MED[$toxi_i]}")× toxiproxy's req/s, want ≥ 1.2×" "$(ratio "${MED[1]}" "${MED[$toxi_i]}")" 1.2
for i in 1 2; do
	verdict "${names[$i]} adds p50 ${ADD50[$i]} µs ≤ toxiproxy's ${ADD50[$toxi_i]} µs" "${ADD50[$toxi_i]}" "${ADD50[$i]}"
	verdict "${names[$i]} adds p99 ${ADD99[$i]} µs ≤ toxiproxy's ${ADD99[$toxi_i]} µs" "${ADD99[$toxi_i]}" "${ADD99[$i]}"
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
		"$HEY" -n "$RSS_REQUESTS" -c "$CONNS" -disable-compression "http://127.0.0.1:${ports[$i]}/" >"$TMP/rss.out" 2>&1 &
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
