package dashboard

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/internal/timing"
)

// Sources are what a dashboard shows; each is optional (nil: that panel
// is left out). They are read once per tick from the sampler's goroutine.
type Sources struct {
	Load     *Aggregator               // the engine's requests
	Server   func() timing.ServerView  // the fake server's own view (the APM)
	Stages   func() any                // the path's counters, as its admin endpoint serves them
	Findings func() []diagnose.Finding // findings so far (called every FindingsEvery)
	// Answer records a mystery's answer from the form (nil: no form):
	// token is the secret a name's first web answer was given ("" on a
	// first answer), newToken the one this answer was given, if any. An
	// *AnswerError says which HTTP status refuses it.
	Answer func(name, codes, token string) (newToken string, err error)
	// Answers counts the answers kept so far, however given (nil: the
	// page counts those its form took).
	Answers func() int
}

// Point is one second (one tick) of the run.
type Point struct {
	T        float64          `json:"t"` // seconds since the dashboard started, at the tick's end
	Requests int64            `json:"requests"`
	Failed   int64            `json:"failed"`
	RPS      float64          `json:"rps"`
	Phases   []float64        `json:"phases"`   // mean ms of each phase over the tick's requests, in phaseNames' order
	Duration float64          `json:"duration"` // mean http_req_duration, ms
	Server   *float64         `json:"server"`   // mean server_time the engine read from Server-Timing, ms
	APMRPS   *float64         `json:"apmRps,omitempty"`
	APM      *float64         `json:"apm,omitempty"` // mean time the server reports for itself over the tick, ms
	Status   map[string]int64 `json:"status,omitempty"`
}

// TotalsView is the run's sums so far, as the page shows them.
type TotalsView struct {
	Requests    int64              `json:"requests"`
	Failed      int64              `json:"failed"`
	Status      map[string]int64   `json:"status"`
	DurationAvg float64            `json:"durationAvg"`
	PhaseAvg    []float64          `json:"phaseAvg"`
	ServerAvg   *float64           `json:"serverAvg"`
	APM         *timing.ServerView `json:"apm,omitempty"`
}

// State is everything the page draws; the report inlines it.
type State struct {
	Title    string             `json:"title"`
	Started  time.Time          `json:"started"`
	Phases   []string           `json:"phaseNames"`
	Points   []Point            `json:"points"`
	Totals   TotalsView         `json:"totals"`
	Stages   json.RawMessage    `json:"stages,omitempty"`
	Findings []diagnose.Finding `json:"findings"`
	Final    bool               `json:"final"` // the run has ended: findings are the analyzer's on the whole run
	Form     bool               `json:"form"`
	Codes    []string           `json:"codes,omitempty"` // the form's pick-list: the analyzer's finding codes
	Answers  int                `json:"answers"`
	HasLoad  bool               `json:"hasLoad"`
	// PhaseHelp says in one line what each drawn quantity is (the phases,
	// server_time, outside, the APM's own), where the page draws it.
	PhaseHelp map[string]string `json:"phaseHelp"`
	// Tail is the run's last part shorter than a tick (s): in the totals,
	// not drawn as a second of its own (a partial second's rate spikes).
	Tail float64 `json:"tail,omitempty"`
}

// phaseHelp is the one line the page shows beside each quantity it draws
// (k6's definitions, ARTICLE.md's table).
func phaseHelp() map[string]string {
	return map[string]string{
		"blocked":         "waiting for a connection: from the pool, or a new one's connect and TLS (not in duration)",
		"connecting":      "TCP connect of a new connection (0 on a reused one; not in duration)",
		"tls_handshaking": "TLS handshake of a new connection (0 on a reused one; not in duration)",
		"sending":         "writing the request to the socket",
		"waiting":         "request written → first response byte (TTFB): the server's time and everything on the way",
		"receiving":       "first response byte → last byte",
		"server_time":     "what the server says it spent on the request (Server-Timing app;dur)",
		"outside":         "waiting − server_time: spent between the client and the server's handler (network, devices, queues)",
		"apm":             "the server's own average over its requests, from its /_mb/stats (the APM's view)",
	}
}

