// Package rawio makes system calls on non-blocking descriptors without the
// Go runtime's system-call entry (entersyscall/exitsyscall). Such a call
// never blocks, so the P needs no hand-off; and the entry wakes sysmon
// whenever every P had been idle — a load engine whose VUs all wait for
// answers, a box's loop parked in the poller — which sends sysmon back to
// polling every 20 µs (50 times before it backs off) on CPUs the measured
// server shares. Only for descriptors in non-blocking mode, and for
// calls that return at once: a blocking wait must go through the runtime,
// or a stop-the-world would wait for it.
package rawio
