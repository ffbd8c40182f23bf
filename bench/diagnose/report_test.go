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
// 733 ms of it in the server's queue, but no rule holds over the mixed
// loads of a sweep. That is a concern, not "healthy".
func TestServerQueueNoFindingExplainsIsAConcern(t *testing.T) {
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
			if !strings.Contains(strings.Join(r.Notes, "\n"), "server's queue averages 732.88ms") {
				t.Errorf("notes %q: want the server's queue named", r.Notes)
			}
		})
	}
}
