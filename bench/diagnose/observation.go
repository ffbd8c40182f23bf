package diagnose

import (
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/internal/timing"
)

// Format names the kind of file an Observation was read from.
type Format string

// The formats ReadFile recognises.
const (
	FormatMiddlebench   Format = "middlebench"       // middlebench's results document
	FormatHandleSummary Format = "k6-handle-summary" // the data k6 hands to handleSummary
	FormatSummaryExport Format = "k6-summary-export" // k6 --summary-export
	FormatNDJSON        Format = "k6-json"           // k6 --out json= (NDJSON, plain or gzipped)
	FormatCSV           Format = "k6-csv"            // k6 --out csv=
	FormatText          Format = "k6-text-summary"   // k6's end-of-test summary as printed
)

// Model is the load model of a run: closed (a fixed number of VUs, each
// waiting for its response) or open (a fixed arrival rate).
type Model string

// Load models.
const (
	ModelUnknown Model = ""
	ModelClosed  Model = "closed"
	ModelOpen    Model = "open"
)

// ModelOf returns the model of a k6 executor name.
func ModelOf(executor string) Model {
	switch executor {
	case "constant-vus", "ramping-vus", "per-vu-iterations", "shared-iterations", "externally-controlled":
		return ModelClosed
	case "constant-arrival-rate", "ramping-arrival-rate":
		return ModelOpen
	}
	return ModelUnknown
}

// RunInfo is what load was asked for, as far as the source says.
type RunInfo struct {
	Tool     string  `json:"tool,omitempty"`
	Executor string  `json:"executor,omitempty"`
	Model    Model   `json:"model,omitempty"`
	VUs      int     `json:"vus,omitempty"`    // configured (closed) or the largest seen
	MaxVUs   int     `json:"maxVUs,omitempty"` // arrival-rate executors
	Rate     float64 `json:"rate,omitempty"`   // target arrivals per second (open model)
}

// ServerSide is the server's own view, the article's APM: what it counted
// and how long it says it worked. It comes from /_mb/stats, from a results
// document, or from numbers copied off an APM screen.
type ServerSide struct {
	Source   string           `json:"source,omitempty"`
	Requests int64            `json:"requests"` // -1 when not known
	Time     Stat             `json:"time"`     // app time per request, ms
	Queue    Stat             `json:"queue"`    // time waiting for a worker before that, ms
	Read     Stat             `json:"read"`     // time reading request bodies, ms (the fake server's read;dur)
	Statuses map[string]int64 `json:"statuses,omitempty"`
}

// ServerFromView converts the fake server's /_mb/stats (or a document's
// "server" key).
func ServerFromView(v *timing.ServerView, source string) *ServerSide {
	if v == nil {
		return nil
	}
	return &ServerSide{
		Source:   source,
		Requests: v.Requests,
		Time:     statFromValues(v.ServerTime),
		Queue:    statFromValues(v.QueueTime),
		Read:     statFromValues(v.ReadTime),
		Statuses: v.Statuses,
	}
}

// Window is what happened over a span of the run: the whole run, or one
// step of a sweep. Counts of 0 mean none or not known.
type Window struct {
	Seconds      float64          `json:"seconds,omitempty"`
	VUs          float64          `json:"vus,omitempty"`  // target VUs of a step, or the mean / largest seen
	Rate         float64          `json:"rate,omitempty"` // target arrivals per second of a step
	Requests     int64            `json:"requests"`
	Failed       int64            `json:"failed"` // http_req_failed true
	Iterations   int64            `json:"iterations,omitempty"`
	Dropped      int64            `json:"dropped_iterations,omitempty"`
	IterAvg      float64          `json:"iteration_duration_avg,omitempty"` // ms
	DataSent     int64            `json:"data_sent,omitempty"`
	DataReceived int64            `json:"data_received,omitempty"`
	Statuses     map[string]int64 `json:"statuses,omitempty"` // "200": n, "0": transport errors
	Errors       map[string]int64 `json:"errors,omitempty"`   // error class or k6 error_code → n
	Phases       Phases           `json:"phases"`
	// OK holds the phases of expected responses only (k6's
	// {expected_response:true}), when the source separates them.
	OK     *Phases     `json:"ok,omitempty"`
	Server *ServerSide `json:"server,omitempty"`
	// CPU is the generator's own CPU use in percent of its cores (0: not known).
	CPU float64 `json:"generator_cpu,omitempty"`
	// CPUOthers is what other processes took of those cores meanwhile,
	// and the hypervisor stole, in the same percent (0: not known).
	CPUOthers float64 `json:"generator_cpu_others,omitempty"`
	// vusMin is the vus gauge's min in a summary (0: not known): below
	// VUs, the VUs changed during the window.
	vusMin float64
	// hasReceived: the file counts data_received (a 0 is then a count).
	hasReceived bool
	// busyVUs is the share of the VUs allocated that were busy (the vus
	// gauge over vus_max, on average; 0: not known): iterations dropped
	// while every VU was busy were held by latency, not late to start.
	busyVUs float64
	// missing names k6's phases the file does not carry at all (not 0:
	// not known).
	missing []string
	// okWaitingEstimated: OK.Waiting is derived from the expected
	// responses' duration (a summary has no waiting for them).
	okWaitingEstimated bool
}

// mixedVUs reports whether the VUs changed during the window (a ramp).
func (w *Window) mixedVUs() bool { return w.vusMin > 0 && w.vusMin < w.VUs }

