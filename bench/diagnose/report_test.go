package diagnose

import (
	"bytes"
	"encoding/json"
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
