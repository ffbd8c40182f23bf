#!/usr/bin/env bash
# The analyzer's zoo (issue 9): real k6 runs through middleboxes that are not
# middlebench's (toxiproxy, nginx, a plain Go origin), through ours, and
# through compound paths, each saved in k6's three formats under
# bench/diagnose/testdata/zoo/<case>/ with a case.yaml of its exact setup and
# the codes expected of the analyzer (decided from the setup, never from the
# analyzer's output).
#
#   scripts/zoo/gen.sh                 every case (about 10 minutes)
#   scripts/zoo/gen.sh CASE...         those cases (names as in --list)
#   scripts/zoo/gen.sh --list          the case names
#   scripts/zoo/gen.sh --readme        rewrite the zoo's README table from the case.yaml files
#   scripts/zoo/gen.sh --check         check every case's files and lists (no k6 needed)
#   ZOO_DIR=/tmp/zoo2 scripts/zoo/gen.sh   write the cases elsewhere (to compare a rerun)
#
# Expects on PATH: k6 (v1.8.1 made the committed files), toxiproxy-server,
# nginx, openssl, curl, gzip, taskset (and, for the cases that use them,
# haproxy, varnishd, nft and ip); builds middlebench and the zoo's origin
# with go. Everything listens on 127.0.0.1 ports 21000-21999 (ZOO_PORT_BASE
# moves the block) or in network namespaces the case makes, and is stopped
# (by its PID) when a case ends. The cases are the case_* functions of cases/*.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
ZOO=${ZOO_DIR:-$REPO/bench/diagnose/testdata/zoo} # ZOO_DIR: write elsewhere (a rerun to compare)
SCRIPTS=$REPO/scripts/zoo
WORK=${ZOO_WORK:-/tmp/zoo}
MB=$WORK/mb
ORIGIN=$WORK/zoo-origin

B=${ZOO_PORT_BASE:-21000} # ZOO_PORT_BASE: another block of 1000 ports (a machine shared with other runs)
P_SERVER=$((B + 80))     # middlebench server (the fake origin)
P_ORIGIN=$((B + 90))     # the zoo's plain Go origin
P_TOXI_API=$((B + 474))  # toxiproxy's API
P_TOXI=$((B + 100))      # toxiproxy's proxy (the client side)
P_NGINX=$((B + 200))     # nginx, HTTP
P_NGINX_TLS=$((B + 443)) # nginx, HTTPS
P_BOX=$((B + 300))       # middlebench proxy
P_BOX_ADMIN=$((B + 390)) # its admin endpoint
P_HAPROXY=$((B + 250))   # haproxy
P_VARNISH=$((B + 260))   # varnish
P_VARNISH_ADMIN=$((B + 270))

SYSTEM_TAGS=status,method,name,scenario,expected_response,error,error_code,proto,tls_version,check

die() { echo "gen.sh: $*" >&2; exit 1; }

# --- one case's state -------------------------------------------------------
pids=()      # what the case started, stopped in reverse order
setup=()     # the commands that made its path, for case.yaml
CONFIG=""    # nginx.conf text, when the case has one
K6CMD=""     # the k6 command as run
K6CPU=""     # k6's CPU seconds (user+sys) and wall seconds
LOAD=""      # uptime before the run
STATS=""     # the fake server's port when it is the origin

STATS_HOST=127.0.0.1 # where the fake server's stats are read (its namespace's address)
K6NS=""      # the network namespace k6 runs in, when the case made one
CSV=""       # set: k6 also writes --out csv=points.csv.gz
COUNTERS=""  # a command whose output (the peers' own counters) is saved as peer-counters.txt
cleanups=()  # commands undoing what the case made (namespaces), run after its processes stop

reset_case() {
	pids=(); setup=(); CONFIG=""; K6CMD=""; K6CPU=""; LOAD=""; STATS=""; STATS_HOST=127.0.0.1; K6NS=""; COUNTERS=""; CSV=""
	WHAT=""; MUST=""; MAY=""; MUSTNOT=""; FORMATS=""; ANALYZE=""; NOTE=""; NO_STATS=""
}

stop_all() {
	local i
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do wait "${pids[i]}" 2>/dev/null || true; done
	pids=()
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do eval "${cleanups[i]}" 2>/dev/null || true; done
	cleanups=()
}
trap stop_all EXIT