// RPS is requests per second over the window (0 if its length is unknown).
func (w *Window) RPS() float64 {
	if w.Seconds <= 0 {
		return 0
	}
	return float64(w.Requests) / w.Seconds
}

// Served returns the phases to set beside the server's own time: those of
// expected responses when the source has them (waiting included) and some
// requests failed (fast errors never reached the server), else those of
// all requests.
func (w *Window) Served() *Phases {
	if w.OK != nil && w.Failed > 0 && w.OK.Waiting.Present() {
		return w.OK
	}
	return &w.Phases
}

// Status returns how many responses had the given status.
func (w *Window) Status(code int) int64 { return w.Statuses[strconv.Itoa(code)] }

// Step is one step of a sweep: a ramping-vus stage, an arrival-rate step,
// or a span of an NDJSON stream cut where the load changed.
type Step struct {
	Name    string  `json:"name"`
	StartMs float64 `json:"startMs"`
	EndMs   float64 `json:"endMs"`
	Window
}

// Load is the load offered in the step: its target rate, else its VUs.
func (s *Step) Load() float64 {
	if s.Rate > 0 {
		return s.Rate
	}
	return s.VUs
}

// Group is one slice of a breakdown (by status, by request name).
type Group struct {
	Key      string `json:"key"`
	Requests int64  `json:"requests"`
	Failed   int64  `json:"failed"`
	Phases   Phases `json:"phases"`
}

// Threshold is one k6 threshold and its outcome.
type Threshold struct {
	Metric string `json:"metric"`
	Source string `json:"source"` // "p(95)<500"
	Failed bool   `json:"failed"`
}

// Observation is one run, whatever file it was read from.
type Observation struct {
	Source string  `json:"source,omitempty"`
	Format Format  `json:"format"`
	Run    RunInfo `json:"run"`
	Window         // the whole run
	Steps  []Step  `json:"steps,omitempty"`
	// Series is an NDJSON or CSV stream's time buckets, one Step each:
	// the run over time, whether or not the load changed.
	Series []Step `json:"series,omitempty"`
	// Breakdowns (NDJSON and CSV): by response status and by k6's name tag.
	ByStatus   []Group     `json:"by_status,omitempty"`
	ByName     []Group     `json:"by_name,omitempty"`
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// UplinkBps and DownlinkBps are the generator-side link capacities in
	// bytes per second, when known (0: not known).
	UplinkBps   float64  `json:"uplink_bps,omitempty"`
	DownlinkBps float64  `json:"downlink_bps,omitempty"`
	Notes       []string `json:"notes,omitempty"` // what a reader noticed (partial file, ignored lines)
}

// Extra is what a user knows beside the file and can add to an
// Observation: the server's view, the generator's CPU, the load configured,
// the links' capacities. Zero fields add nothing.
type Extra struct {
	Server      *ServerSide
	CPU         float64 // percent of the generator's cores
	Executor    string
	VUs         int
	Rate        float64 // arrivals per second
	UplinkBps   float64
	DownlinkBps float64
}

// model is the load model x says: its executor's, or open when only a
// rate is given.
func (x Extra) model() Model {
	if m := ModelOf(x.Executor); m != ModelUnknown || x.Rate <= 0 {
		return m
	}
	return ModelOpen
}

// hints tells r what x knows of the load, which a k6 stream does not
// say: open or closed, and one load or steps.
func (x Extra) hints(r Reader) Reader {
	r.Open, r.Closed = x.model() == ModelOpen, x.model() == ModelClosed
	r.Constant = strings.HasPrefix(x.Executor, "constant-")
	return r
}

// Apply adds what x knows to o, overriding what the file said.
func (o *Observation) Apply(x Extra) {
	if x.Server != nil {
		o.Server = x.Server
	}
	if x.CPU > 0 {
		o.CPU = x.CPU
	}
	if x.Executor != "" {
		o.Run.Executor = x.Executor
		// Dropped iterations are an arrival-rate executor's whatever the
		// user says (the reader notes the contradiction).
		if m := ModelOf(x.Executor); m != ModelClosed || o.Dropped == 0 {
			o.Run.Model = m
		}
	}
	if x.VUs > 0 {
		o.Run.VUs = x.VUs
		o.VUs = float64(x.VUs)
	}
	if x.Rate > 0 {
		o.Run.Rate = x.Rate
		o.Window.Rate = x.Rate
		if o.Run.Model == ModelUnknown {
			o.Run.Model = ModelOpen
		}
	}
	if x.UplinkBps > 0 {
		o.UplinkBps = x.UplinkBps
	}
	if x.DownlinkBps > 0 {
		o.DownlinkBps = x.DownlinkBps
	}
}

// inferModel fills Run.Model when the executor does not say: dropped
// iterations or a target rate mean an open model.
func (o *Observation) inferModel() {
	if o.Run.Model != ModelUnknown {
		return
	}
	if m := ModelOf(o.Run.Executor); m != ModelUnknown {
		o.Run.Model = m
		return
	}
	if o.Run.Rate > 0 || o.Dropped > 0 {
		o.Run.Model = ModelOpen
	}
}

// statusClass reports whether a status string is a 4xx/5xx or a transport
// error ("0").
func statusFailed(s string) bool {
	return s == "0" || strings.HasPrefix(s, "4") || strings.HasPrefix(s, "5")
}
