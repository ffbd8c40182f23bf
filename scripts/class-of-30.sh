#!/bin/sh
# A class of N on one machine: N mysteries (seeds 1..N, level one), one per
# student, each driven by its own `middlebench load` (the exercise: 5 VUs,
# 15 s) at the same time; then one mystery driven by N loads at once. Prints
# the processes' peak memory, their CPU, and whether each drawn delay stayed
# exact (the stage's measured delay per event against the one drawn).
#   scripts/class-of-30.sh [N] [BASEPORT]     (needs python3; ports BASEPORT+1 … BASEPORT+N)
set -eu
n="${1:-30}"
base="${2:-26200}"
mb="${MB:-middlebench}"
dir="$(mktemp -d)"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

sample() { # sum of RSS (KiB) and of CPU seconds of the given PIDs
	ps -o rss=,times= -p "$(echo "$1" | tr ' ' ',' | sed 's/^,//')" 2>/dev/null | awk '{r+=$1; c+=$2} END {print r, c}'
}

peak() { # peak summed RSS of $1 while PID $2 lives
	max=0
	while ps -o stat= -p "$2" 2>/dev/null | grep -qv '^Z'; do # an exited child is a zombie until waited for
		r=$(sample "$1" | cut -d' ' -f1)
		[ "${r:-0}" -gt "$max" ] && max=$r
		sleep 1
	done
	echo "$max"
}

echo "== $n mysteries, one load each (machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
mpids=""
for s in $(seq 1 "$n"); do
	"$mb" mystery --practice --seed "$s" --level one --state-dir "$dir/state" --listen "127.0.0.1:$((base + s))" --duration 120s >"$dir/m$s.log" 2>&1 &
	mpids="$mpids $!"
done
pids="$mpids"
for s in $(seq 1 "$n"); do
	until [ -s "$dir/state/mystery-$s-one.json" ]; do sleep 0.2; done
done
echo "idle: $(sample "$mpids" | awk -v n="$n" '{printf "%.1f MiB RSS for %d mysteries (%.1f MiB each)", $1/1024, n, $1/1024/n}')"
lpids=""
for s in $(seq 1 "$n"); do
	"$mb" load --vus 5 --duration 15s --insecure-skip-tls-verify -q --no-summary --summary-export "$dir/l$s.json" \
		"https://127.0.0.1:$((base + s))/" >"$dir/l$s.log" 2>&1 &
	lpids="$lpids $!"
done
pids="$pids $lpids"
first=$(echo "$lpids" | awk '{print $1}')
mpeak=$(peak "$mpids" "$first")
cpu0=$(sample "$mpids" | cut -d' ' -f2)
for p in $lpids; do wait "$p" || true; done
lcpu=$(sample "$mpids" | cut -d' ' -f2)
echo "under load: mysteries' peak RSS $((mpeak / 1024)) MiB; their CPU so far ${lcpu} s (after 15 s of load)"
sleep 2 # the records are saved every second
for s in $(seq 1 "$n"); do "$mb" mystery reveal --seed "$s" --level one --state-dir "$dir/state" --json >"$dir/k$s.json"; done
python3 - "$dir" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
rows = []
for s in range(1, n + 1):
    k = json.load(open(f"{d}/k{s}.json"))["key"]
    l = k["lines"][0]
    doc = json.load(open(f"{d}/l{s}.json"))
    reqs = doc["metrics"]["http_reqs"]["values"]["count"]
    drawn, got = l.get("drawnMs", 0), l.get("perEventMs", 0)
    over = f"{got - drawn:+.1f} ms" if drawn and l["cause"] not in ("slow-server", "cpu-bound") else ""
    rows.append((s, l["cause"], drawn, got, over, l["acted"], reqs))
    print(f"seed {s:2d} {l['cause']:15s} drawn {drawn:6.1f} ms  measured/event {got:8.1f} ms {over:>10s}  acted {l['acted']!s:5s}  {reqs:6.0f} requests")
acted = sum(1 for r in rows if r[5])
print(f"{acted} of {n} causes acted as drawn")
PY
echo "== 1 mystery (seed 44: a 150 ms WAF), $n loads at once"
for p in $mpids; do kill "$p" 2>/dev/null || true; done
"$mb" mystery --practice --seed 44 --level one --state-dir "$dir/one" --listen "127.0.0.1:$base" --duration 120s >"$dir/one.log" 2>&1 &
one=$!
pids="$pids $one"
until [ -s "$dir/one/mystery-44-one.json" ]; do sleep 0.2; done
lpids=""
for s in $(seq 1 "$n"); do
	"$mb" load --vus 5 --duration 15s --insecure-skip-tls-verify -q --no-summary --summary-export "$dir/o$s.json" "https://127.0.0.1:$base/" >/dev/null 2>&1 &
	lpids="$lpids $!"
done
first=$(echo "$lpids" | awk '{print $1}')
opeak=$(peak "$one" "$first")
for p in $lpids; do wait "$p" || true; done
sleep 2
"$mb" mystery reveal --seed 44 --level one --state-dir "$dir/one" --json >"$dir/one.json"
python3 - "$dir/one.json" "$((opeak / 1024))" "$(sample "$one" | cut -d' ' -f2)" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["key"]; l = k["lines"][0]
print(f"one mystery, {k['requests']:.0f} requests: WAF drawn {l['drawnMs']} ms, measured {l['perEventMs']:.2f} ms per request; peak RSS {sys.argv[2]} MiB, CPU {sys.argv[3]} s")
PY
echo "(state and logs in $dir)"
