package diagnose

// acc accumulates the points of one window of a stream (the whole run, its
// expected responses, one status, one name, one time bucket). Phases listed
// in its histogram mask get percentiles; the others only count, sum, min
// and max.
type acc struct {
	hists        [nPhases]*hist
	sums         [nPhases]sums
	requests     int64
	failed       int64
	iterations   int64
	starts       int64 // iterations counted at their start (iteration_duration points)
	dropped      int64
	iterSum      int64 // ns
	iterN        int64
	dataSent     int64
	dataReceived int64
	vusSum       float64
	vusN         int64
	vusMax       float64
	allocSum     float64 // vus_max points: the VUs allocated
	allocN       int64
	statuses     map[string]int64
	errors       map[string]int64
	first, last  int64 // unix ns of the first and last point
}

// newAcc returns an acc with histograms of the given precision for the
// listed phases (all phases when none are listed).
func newAcc(digits int, phases ...phaseIndex) *acc {
	a := &acc{}
	if len(phases) == 0 {
		for i := range nPhases {
			a.hists[i] = newHist(digits)
		}
		return a
	}
	for _, p := range phases {
		a.hists[p] = newHist(digits)
	}
	return a
}

func (a *acc) clone() *acc {
	c := *a
	for i, h := range a.hists {
		if h != nil {
			c.hists[i] = h.clone()
		}
	}
	c.statuses = cloneCounts(a.statuses)
	c.errors = cloneCounts(a.errors)
	return &c
}

func cloneCounts(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (a *acc) seen(t int64) {
	if a.first == 0 || t < a.first {
		a.first = t
	}
	a.last = max(a.last, t)
}

func (a *acc) phase(p phaseIndex, ns int64) {
	a.sums[p].add(ns)
	if h := a.hists[p]; h != nil {
		h.add(ns)
	}
}

// maxKeys bounds a counter map (statuses, error codes) against hostile
// input; further keys count under "(other)".
const maxKeys = 1024

// count adds n to a counter map, allocating the key only when new.
func count(m *map[string]int64, key []byte, n int64) {
	if *m == nil {
		*m = make(map[string]int64)
	}
	if _, ok := (*m)[string(key)]; ok {
		for k := range *m { // reuse the stored key: m[string(key)] += n would allocate it
			if k == string(key) {
				(*m)[k] += n
				return
			}
		}
	}
	k := string(key)
	if len(*m) >= maxKeys {
		k = "(other)"
	}
	(*m)[k] += n
}

func (a *acc) merge(o *acc) {
	for i := range nPhases {
		a.sums[i].merge(o.sums[i])
		if a.hists[i] != nil {
			a.hists[i].merge(o.hists[i])
		}
	}
	a.requests += o.requests
	a.failed += o.failed
	a.iterations += o.iterations
	a.starts += o.starts
	a.dropped += o.dropped
	a.iterSum += o.iterSum
	a.iterN += o.iterN
	a.dataSent += o.dataSent
	a.dataReceived += o.dataReceived
	a.vusSum += o.vusSum
	a.vusN += o.vusN
	a.vusMax = max(a.vusMax, o.vusMax)
	a.allocSum += o.allocSum
	a.allocN += o.allocN
	for k, v := range o.statuses {
		count(&a.statuses, []byte(k), v)
	}
	for k, v := range o.errors {
		count(&a.errors, []byte(k), v)
	}
	if o.first != 0 {
		a.seen(o.first)
		a.seen(o.last)
	}
}

// phases summarises the timings.
func (a *acc) phases() Phases {
	var p Phases
	for i := range nPhases {
		if h := a.hists[i]; h != nil && h.n > 0 {
			*p.at(i) = h.stat()
		} else {
			*p.at(i) = a.sums[i].stat()
		}
	}
	return p
}

// window summarises the acc; seconds is the window's length.
func (a *acc) window(seconds float64) Window {
	w := Window{
		Seconds:      seconds,
		Requests:     a.requests,
		Failed:       a.failed,
		Iterations:   a.iterations,
		Dropped:      a.dropped,
		DataSent:     a.dataSent,
		DataReceived: a.dataReceived,
		Statuses:     a.statuses,
		Errors:       a.errors,
		Phases:       a.phases(),
	}
	if a.iterN > 0 {
		w.IterAvg = nsToMs(float64(a.iterSum) / float64(a.iterN))
	}
	if a.vusN > 0 {
		w.VUs = a.vusSum / float64(a.vusN)
	}
	if a.vusN > 0 && a.allocN > 0 {
		w.busyVUs = w.VUs / (a.allocSum / float64(a.allocN))
	}
	return w
}
