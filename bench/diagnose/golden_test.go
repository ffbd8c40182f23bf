package diagnose

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden and doc.go's lists drawn from the rules table")

// The rendered reports are compared with golden files; run with -update
// after an intended change and read the diff.
func TestGoldenReports(t *testing.T) {
	tests := []struct {
		name string
		obs  func(t *testing.T) *Observation
	}{
		{"k6-summary-export", func(t *testing.T) *Observation { return readSample(t, "summary-export.json") }},
		{"e0-path-latency", func(*testing.T) *Observation { o := e0(); o.Source, o.Format = "e0.json", FormatMiddlebench; return o }},
		{"e4-download-sweep", func(*testing.T) *Observation { o := e4(); o.Source, o.Format = "e4.json", FormatMiddlebench; return o }},
		{"e5-rate-limited", func(*testing.T) *Observation { o := e5(); o.Source, o.Format = "e5.json", FormatMiddlebench; return o }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.obs(t), DefaultConfig())
			var text, js bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&js)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", tt.name+".txt"), text.Bytes())
			golden(t, filepath.Join("testdata", "golden", tt.name+".json"), js.Bytes())
			var back Report
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatalf("report JSON does not read back: %v", err)
			}
			if !slices.Equal(back.Codes(), r.Codes()) || back.Phases.Waiting.Avg != round6(r.Phases.Waiting.Avg) ||
				len(back.Findings[0].Evidence) != len(r.Findings[0].Evidence) {
				t.Errorf("read back %+v", back)
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenReports -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}
