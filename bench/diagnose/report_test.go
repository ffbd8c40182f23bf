package diagnose

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A report whose only verdicts are notes (k6check e5's summary export: 557
// of 1201 requests failed, no statuses to name the cause) must still print
// "findings": [] for scripts that range over it, never null.
func TestReportJSONFindingsIsAList(t *testing.T) {
	failing := &Observation{Format: FormatSummaryExport, Window: Window{
		Seconds: 10, Requests: 1201, Failed: 557, Phases: quick(50, 52),
	}}
	tests := []struct {
		name string
		obs  *Observation
	}{
		{"concerns only", failing},
		{"nothing to analyse", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.obs, DefaultConfig())
			if len(r.Findings) != 0 {
				t.Fatalf("findings %v, want none", r.Codes())
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`"findings":[]`)) {
				t.Errorf("want \"findings\":[], got %s", b)
			}
		})
	}
}

// k6check's seed 003 closed sweep read from its summary export: p95 2 s,
// 733 ms of it in the server's queue. Little's law cannot be checked over
// the mixed loads of a ramp (the VUs in flight on average are not in the
// file), but the queue holding most of waiting in a closed model is the
// backlog: named, with medium confidence, never "healthy".
func TestServerQueueOfAClosedRampIsTheBacklog(t *testing.T) {
	tests := []struct {
		name  string
		extra Extra
	}{
		{"summary export, executor given", Extra{Executor: "ramping-vus"}},
		{"and the server's stats", Extra{Executor: "ramping-vus", Server: func() *ServerSide {
			s, err := ReadServerStats("testdata/k6check/s003-closed-server-stats.json")
			if err != nil {
				t.Fatal(err)
			}
			return s
		}()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ReadFile("testdata/k6check/s003-closed-summary-export.json")
			if err != nil {
				t.Fatal(err)
			}
			o.Apply(tt.extra)
			r := Analyze(o, DefaultConfig())
			if slices.Contains(r.Codes(), CodeHealthy) {
				t.Errorf("codes %v: a 2 s p95 with a 733 ms server queue is not healthy", r.Codes())
			}
			// The queue holds most of waiting in a closed ramp: the backlog,
			// named with medium confidence, as a summary mixes the loads.
			fd, ok := r.Finding(CodeClosedModelBacklog)
			if !ok || fd.Confidence != ConfidenceMedium || !strings.Contains(fd.Summary, "A summary mixes the ramp's loads") {
				t.Errorf("codes %v: want closed-model-backlog at medium confidence, saying the summary mixes loads (%+v)", r.Codes(), fd)
			}
			if slices.Contains(r.Codes(), CodeServerSlow) {
				t.Errorf("codes %v: the queue is the closed model's backlog, not a slow server", r.Codes())
			}
		})
	}
}
