package diagnose

// Connection phases happen only on a new connection: with k6's default
// reuse, most requests have 0 and only the first one per VU pays, so the
// rules read the p95 when most requests handshake and the max otherwise.

// connValue returns the value to judge a connection phase by and whether
// most requests paid it.
func connValue(s Stat) (float64, bool) {
	switch {
	case s.P95 > 0:
		return s.P95, true
	case s.Max > 0 || s.P99 > 0:
		return s.Peak(), false
	}
	return s.Avg, true // only an average was given
}

// explained: the time of a connection phase that a cause found before
// accounts for. A saturated generator is slow at everything, opening
// connections included (rule 10: all phases grow together): when only a
// few requests paid a connection phase — the max, not the p95 — the
// generator claims those tails (lineConnTails), and they are its symptom,
// not a finding of their own.
//
// A few slow connection phases are also explained when the host itself
// stalled as long: the server's own time has a tail of a comparable size
// (its max a quarter of the phase's peak or more above its median), so
// the few dials or handshakes of that moment paid the host's stall, not
// the terminator's or the network's cost.
func explained(f *facts, l line, most bool) bool {
	c := f.cfg.ConnTails
	if f.b.unclaimed(l) < float64(c.Explained) || !most && f.b.unclaimed(lineConnTails) == 0 {
		return true
	}
	var peak float64
	switch l {
	case lineTLS:
		peak = f.all.TLS.Peak()
	case lineConnecting:
		peak = f.all.Connecting.Peak()
	}
	return !most && f.hasServer && f.srv.Med > 0 && peak > 0 && f.srv.Max-f.srv.Med >= float64(c.HostStall)*peak
}