# wait_port PORT: until something listens on 127.0.0.1:PORT (5 s at most).
wait_port() {
	local _
	for _ in $(seq 1 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	die "nothing listens on 127.0.0.1:$1"
}

# bg NAME SHOWN CMD...: start CMD in the background, log to $RUN/NAME.log;
# SHOWN is how case.yaml writes it.
bg() {
	local name=$1 shown=$2
	shift 2
	"$@" >"$RUN/$name.log" 2>&1 &
	pids+=($!)
	setup+=("$shown")
}

# mbserver [NAME=VALUE...] ARGS...: the fake server on P_SERVER (its
# /_mb/stats is saved); SERVER_CPU=CPUS pins it.
mbserver() {
	local env=() pin=()
	while [[ $# -gt 0 && $1 == *=* && $1 != --* ]]; do env+=("$1"); shift; done
	[[ -n ${SERVER_CPU:-} ]] && pin=(taskset -c "$SERVER_CPU")
	bg server "${pin[*]:+${pin[*]} }${env[*]:+${env[*]} }middlebench server --listen 127.0.0.1:$P_SERVER $*" \
		"${pin[@]}" env "${env[@]}" "$MB" server --listen "127.0.0.1:$P_SERVER" "$@"
	wait_port "$P_SERVER"
	STATS=$P_SERVER
}

# origin ARGS...: the zoo's Go origin (internal/cmd/zoo-origin) on P_ORIGIN.
origin() {
	bg origin "go run ./internal/cmd/zoo-origin -listen 127.0.0.1:$P_ORIGIN $*" \
		"$ORIGIN" -listen "127.0.0.1:$P_ORIGIN" "$@"
	wait_port "$P_ORIGIN"
}

# mbproxy UPSTREAM_PORT ARGS...: a middlebench box on P_BOX.
mbproxy() {
	local up=$1
	shift
	bg box "middlebench proxy --listen 127.0.0.1:$P_BOX --upstream http://127.0.0.1:$up --admin 127.0.0.1:$P_BOX_ADMIN $*" \
		"$MB" proxy --listen "127.0.0.1:$P_BOX" --upstream "http://127.0.0.1:$up" --admin "127.0.0.1:$P_BOX_ADMIN" "$@"
	wait_port "$P_BOX"
}

# toxiproxy UPSTREAM_PORT: toxiproxy's server and one proxy, P_TOXI -> upstream.
toxiproxy() {
	bg toxiproxy "toxiproxy-server -host 127.0.0.1 -port $P_TOXI_API" \
		toxiproxy-server -host 127.0.0.1 -port "$P_TOXI_API"
	wait_port "$P_TOXI_API"
	toxi_api /proxies "{\"name\":\"zoo\",\"listen\":\"127.0.0.1:$P_TOXI\",\"upstream\":\"127.0.0.1:$1\"}"
	wait_port "$P_TOXI"
}

# toxic JSON: add a toxic to the zoo proxy.
toxic() { toxi_api /proxies/zoo/toxics "$1"; }

toxi_api() {
	curl -fsS -X POST "http://127.0.0.1:$P_TOXI_API$1" -d "$2" >>"$RUN/toxiproxy-api.log"
	setup+=("curl -X POST http://127.0.0.1:$P_TOXI_API$1 -d '$2'")
}

# nginx SERVERS: nginx with the given server blocks inside http { }.
nginx_up() {
	mkdir -p "$RUN/nginx/logs"
	CONFIG="worker_processes 1;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  $1
}"
	printf '%s\n' "$CONFIG" >"$RUN/nginx/nginx.conf"
	bg nginx "nginx -c nginx.conf -p <dir> -g 'daemon off;' (nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), config below)" \
		nginx -c "$RUN/nginx/nginx.conf" -p "$RUN/nginx" -g 'daemon off;'
	local p
	for p in $(grep -o 'listen 127.0.0.1:[0-9]*' <<<"$1" | cut -d: -f2); do wait_port "$p"; done
}

# tls_cert: a self-signed certificate for 127.0.0.1 (made once).
tls_cert() {
	[[ -s $WORK/tls/cert.pem ]] && return
	mkdir -p "$WORK/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -days 3 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" 2>/dev/null
}

# k6run SCRIPT [K6FLAG...] -- [NAME=VALUE...]: one k6 run in $RUN/k6; its
# three files land in the case's directory. TASKSET=CPUS pins k6.
k6run() {
	local script=$1
	shift
	local flags=() envs=()
	while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
	[[ ${1:-} == -- ]] && shift
	local kv
	for kv in "$@"; do envs+=(-e "$kv"); done
	[[ -n ${CSV:-} ]] && flags=(--out csv=points.csv.gz "${flags[@]}")
	local cmd=(k6 run --quiet --summary-export=summary-export.json --out json=points.ndjson.gz
		"--system-tags=$SYSTEM_TAGS" "${flags[@]}" "${envs[@]}" "scripts/zoo/$script")
	local pin=()
	[[ -n ${TASKSET:-} ]] && pin=(taskset -c "$TASKSET")
	[[ -n $K6NS ]] && pin=(ip netns exec "$K6NS" "${pin[@]}")
	K6CMD="${pin[*]:+${pin[*]} }${cmd[*]}"
	mkdir -p "$RUN/k6/scripts/zoo"
	cp "$SCRIPTS"/*.js "$RUN/k6/scripts/zoo/"
	LOAD=$(uptime | sed 's/.*load average/load average/')
	(
		cd "$RUN/k6"
		TIMEFORMAT='%R %U %S'
		{ time "${pin[@]}" "${cmd[@]}" >k6.out 2>k6.err; } 2>time.txt
	) || die "$CASE: k6 failed (see $RUN/k6/k6.err)"
	K6CPU=$(awk '{printf "%.2f s CPU (user+sys) in %.2f s wall", $2 + $3, $1}' "$RUN/k6/time.txt")
	if [[ -n $STATS ]]; then
		if [[ $STATS_HOST == 127.0.0.1 ]]; then
			curl -fsS "http://127.0.0.1:$STATS/_mb/stats" >"$RUN/server-stats.json"
		else
			ip netns exec "$SRVNS" curl -fsS "http://$STATS_HOST:$STATS/_mb/stats" >"$RUN/server-stats.json"
		fi
	fi
}

# save: the case's files into the zoo.
save() {
	local dir=$ZOO/$CASE
	rm -rf "$dir"
	mkdir -p "$dir"
	gzip -9n <"$RUN/k6/summary-export.json" >"$dir/summary-export.json.gz"
	gzip -9n <"$RUN/k6/handle-summary.json" >"$dir/handle-summary.json.gz"
	cp "$RUN/k6/points.ndjson.gz" "$dir/points.ndjson.gz"
	[[ -n ${CSV:-} ]] && cp "$RUN/k6/points.csv.gz" "$dir/points.csv.gz"
	[[ -n $STATS ]] && cp "$RUN/server-stats.json" "$dir/server-stats.json"
	[[ -n $COUNTERS ]] && cp "$RUN/peer-counters.txt" "$dir/peer-counters.txt"
	write_case >"$dir/case.yaml"
}

yaml_str() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
yaml_list() { local a=($1) o="" x; for x in "${a[@]}"; do o+="${o:+, }$x"; done; printf '[%s]' "$o"; }

write_case() {
	local s
	echo "# $CASE: made by scripts/zoo/gen.sh $CASE; expected codes decided from the setup."
	echo "what: $(yaml_str "$WHAT")"
	echo "must: $(yaml_list "$MUST")"
	echo "may: $(yaml_list "$MAY")"
	echo "mustNot: $(yaml_list "$MUSTNOT")"
	if [[ -n $FORMATS ]]; then
		echo "formats:"
		sed 's/^/  /' <<<"$FORMATS"
	fi
	echo "analyze:"
	[[ -n $STATS && -z $NO_STATS ]] && echo "  serverStats: server-stats.json"
	[[ -n $ANALYZE ]] && sed 's/^/  /' <<<"$ANALYZE"
	[[ -n $NOTE ]] && echo "note: $(yaml_str "$NOTE")"
	echo "setup:"
	for s in "${setup[@]}"; do echo "  - $(yaml_str "$s")"; done
	if [[ -n $CONFIG ]]; then
		echo "config: |"
		sed "s|$RUN/nginx|<dir>|g; s|$WORK/tls|<tls>|g; s/^/  /" <<<"$CONFIG"
	fi
	[[ -n $COUNTERS ]] && echo "counters: $(yaml_str "peer-counters.txt: $COUNTERS")"
	echo "k6:"
	echo "  version: $(k6 version | awk '{print $2}')"
	echo "  script: scripts/zoo/${K6CMD##*scripts/zoo/}"
	echo "  command: $(yaml_str "$K6CMD")"
	echo "  cpu: $(yaml_str "$K6CPU")"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "machine: $(yaml_str "$(nproc) cores, $LOAD (before the run)")"
}

# run_case NAME: one case, from setup to files.
run_case() {
	CASE=$1
	local fn=case_${CASE//-/_}
	declare -F "$fn" >/dev/null || die "no case $CASE (see --list)"
	RUN=$WORK/run/$CASE
	rm -rf "$RUN"
	mkdir -p "$RUN"
	reset_case
	echo "== $CASE"
	"$fn"
	if [[ -n $COUNTERS ]]; then # the peers' own counters, before they stop
		eval "$COUNTERS" >"$RUN/peer-counters.txt" 2>&1 || true
	fi
	stop_all
	save
}

readme_table() {
	local f c
	for f in "$ZOO"/*/case.yaml; do
		c=$(basename "$(dirname "$f")")
		MUST=$(list_of must "$f"); MAY=$(list_of may "$f")
		local not
		not=$(list_of mustNot "$f")
		[[ $not == "$(rest)" ]] && not="all others"
		local what
		what=$(sed -n 's/^what: "\(.*\)"$/\1/p' "$f")
		local fmt=""
		grep -q '^formats:' "$f" && fmt=" (+ per-format lists)"
		printf '| `%s` | %s | %s | %s | %s%s |\n' "$c" "$what" "$MUST" "${MAY:--}" "$not" "$fmt"
	done
}

# list_of KEY FILE: a top-level flow list of case.yaml, space-separated.
list_of() { sed -n "s/^$1: \[\(.*\)\]$/\1/p" "$2" | sed 's/, */ /g'; }

# check_lists WHERE MUST MAY MUSTNOT: the three lists split the judged codes
# (each code in exactly one), and name no other code.
check_lists() {
	local where=$1 c n bad=0
	for c in $2 $3 $4; do
		[[ " $(echo $CODES) " == *" $c "* ]] || { echo "$where: unknown code $c" >&2; bad=1; }
	done
	for c in $CODES; do
		n=$(echo " $2 $3 $4 " | grep -o " $c " | wc -l)
		[[ $n -eq 1 ]] || { echo "$where: $c is in $n of must/may/mustNot" >&2; bad=1; }
	done
	return $bad
}

# check: every case has its files, they read as k6 wrote them, and its lists hold.
check() {
	local f d c bad=0 fmt line
	for f in "$ZOO"/*/case.yaml; do
		d=$(dirname "$f"); c=$(basename "$d")
		for fmt in summary-export.json.gz handle-summary.json.gz points.ndjson.gz; do
			gzip -t "$d/$fmt" 2>/dev/null || { echo "$c: $fmt missing or not gzip" >&2; bad=1; }
		done
		zcat "$d/summary-export.json.gz" | jq -e '.metrics.http_reqs.count > 0' >/dev/null || { echo "$c: summary export has no requests" >&2; bad=1; }
		zcat "$d/handle-summary.json.gz" | jq -e '.metrics.http_reqs.values.count > 0' >/dev/null || { echo "$c: handleSummary data has no requests" >&2; bad=1; }
		line=$(zcat "$d/points.ndjson.gz" | head -1 || true) # head closes the pipe early
		jq -e '.type == "Metric"' <<<"$line" >/dev/null || { echo "$c: points do not start with a Metric line" >&2; bad=1; }
		if grep -q '^  serverStats:' "$f"; then
			jq -e '.requests >= 0' "$d/server-stats.json" >/dev/null || { echo "$c: server-stats.json unreadable" >&2; bad=1; }
		fi
		check_lists "$c" "$(list_of must "$f")" "$(list_of may "$f")" "$(list_of mustNot "$f")" || bad=1
		while IFS= read -r line; do
			fmt=${line%%:*}
			fmt=${fmt// /}
			[[ $fmt == summary-export || $fmt == handle-summary || $fmt == points || $fmt == csv ]] || { echo "$c: format $fmt?" >&2; bad=1; }
			check_lists "$c $fmt" "$(flow must "$line")" "$(flow may "$line")" "$(flow mustNot "$line")" || bad=1
		done < <(sed -n '/^formats:/,/^[a-z]/p' "$f" | grep '^  [a-z-]*: {')
	done
	[[ $bad -eq 0 ]] && echo "zoo: $(ls -d "$ZOO"/*/ | wc -l) cases, files and lists ok"
	return $bad
}

# flow KEY LINE: a list inside a flow map ({must: [a, b], …}), space-separated.
flow() { grep -o "[{ ]$1: \[[^]]*\]" <<<"$2" | sed "s/.*\[//; s/\]//; s/, */ /g"; }

# shellcheck source=scripts/zoo/cases/lib.sh
source "$SCRIPTS/cases/lib.sh"
for f in "$SCRIPTS"/cases/*.sh; do
	# shellcheck disable=SC1090
	[[ $f == */lib.sh ]] || source "$f"
done

main() {
	case ${1:-} in
	--list) declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//; s/_/-/g'; return ;;
	--check) check; return ;;
	--readme)
		awk '/^<!-- cases -->/ { print; exit } { print }' "$ZOO/README.md" >"$WORK/readme.tmp"
		{ echo "| case | setup | must | may | mustNot |"; echo "|---|---|---|---|---|"; readme_table; } >>"$WORK/readme.tmp"
		mv "$WORK/readme.tmp" "$ZOO/README.md"
		return ;;
	esac
	local t
	for t in k6 nginx openssl curl gzip taskset go; do
		command -v "$t" >/dev/null || die "$t is not on PATH"
	done
	mkdir -p "$WORK"
	go build -o "$MB" ./cmd/middlebench
	go build -o "$ORIGIN" ./internal/cmd/zoo-origin
	tls_cert
	local cases=("$@")
	[[ ${#cases[@]} -gt 0 ]] || mapfile -t cases < <(main --list)
	for t in "${cases[@]}"; do run_case "$t"; done
}

main "$@"
