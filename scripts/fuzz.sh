#!/usr/bin/env bash
# Runs every Go fuzz target of the module (func FuzzXxx), one after the
# other, each for FUZZTIME (default 60s), and prints one line per target:
# package, target, executions, executions per second, result. Crashers go
# to the package's testdata/fuzz/<target>/, where they become seeds of
# `go test` (commit them with the fix). The seeds committed there and in
# f.Add run in every `go test` too.
#
#   make fuzz                      # every target, 60 s each
#   FUZZTIME=10s make fuzz         # a quick pass
#   FUZZ='NDJSON|CSV' make fuzz    # only targets whose name matches
#   FUZZPARALLEL=1 make fuzz       # one worker per target (a shared machine)
#   PKGS=./units make fuzz         # only these packages
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-60s}
FUZZ=${FUZZ:-.}
# New inputs are minimized before they count; on large inputs (NDJSON
# streams) the default 60 s of minimizing would take the whole run.
MINTIME=${FUZZMINIMIZETIME:-5s}
PARALLEL=${FUZZPARALLEL:-$(nproc)}
GO=${GO:-go}
PKGS=${PKGS:-./...}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
status=0
printf '%-44s %-28s %12s %10s  %s\n' package target execs execs/s result
for pkg in $($GO list $PKGS); do
	for target in $($GO test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' | grep -E "$FUZZ"); do
		log="$logdir/$target.log"
		if $GO test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$MINTIME" -parallel "$PARALLEL" "$pkg" >"$log" 2>&1; then
			result=ok
		else
			result=FAIL
			status=1
		fi
		# The last progress line carries the totals:
		# "fuzz: elapsed: 60s, execs: N (M/sec), …"; M is the last
		# interval's, so the rate printed is N over the elapsed time.
		last=$(grep '^fuzz: elapsed:' "$log" | tail -1)
		execs=$(grep -o 'execs: [0-9]*' <<<"$last" | grep -o '[0-9]*$')
		secs=$(grep -o 'elapsed: [0-9hms]*' <<<"$last" | sed 's/elapsed: //; s/h/*3600+/; s/m/*60+/; s/s//; s/+$//')
		rate=$(awk -v n="${execs:-0}" -v s="$(( ${secs:-0} ))" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
		printf '%-44s %-28s %12s %10s  %s\n' "${pkg#github.com/middlebench/middlebench/}" "$target" "${execs:-?}" "$rate" "$result"
		if [ "$result" = FAIL ]; then
			sed -n '/--- FAIL/,$p' "$log" | head -40
		fi
	done
done
exit $status
