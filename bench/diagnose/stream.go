package diagnose

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// maxStatuses bounds the per-status breakdown (HTTP has about 60 codes).
const maxStatuses = 64

// maxTime is 2200-01-01 in unix ns: later times are not a k6 run's.
const maxTime = 7258118400 * int64(1e9)

// metricKind is what a stream does with a metric's points.
type metricKind uint8

const (
	kIgnore metricKind = iota
	kPhase
	kReqs
	kFailed
	kIters
	kDropped
	kIterDur
	kSent
	kReceived
	kVUs
	kVUsMax
)

// metricSpec is how a stream treats one metric name.
type metricSpec struct {
	kind  metricKind
	phase phaseIndex
	want  string // k6 type the metric must have ("" for any)
}

// builtinSpecs maps k6's built-in metric names to their treatment.
func builtinSpecs(serverMetric string) map[string]metricSpec {
	m := map[string]metricSpec{
		"http_reqs":          {kind: kReqs, want: "counter"},
		"http_req_failed":    {kind: kFailed, want: "rate"},
		"iterations":         {kind: kIters, want: "counter"},
		"dropped_iterations": {kind: kDropped, want: "counter"},
		"iteration_duration": {kind: kIterDur, want: "trend"},
		"data_sent":          {kind: kSent, want: "counter"},
		"data_received":      {kind: kReceived, want: "counter"},
		"vus":                {kind: kVUs, want: "gauge"},
		"vus_max":            {kind: kVUsMax, want: "gauge"},
		"checks":             {kind: kIgnore, want: "rate"},
		"group_duration":     {kind: kIgnore, want: "trend"},
	}
	for i := range phServer {
		m[k6Names[i]] = metricSpec{kind: kPhase, phase: i, want: "trend"}
	}
	m[serverMetric] = metricSpec{kind: kPhase, phase: phServer, want: "trend"}
	m[k6Names[phServerQueue]] = metricSpec{kind: kPhase, phase: phServerQueue, want: "trend"}
	return m
}

// tags are the tags of one point a stream uses; the slices point into the
// line being read and are valid only during the call.
type tags struct {
	status, name, url, expected, errorCode []byte
}

// stream aggregates the points of a k6 NDJSON or CSV output in one pass,
// in memory bounded by the number of distinct statuses, MaxNames and
// MaxBuckets, whatever the number of points.
type stream struct {
	opt      Reader
	specs    map[string]metricSpec
	declared map[string]string // metric → type, from NDJSON Metric lines
	all      *acc
	ok       *acc // expected responses; nil until a non-expected one is seen
	byStatus map[string]*acc
	byName   map[string]*acc
	statuses int // distinct keys of byStatus (bounded like names)
	names    int
	buckets  []*acc
	sched    []*acc // the steps of Reader.Schedule, and last what falls in none
	width    int64  // ns per bucket
	t0       int64
	vusMax   float64
	// vusMaxFirst is the first vus_max point (-1: none yet): k6 allocates
	// every VU of a closed model before it starts, so vus_max grows during
	// a run only under an arrival-rate executor.
	vusMaxFirst float64
	points      int64
}

func newStream(opt Reader) *stream {
	return &stream{
		opt:      opt,
		specs:    builtinSpecs(opt.ServerMetric),
		declared: map[string]string{},
		all:      newAcc(3),
		byStatus: map[string]*acc{},
		byName:   map[string]*acc{},
		width:    int64(opt.Bucket),
		sched:    schedAccs(len(opt.Schedule)),

		vusMaxFirst: -1,
	}
}

func schedAccs(n int) []*acc {
	if n == 0 {
		return nil
	}
	out := make([]*acc, n+1)
	for i := range n {
		out[i] = newAcc(2)
	}
	out[n] = &acc{} // counts only: no histograms
	return out
}

// scheduled is the Reader.Schedule step of a point at t (unix ns), the
// last acc when it falls in none; nil without a schedule.
func (s *stream) scheduled(t int64) *acc {
	if s.sched == nil {
		return nil
	}
	at := time.Duration(t - s.opt.Origin.UnixNano())
	for i, st := range s.opt.Schedule {
		if at >= st.Start && at < st.End {
			return s.sched[i]
		}
	}
	return s.sched[len(s.opt.Schedule)]
}

