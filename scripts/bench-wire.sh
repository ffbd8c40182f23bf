#!/usr/bin/env bash
# The wire (package wire): bulk TCP at 0 ms and no rate limit (target
# ≥ 1 Gbit/s at MTU 1500; also 9000 and 65535), packets/s and the CPU per
# packet it adds, and the p50 it adds to a 1-byte request/response round
# trip (target ≤ 50 µs). Needs root and /dev/net/tun (it says so and skips
# otherwise); everything runs in mbw-* network namespaces it removes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || [ ! -e /dev/net/tun ]; then
	echo "bench-wire: skipped: needs root and /dev/net/tun"
	exit 0
fi
go test -run '^$' -bench 'WireBulk' -benchtime 3x ./wire/ | grep -E 'Benchmark|ok'
go test -run '^$' -bench 'WireRoundTrip' -benchtime 3000x ./wire/ | grep -E 'Benchmark|ok'
go test -run "TLSHandshakeRoundTrips|ConnectPaysTheRoundTrip" -v ./wire/ | grep -E "round [0-9]:|^(--- |ok)"
