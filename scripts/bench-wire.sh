#!/usr/bin/env bash
# The wire (package wire): bulk TCP at 0 ms and no rate limit (target
# ≥ 1 Gbit/s at MTU 1500; also 9000 and 65535), packets/s and the CPU per
# packet it adds, and the p50 it adds to a 1-byte request/response round
# trip (target ≤ 50 µs), also with a KVM guest's idle vCPUs polling
# before they halt (see below). Needs root and /dev/net/tun (it says so and skips
# otherwise); everything runs in mbw-* network namespaces it removes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || [ ! -e /dev/net/tun ]; then
	echo "bench-wire: skipped: needs root and /dev/net/tun"
	exit 0
fi
go test -run '^$' -bench 'WireBulk' -benchtime 3x ./wire/ | grep -E 'Benchmark|ok'
go test -run '^$' -bench 'WireRoundTrip' -benchtime 3000x ./wire/ | grep -E 'Benchmark|ok'
# In a KVM guest whose idle vCPUs halt at once (haltpoll's
# guest_halt_poll_ns 0), each of the round trip's wake-ups of the wire's
# threads is a vCPU's exit from halt. The same benchmark again with idle
# vCPUs polling 200 µs before they halt shows what is the wire's and what
# is the VM's (HALTPOLL=off skips it); the setting is put back on exit.
HALT=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [ "${HALTPOLL:-on}" != off ] && [ -w "$HALT" ] && [ "$(cat "$HALT")" = 0 ]; then
	trap 'echo 0 >"$HALT"' EXIT INT TERM
	echo 200000 >"$HALT"
	echo "again with guest halt polling at 200 µs (this benchmark only; put back to 0 after):"
	go test -run '^$' -bench 'WireRoundTrip' -benchtime 3000x ./wire/ | grep -E 'Benchmark'
	echo 0 >"$HALT"
	trap - EXIT INT TERM
fi
go test -run "TLSHandshakeRoundTrips|ConnectPaysTheRoundTrip" -v ./wire/ | grep -E "round [0-9]:|^(--- |ok)"