// declare records a metric's type (an NDJSON Metric line) and refuses a
// built-in metric of the wrong type.
func (s *stream) declare(name, typ string) error {
	if sp, ok := s.specs[name]; ok && sp.want != "" && typ != sp.want {
		return fmt.Errorf("metric %s is declared a %s; k6's %s is a %s", name, typ, name, sp.want)
	}
	s.declared[name] = typ
	return nil
}

// groupAcc returns the breakdown acc for key, creating it (bounded by
// limit: later keys fall into "(other)").
func (s *stream) groupAcc(m map[string]*acc, key []byte, limit int, n *int) *acc {
	if a, ok := m[string(key)]; ok {
		return a
	}
	k := string(key)
	if *n >= limit {
		k = "(other)"
		if a, ok := m[k]; ok {
			return a
		}
	} else {
		*n++
	}
	a := newAcc(2, phDuration, phWaiting)
	m[k] = a
	return a
}

// point adds one sample: metric name, time (unix ns), value (ms for time
// metrics, bytes, counts) and tags.
func (s *stream) point(name []byte, t int64, v float64, tg *tags) error {
	sp, ok := s.specs[string(name)]
	if !ok {
		return nil // a custom metric the analyzer does not use
	}
	if err := checkPoint(name, sp.kind, v); err != nil {
		return err
	}
	if t < 0 || t > maxTime {
		return fmt.Errorf("time of %s is before 1970 or after 2200", name)
	}
	if s.points++; s.points > s.opt.MaxPoints {
		return fmt.Errorf("more than %d points (--max-points raises the bound)", s.opt.MaxPoints)
	}
	s.all.seen(t)
	// Each point goes to the run's totals, its time bucket and, with a
	// Reader.Schedule, its scheduled step.
	b := s.bucket(t)
	b.seen(t)
	st := s.scheduled(t)
	if st != nil {
		st.seen(t)
	}
	windows := func(f func(a *acc)) {
		f(b)
		if st != nil {
			f(st)
		}
	}
	switch sp.kind {
	case kPhase:
		ns := msToNs(v)
		if sp.phase != phServer && string(tg.expected) == "false" && s.ok == nil {
			s.ok = s.all.clone() // everything so far was expected
		}
		s.all.phase(sp.phase, ns)
		if s.ok != nil && (sp.phase == phServer || string(tg.expected) != "false") {
			s.ok.phase(sp.phase, ns)
		}
		windows(func(a *acc) { a.phase(sp.phase, ns) })
		if sp.phase != phServer {
			s.groups(tg, func(a *acc) { a.phase(sp.phase, ns) })
		}
	case kReqs:
		n := int64(v)
		s.all.requests += n
		status := tg.status
		if len(status) == 0 {
			status = []byte("unknown")
		}
		count(&s.all.statuses, status, n)
		windows(func(a *acc) { a.requests += n; count(&a.statuses, status, n) })
		if len(tg.errorCode) > 0 {
			count(&s.all.errors, tg.errorCode, n)
		}
		s.groups(tg, func(a *acc) { a.requests += n })
	case kFailed:
		if v != 0 {
			s.all.failed++
			windows(func(a *acc) { a.failed++ })
			s.groups(tg, func(a *acc) { a.failed++ })
		}
	case kIters:
		s.all.iterations += int64(v)
		windows(func(a *acc) { a.iterations += int64(v) })
	case kDropped:
		s.all.dropped += int64(v)
		windows(func(a *acc) { a.dropped += int64(v) })
	case kIterDur:
		ns := msToNs(v)
		s.all.iterSum += ns
		s.all.iterN++
		// k6 stamps an iteration when it ends: its arrival was ns earlier.
		s.all.starts++
		s.bucket(t-ns).starts++
		if st := s.scheduled(t - ns); st != nil {
			st.starts++
		}
	case kSent:
		s.all.dataSent += int64(v)
		windows(func(a *acc) { a.dataSent += int64(v) })
	case kReceived:
		s.all.dataReceived += int64(v)
		windows(func(a *acc) { a.dataReceived += int64(v) })
	case kVUs:
		s.all.vusMax = max(s.all.vusMax, v)
		windows(func(a *acc) { a.vusSum += v; a.vusN++ })
	case kVUsMax:
		if s.vusMaxFirst < 0 {
			s.vusMaxFirst = v
		}
		s.vusMax = max(s.vusMax, v)
		s.all.allocSum += v
		s.all.allocN++
		windows(func(a *acc) { a.allocSum += v; a.allocN++ })
	}
	return nil
}