// Dashboard samples its sources every tick and feeds the pages.
type Dashboard struct {
	src   Sources
	every time.Duration
	start time.Time

	tickMu   sync.Mutex // one tick at a time: the sampler's and Finish's
	mu       sync.Mutex
	state    State
	prev     Totals
	prevAPM  timing.ServerView
	subs     map[chan []byte]struct{}
	lastFind time.Time
}

// New makes a dashboard titled title; Run starts its sampling.
func New(title string, src Sources) *Dashboard {
	d := &Dashboard{src: src, every: time.Second, start: time.Now(), subs: map[chan []byte]struct{}{}}
	d.state = State{Title: title, Started: d.start, Phases: phaseNames(), Findings: []diagnose.Finding{}, Points: []Point{},
		Form: src.Answer != nil, HasLoad: src.Load != nil, Totals: TotalsView{Status: map[string]int64{}}, PhaseHelp: phaseHelp()}
	if d.state.Form {
		d.state.Codes = diagnose.Codes()
	}
	if src.Load != nil {
		d.prev = Totals{Status: map[int]int64{}}
	}
	return d
}

// Run samples every second until ctx ends.
func (d *Dashboard) Run(ctx context.Context) {
	t := time.NewTicker(d.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			d.Tick(now)
		}
	}
}

// Tick takes one sample now and sends it to the pages; after Finish it
// does nothing (the run's seconds are drawn; the x axis stops).
func (d *Dashboard) Tick(now time.Time) { d.tick(now, false) }

// tick samples now; last is Finish's sample, whose interval is usually
// shorter than a tick: it goes into the totals and, unless it is the only
// sample, not into the seconds drawn.
func (d *Dashboard) tick(now time.Time, last bool) {
	d.tickMu.Lock()
	defer d.tickMu.Unlock()
	d.tickLocked(now, last)
}

// tickLocked is tick with tickMu held.
func (d *Dashboard) tickLocked(now time.Time, last bool) {
	d.mu.Lock()
	final := d.state.Final
	d.mu.Unlock()
	if final {
		return
	}
	var findings []diagnose.Finding
	if d.src.Findings != nil && now.Sub(d.lastFind) >= 2*time.Second {
		findings = d.src.Findings()
		d.lastFind = now
	}
	var apm *timing.ServerView
	if d.src.Server != nil {
		if v := d.src.Server(); known(v) {
			apm = &v
		}
	}
	answers := -1
	if d.src.Answers != nil {
		answers = d.src.Answers()
	}
	var stages json.RawMessage
	if d.src.Stages != nil {
		if v := d.src.Stages(); v != nil {
			if b, err := json.Marshal(v); err == nil {
				stages = b
			}
		}
	}
	d.mu.Lock()
	p := Point{T: now.Sub(d.start).Seconds()}
	dt := d.every.Seconds()
	if n := len(d.state.Points); n > 0 {
		dt = p.T - d.state.Points[n-1].T
	} else {
		dt = p.T
	}
	if d.src.Load != nil {
		d.sampleLoad(&p, dt)
	}
	if apm != nil {
		d.sampleAPM(&p, *apm, dt)
		d.state.Totals.APM = apm
	}
	if stages != nil {
		d.state.Stages = stages
	}
	if answers >= 0 {
		d.state.Answers = answers
	}
	if findings != nil && !d.state.Final {
		d.state.Findings = findings
	}
	if last && len(d.state.Points) > 0 && dt < d.every.Seconds()*0.99 {
		d.state.Tail = dt
		d.mu.Unlock()
		return
	}
	d.state.Points = append(d.state.Points, p)
	msg := event("point", struct {
		Point    Point              `json:"point"`
		Totals   TotalsView         `json:"totals"`
		Stages   json.RawMessage    `json:"stages,omitempty"`
		Findings []diagnose.Finding `json:"findings"`
		Answers  int                `json:"answers"`
	}{p, d.state.Totals, d.state.Stages, d.state.Findings, d.state.Answers})
	d.broadcast(msg)
	d.mu.Unlock()
}

