// Package wire is a packet-level link between two network namespaces:
//
//	generator namespace ─ TUN ─ delay line ─ TUN ─ server namespace
//
// middlebench creates both namespaces (named mbw-<pid>-<n>-gen and -srv
// under /run/netns, so that `ip netns exec` works), a TUN device in each,
// and moves every IP packet between them through a delay line per
// direction: one-way latency, jitter, a rate in bits/s behind a drop-tail
// queue (a full queue first adds delay — bufferbloat — then drops), random
// loss, each draw from a seeded generator. Because it carries packets, TCP's
// own handshake, its retransmissions and the queueing are real: what the
// userspace `link` stage of package proxy cannot delay (SYN / SYN-ACK, so
// http_req_connecting) pays the round trip here.
//
// The schedule of a packet is a pure function of (now, packet) — see
// Shaper.Admit — and a packet leaves at its due time from one releasing
// goroutine per direction waiting on the precise sleeper, never from a
// goroutine or timer per packet.
//
// Reordering policy: none. A packet's release time is
// max(its due time, the previous packet's release time), as on a real
// serial link and as the proxy's link stage does; netem with jitter (and no
// rate) reorders instead. Jitter is uniform in [latency-jitter,
// latency+jitter], netem's default distribution.
//
// A socket belongs to the namespace of the thread that created it, and Go
// moves goroutines between threads: Listen and Dial create their sockets
// on a locked OS thread switched into the namespace and switch it back
// before unlocking (a thread that cannot switch back is never reused).
//
// The delay line runs in a process of its own where the binary allows it
// (EnableLineProcess; middlebench's main does): a child of the binary that
// gets the two TUN fds, runs every thread under SCHED_FIFO (with two CPUs
// or more), dies with its parent (Pdeathsig) and reports its counters and
// drops over a socket. In the load engine's process a woken releaser
// waits for a P behind the engine's goroutines (measured: p99 35-55 ms
// late with every P busy; 0.07 ms in its own process). Elsewhere (test
// binaries that do not enable it) it runs in the calling process. Its
// counters include how late it released each packet (Late: its own
// error; the releaser learns its wake-up latency and wakes that early).
//
// A reader sleeps in ppoll between packets, so a packet after a quiet
// moment pays a cold wake-up (BenchmarkWireIdleGap measures it after 1, 10
// and 100 ms, beside loopback). Options.KeepWarm wakes each reader every
// 250 µs while packets flow, which takes part of that off at some CPU;
// an idle wire costs nothing either way.
//
// It needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and /dev/net/tun; without
// them Start fails with ErrUnavailable and a one-line reason.
package wire
