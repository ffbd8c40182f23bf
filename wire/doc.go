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
// would wait for a P behind the engine's goroutines. Elsewhere (test
// binaries that do not enable it) it runs in the calling process. Its
// counters include how late it released each packet (Late: its own
// error; the releaser learns its wake-up latency and wakes that early).
//
// The packets are held in a process because the kernel cannot hold them
// here: the one this was built on (6.18, a small KVM guest booted with
// nomodule) has no qdisc that can hold a packet — netem, fq, etf and a BPF
// qdisc are not built (/proc/config.gz); tbf only shapes a rate. Where fq
// is built, it could release each packet at a departure time a tc BPF
// program set, from a kernel timer, waking no process: untried, for want
// of such a kernel.
//
// A reader sleeps in ppoll between packets, and a packet after a quiet
// moment pays for waking it, and more on a virtual machine whose idle
// CPUs halt: there a wake-up is a round trip through the hypervisor.
// While packets flow, and for 250 ms after the last, the line holds a
// CPU wake-up latency request of 0 (/dev/cpu_dma_latency, root only;
// Stats.Hold says whether it could and for how long it held it): idle CPUs
// poll instead of halting. That costs the wire's process nothing, but it
// keeps idle cores busy for the host while held, and the request is the
// machine's: the connection's ends wake faster too. An idle wire holds
// nothing, and Options.NoLatencyHold turns it off. What a crossing still
// costs after a quiet moment is mostly the kernel's: the sender's and the
// receiver's network paths and the reader's wake-up grow cold, as over
// loopback, and the wire crosses two stacks and one process more. A
// write into a TUN device runs the far stack in the writing thread: a
// SYN's SYN-ACK, an ACK, are queued on the same device before the write
// returns, so the writer reads that device once more and admits them to
// the other direction at once, under that direction's read lock (order
// kept), instead of leaving them to its reader's wake-up; an answer that
// needs the far process (a TLS flight) still waits for the reader.
// Options.NoReplyRead turns it off. Options.BusyPoll (busyPoll: true) has
// a thread of the line's own busy-poll both devices under SCHED_IDLE while
// packets flow (see poller): on a CPU nothing else wants it takes a packet
// the moment it is queued, on a warm path; on a busy machine it gives way
// and the readers take every packet. It is off by default: through rtt's
// RTT 1 ms wire it made the engine's new connections faster but not real
// k6's (blocked 4.37 ms with it, 4.41 without, means of 8 and 6 runs), at
// a core spinning while flows last; a CPU running it is not idle to the
// kernel, so a thread woken onto it needs an interrupt where a polling
// idle CPU needs none (rescheduling interrupts rose by a third with it).
// Options.KeepWarm also
// wakes each reader every 250 µs while packets flow, at CPU of its own.
// BenchmarkWireIdleGap measures what a crossing adds after 1, 10 and 100
// ms of nothing with the CPUs halting, held, and held and busy-polled;
// BenchmarkWireIdleConnect what a TCP connect adds, with and without the
// reply read and the busy poll.
//
// It needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and /dev/net/tun; without
// them Start fails with ErrUnavailable and a one-line reason.
package wire
