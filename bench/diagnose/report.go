package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Report is the analysis of one Observation.
type Report struct {
	Source   string  `json:"source,omitempty"`
	Format   Format  `json:"format,omitempty"`
	Run      RunInfo `json:"run"`
	Requests int64   `json:"requests"`
	Failed   int64   `json:"failed"`
	Seconds  float64 `json:"seconds,omitempty"`
	RPS      float64 `json:"rps,omitempty"`
	// Findings, ordered by the time they explain (ExplainsMs); an empty
	// list, never nil, when only notes were left (JSON readers range over it).
	Findings []Finding  `json:"findings"`
	Phases   PhaseTable `json:"phases"`
	// NotInFile names the phases the file does not carry: not known,
	// never 0 (the text shows "—").
	NotInFile []string  `json:"phases_not_in_file,omitempty"`
	Steps     []StepRow `json:"steps,omitempty"`
	// Series: a stream's time buckets (JSON only; the text shows steps).
	Series []StepRow `json:"series,omitempty"`
	// Breakdowns of an NDJSON or CSV stream, most requests first.
	ByStatus []GroupRow `json:"by_status,omitempty"`
	ByName   []GroupRow `json:"by_name,omitempty"`
	Notes    []string   `json:"notes,omitempty"`
	// Difference is this run's phases minus a baseline's (rule 11: the
	// same scenario straight at the server), when one was given.
	Difference *PhaseTable `json:"difference_to_baseline,omitempty"`
}

// Compare sets r.Difference to r's phases minus the baseline's (rule 11:
// run the same scenario straight at the server and through the path, and
// read the difference phase by phase).
func (r *Report) Compare(baseline Report) {
	d := r.Phases.Diff(baseline.Phases)
	r.Difference = &d
}

// Codes returns the findings' codes in the report's order.
func (r Report) Codes() []string {
	out := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = f.Code
	}
	return out
}

// Finding returns the finding with the given code.
func (r Report) Finding(code string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Code == code {
			return f, true
		}
	}
	return Finding{}, false
}

// PhaseTable is the run's phases beside the server's own time, and the
// time spent outside the server: waiting − server time − server queue
// (the average exactly; the p95 as a difference of p95s, an estimate).
// When some requests failed and the source separates expected responses,
// "outside" is computed on those (failures may never reach the server).
type PhaseTable struct {
	Phases           // k6's phases and the server's own time (Server)
	ServerQueue Stat `json:"server_queue"`
	Outside     Stat `json:"outside_server"`
}

// Diff returns t minus base, row by row (avg and p95; a row either lacks
// is left out).
func (t PhaseTable) Diff(base PhaseTable) PhaseTable {
	var d PhaseTable
	rows, brows, drows := t.rows(), base.rows(), d.rows()
	for i := range rows {
		a, b := rows[i].s, brows[i].s
		if a.Present() && b.Present() {
			*drows[i].s = Stat{Avg: a.Avg - b.Avg, P95: a.P95 - b.P95}
		}
	}
	return d
}

// rows names the rows of a PhaseTable in print order.
func (t *PhaseTable) rows() []struct {
	name string
	s    *Stat
} {
	return []struct {
		name string
		s    *Stat
	}{
		{"blocked", &t.Blocked}, {"connecting", &t.Connecting}, {"tls_handshaking", &t.TLS},
		{"sending", &t.Sending}, {"waiting", &t.Waiting}, {"receiving", &t.Receiving},
		{"duration", &t.Duration}, {"server_time", &t.Server}, {"server_queue", &t.ServerQueue},
		{"outside_server", &t.Outside},
	}
}

