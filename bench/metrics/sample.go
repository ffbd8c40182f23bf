package metrics

// Counter is a cumulative count (requests, iterations, bytes).
type Counter struct{ N int64 }

// Add adds n.
func (c *Counter) Add(n int64) { c.N += n }

// Merge adds o into c.
func (c *Counter) Merge(o Counter) { c.N += o.N }

// Values returns k6's counter values: count and rate per second over the
// run's duration in seconds.
func (c Counter) Values(seconds float64) map[string]float64 {
	rate := 0.0
	if seconds > 0 {
		rate = float64(c.N) / seconds
	}
	return map[string]float64{"count": float64(c.N), "rate": rate}
}

// Rate counts how many of a set of booleans were true (k6's Rate metric:
// http_req_failed, checks).
type Rate struct{ Passes, Fails int64 }

// Add records one boolean.
func (r *Rate) Add(ok bool) {
	if ok {
		r.Passes++
	} else {
		r.Fails++
	}
}

// Merge adds o into r.
func (r *Rate) Merge(o Rate) { r.Passes += o.Passes; r.Fails += o.Fails }

// Ratio is the share of true values (0 when empty).
func (r Rate) Ratio() float64 {
	if n := r.Passes + r.Fails; n > 0 {
		return float64(r.Passes) / float64(n)
	}
	return 0
}

// Values returns k6's rate values: rate, passes, fails.
func (r Rate) Values() map[string]float64 {
	return map[string]float64{"rate": r.Ratio(), "passes": float64(r.Passes), "fails": float64(r.Fails)}
}

// Gauge keeps the last, smallest and largest value set (vus, vus_max).
type Gauge struct {
	Value, Min, Max float64
	set             bool
}

// Set records a new value.
func (g *Gauge) Set(v float64) {
	if !g.set || v < g.Min {
		g.Min = v
	}
	if !g.set || v > g.Max {
		g.Max = v
	}
	g.Value, g.set = v, true
}

// Sampled reports whether the gauge was ever set: k6 leaves a gauge it
// never sampled (a run shorter than its first sample) out of its files.
func (g Gauge) Sampled() bool { return g.set }

// Values returns k6's gauge values: value, min, max.
func (g Gauge) Values() map[string]float64 {
	return map[string]float64{"value": g.Value, "min": g.Min, "max": g.Max}
}

// Merge folds a gauge sampled later into g: the smallest and largest of
// both, and o's last value (g's when o never was set).
func (g *Gauge) Merge(o Gauge) {
	if !o.set {
		return
	}
	if !g.set {
		*g = o
		return
	}
	g.Min, g.Max = min(g.Min, o.Min), max(g.Max, o.Max)
	g.Value = o.Value
}