// groups applies add to the point's status and name breakdowns.
func (s *stream) groups(tg *tags, add func(*acc)) {
	if len(tg.status) > 0 {
		add(s.groupAcc(s.byStatus, tg.status, maxStatuses, &s.statuses))
	}
	if key := nameKey(tg); len(key) > 0 {
		add(s.groupAcc(s.byName, key, s.opt.MaxNames, &s.names))
	}
}

func nameKey(tg *tags) []byte {
	if len(tg.name) > 0 {
		return tg.name
	}
	return tg.url
}

// interrupted returns what was read before ctx was cancelled, with ctx's
// error.
func (s *stream) interrupted(ctx context.Context, f Format, n int64, unit string) (*Observation, error) {
	o := s.observation(f)
	o.Notes = append(o.Notes, fmt.Sprintf("interrupted after %d %s: what was read so far", n, unit))
	return o, ctx.Err()
}

// observation turns what was aggregated into an Observation.
func (s *stream) observation(f Format) *Observation {
	seconds := 0.0
	if s.all.last > s.all.first {
		seconds = float64(s.all.last-s.all.first) / 1e9
	}
	o := &Observation{Format: f, Window: s.all.window(seconds)}
	o.VUs = s.all.vusMax
	o.Run.VUs = int(s.all.vusMax)
	o.Run.MaxVUs = int(s.vusMax)
	if !s.opt.Open && s.open() {
		o.Run.Model = ModelOpen
		why := fmt.Sprintf("it dropped %d iterations, which only arrival-rate executors do", s.all.dropped)
		switch {
		case s.allocated():
			why = fmt.Sprintf("k6 allocated VUs during the run (vus_max %.0f → %.0f), which only arrival-rate executors do", s.vusMaxFirst, s.vusMax)
		case s.all.dropped == 0:
			why = fmt.Sprintf("iterations started at a fixed rate while at most %.0f of its %.0f VUs were busy, as an arrival-rate executor runs "+
				"(a closed model keeps every VU it allocated busy; scenarios run one after another would leave VUs idle too: "+
				"--executor says which)", s.all.vusMax, s.vusMax)
		}
		if s.opt.Closed {
			why += ", although --executor names a closed model"
		}
		o.Notes = append(o.Notes, "read as an open model: "+why+"; its steps are cut by arrivals per second")
	}
	if s.ok != nil {
		p := s.ok.phases()
		o.OK = &p
	}
	o.ByStatus = groups(s.byStatus)
	o.ByName = groups(s.byName)
	var tail *acc
	o.Steps, tail = s.steps()
	o.Series = s.series()
	if o.Steps != nil && tail != nil && (tail.requests > 0 || tail.iterations > 0) {
		o.Notes = append(o.Notes, fmt.Sprintf("the run's last %.1f s (%d requests, %d iterations ended, %d started) come after its last step: "+
			"counted in the totals and the series, in no step", float64(tail.last-tail.first)/1e9, tail.requests, tail.iterations, tail.starts))
	}
	return o
}

func groups(m map[string]*acc) []Group {
	out := make([]Group, 0, len(m))
	for k, a := range m {
		out = append(out, Group{Key: k, Requests: a.requests, Failed: a.failed, Phases: a.phases()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Requests != out[j].Requests {
			return out[i].Requests > out[j].Requests
		}
		return out[i].Key < out[j].Key
	})
	return out
}