// MarshalJSON leaves out rows the source did not have.
func (t PhaseTable) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, r := range t.rows() {
		if !r.s.Present() {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(r.name)
		v, err := json.Marshal(*r.s)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *PhaseTable) UnmarshalJSON(data []byte) error {
	var m map[string]Stat
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for _, r := range t.rows() {
		*r.s = m[r.name]
	}
	return nil
}

// StepRow is one step of a sweep as the report shows it: load, TPS and
// the phases the sweep rules read.
type StepRow struct {
	Name          string  `json:"name"`
	VUs           float64 `json:"vus,omitempty"`
	Rate          float64 `json:"rate,omitempty"`
	Requests      int64   `json:"requests"`
	Failed        int64   `json:"failed"`
	Dropped       int64   `json:"dropped_iterations,omitempty"`
	RPS           float64 `json:"rps"`
	DurationP95   float64 `json:"duration_p95_ms"`
	WaitingAvg    float64 `json:"waiting_avg_ms"`
	ReceivingAvg  float64 `json:"receiving_avg_ms"`
	SendingAvg    float64 `json:"sending_avg_ms"`
	ServerTimeP95 float64 `json:"server_time_p95_ms,omitempty"`
	// Outside is the step's time outside the server, as the phase table
	// computes it (absent without the server's time, or when negative).
	Outside Stat    `json:"outside_server,omitempty"`
	CPU     float64 `json:"generator_cpu,omitempty"`
}

// GroupRow is one slice of a breakdown (a status, a request name).
type GroupRow struct {
	Key         string  `json:"key"`
	Requests    int64   `json:"requests"`
	Failed      int64   `json:"failed"`
	DurationAvg float64 `json:"duration_avg_ms"`
	DurationP95 float64 `json:"duration_p95_ms"`
	WaitingAvg  float64 `json:"waiting_avg_ms"`
}

func groupRows(gs []Group) []GroupRow {
	var out []GroupRow
	for _, g := range gs {
		out = append(out, GroupRow{Key: g.Key, Requests: g.Requests, Failed: g.Failed,
			DurationAvg: g.Phases.Duration.Avg, DurationP95: g.Phases.Duration.P95, WaitingAvg: g.Phases.Waiting.Avg})
	}
	return out
}

func newReport(obs *Observation, f *facts) Report {
	r := Report{
		Source: obs.Source, Format: obs.Format, Run: obs.Run,
		Requests: obs.Requests, Failed: obs.Failed, Seconds: obs.Seconds, RPS: obs.RPS(),
		Findings: []Finding{},
		Notes:    append([]string(nil), obs.Notes...),
		ByStatus: groupRows(obs.ByStatus),
		ByName:   groupRows(obs.ByName),
	}
	r.Phases = PhaseTable{Phases: obs.Phases}
	for _, m := range obs.missing {
		r.NotInFile = append(r.NotInFile, strings.TrimPrefix(m, "http_req_"))
	}
	r.Phases.Server = Stat{}
	if f.hasServer {
		r.Phases.Server, r.Phases.ServerQueue = f.srv, f.queue
		r.Phases.Outside = f.outsideStat()
		if f.served != f.all {
			r.Notes = append(r.Notes, fmt.Sprintf("outside server is computed on the %d expected responses only: the %d failures may never have reached the server",
				obs.Requests-obs.Failed, obs.Failed))
		}
	}
	r.Steps = stepRows(obs, obs.Steps, f.cfg)
	r.Series = stepRows(obs, obs.Series, f.cfg)
	return r
}

func stepRows(obs *Observation, steps []Step, cfg *Config) []StepRow {
	var rows []StepRow
	for i := range steps {
		s := &steps[i]
		sf := newFacts(cfg, obs, &s.Window, s.Name)
		row := StepRow{Name: s.Name, VUs: s.VUs, Rate: s.Rate, Requests: s.Requests, Failed: s.Failed, Dropped: s.Dropped,
			RPS: s.RPS(), DurationP95: sf.served.Duration.Tail(), WaitingAvg: sf.served.Waiting.Avg,
			ReceivingAvg: s.Phases.Receiving.Avg, SendingAvg: s.Phases.Sending.Avg, CPU: s.CPU}
		if sf.hasServer {
			row.ServerTimeP95 = sf.srv.Tail()
			row.Outside = sf.outsideStat()
		}
		rows = append(rows, row)
	}
	return rows
}
