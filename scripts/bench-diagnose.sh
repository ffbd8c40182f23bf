#!/usr/bin/env bash
# Peer comparison for the analyzer: `middlebench analyze` against the usual
# do-it-yourself way of reading k6's --out json, a streaming jq reduction
# that computes only the average of http_req_duration. Same file (a
# generated 1,000,000-point k6 NDJSON stream), one run each; wall time and
# peak RSS, as ratios to middlebench. Run from the repository root
# (`make bench` does).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
mkdir -p .bench
go build -o .bench/middlebench ./cmd/middlebench
points=.bench/points-1m.json
[ -s "$points" ] || MIDDLEBENCH_NDJSON="$PWD/$points" go test ./bench/diagnose -run TestWriteLargeNDJSON -count=1 >/dev/null
gzip -kf "$points"
echo "input: $(wc -l <"$points") lines, $(du -h "$points" | cut -f1) plain, $(du -h "$points.gz" | cut -f1) gzipped"

measure() { # name, command...: prints "name seconds rssKB"
	local name=$1; shift
	local out
	out=$( { /usr/bin/time -f '%e %M' timeout 600 "$@" >/dev/null; } 2>&1 | tail -1)
	echo "$name $out"
}
results=$(
	measure "middlebench-analyze" .bench/middlebench analyze "$points"
	measure "middlebench-analyze.gz" .bench/middlebench analyze "$points.gz"
	measure "jq-avg-duration" jq -n 'reduce (inputs | select(.type=="Point" and .metric=="http_req_duration") | .data.value) as $v ({n: 0, s: 0}; .n += 1 | .s += $v) | .s / .n' "$points"
)
echo "$results" | awk '
	NR==1 { base_t=$2; base_m=$3 }
	{ printf "%-24s %8.2f s  %8.1f MB   time ×%.2f  RSS ×%.2f\n", $1, $2, $3/1024, $2/base_t, $3/base_m }'
echo "(middlebench computes every phase, percentiles, breakdowns and steps; jq only one average.)"