func (d *Dashboard) sampleLoad(p *Point, dt float64) {
	t := d.src.Load.Totals()
	n := t.Requests - d.prev.Requests
	p.Requests, p.Failed = n, t.Failed-d.prev.Failed
	if dt > 0 {
		p.RPS = float64(n) / dt
	}
	p.Phases = make([]float64, nPhases)
	if n > 0 {
		for i := range nPhases {
			p.Phases[i] = timing.Millis(t.Phase[i]-d.prev.Phase[i]) / float64(n)
		}
		p.Duration = timing.Millis(t.Duration-d.prev.Duration) / float64(n)
	}
	if ns := t.WithServer - d.prev.WithServer; ns > 0 {
		v := timing.Millis(t.Server-d.prev.Server) / float64(ns)
		p.Server = &v
	}
	p.Status = map[string]int64{}
	for code, c := range t.Status {
		if delta := c - d.prev.Status[code]; delta > 0 {
			p.Status[strconv.Itoa(code)] = delta
		}
	}
	tv := &d.state.Totals
	tv.Requests, tv.Failed = t.Requests, t.Failed
	tv.Status = map[string]int64{}
	for code, c := range t.Status {
		tv.Status[strconv.Itoa(code)] = c
	}
	tv.PhaseAvg = make([]float64, nPhases)
	if t.Requests > 0 {
		for i := range nPhases {
			tv.PhaseAvg[i] = timing.Millis(t.Phase[i]) / float64(t.Requests)
		}
		tv.DurationAvg = timing.Millis(t.Duration) / float64(t.Requests)
	}
	if t.WithServer > 0 {
		v := timing.Millis(t.Server) / float64(t.WithServer)
		tv.ServerAvg = &v
	}
	d.prev = t
}

// sampleAPM turns the server's cumulative view into the tick's rate and
// mean own time (avg × count differences).
func (d *Dashboard) sampleAPM(p *Point, v timing.ServerView, dt float64) {
	n := v.ServerTime["count"] - d.prevAPM.ServerTime["count"]
	sum := v.ServerTime["avg"]*v.ServerTime["count"] - d.prevAPM.ServerTime["avg"]*d.prevAPM.ServerTime["count"]
	if v.Requests < d.prevAPM.Requests { // the server's window was reset
		n, sum = v.ServerTime["count"], v.ServerTime["avg"]*v.ServerTime["count"]
	}
	if dt > 0 {
		r := float64(v.Requests-d.prevAPM.Requests) / dt
		if r < 0 {
			r = float64(v.Requests) / dt
		}
		p.APMRPS = &r
	}
	if n > 0 {
		m := sum / n
		p.APM = &m
	}
	d.prevAPM = v
}

// Finish takes a last sample, replaces the live findings with the
// analyzer's on the whole run and marks the page final (a report).
func (d *Dashboard) Finish(findings []diagnose.Finding) { d.finishAt(time.Now(), findings) }

func (d *Dashboard) finishAt(now time.Time, findings []diagnose.Finding) {
	// One hold of tickMu: no sampler's tick between the last sample and
	// the page turning final.
	d.tickMu.Lock()
	defer d.tickMu.Unlock()
	d.tickLocked(now, true)
	d.mu.Lock()
	defer d.mu.Unlock()
	if findings == nil {
		findings = []diagnose.Finding{}
	}
	d.state.Findings, d.state.Final = findings, true
	d.broadcast(event("final", d.state))
}

// addAnswer counts an answer given through the form.
func (d *Dashboard) addAnswer() {
	d.mu.Lock()
	d.state.Answers++
	d.mu.Unlock()
}

// Snapshot returns a copy of the state.
func (d *Dashboard) Snapshot() State {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.state
	s.Points = append([]Point(nil), s.Points...)
	return s
}

// event encodes one server-sent event.
func event(name string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{}`)
	}
	return append(append([]byte("event: "+name+"\ndata: "), b...), '\n', '\n')
}

// broadcast sends msg to every page; a page too slow to keep up misses
// it (the next "point" carries the totals anyway). d.mu is held.
func (d *Dashboard) broadcast(msg []byte) {
	for ch := range d.subs {
		select {
		case ch <- msg:
		default:
		}
	}
}

func (d *Dashboard) subscribe() (chan []byte, []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := make(chan []byte, 16)
	d.subs[ch] = struct{}{}
	return ch, event("state", d.state)
}

func (d *Dashboard) unsubscribe(ch chan []byte) {
	d.mu.Lock()
	delete(d.subs, ch)
	d.mu.Unlock()
}
