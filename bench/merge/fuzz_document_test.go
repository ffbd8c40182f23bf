package merge

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// FuzzReceiveDocument: whatever a PUT's body, readDocument never panics,
// and a document it takes adds up: a known duration, finite counters not
// below 0, each its rate over that duration.
func FuzzReceiveDocument(f *testing.F) {
	f.Add(encodeDoc(&testing.T{}, partDoc(&testing.T{}, "0:1", time.Unix(0, 0), []time.Duration{time.Millisecond}, nil)))
	f.Add([]byte(`{"state":{"testRunDurationMs":1000},"metrics":{"http_reqs":{"type":"counter","values":{"count":1e9,"rate":1e6}}}}`))
	f.Add([]byte(`{"state":{"testRunDurationMs":1e308},"metrics":{"x":{"type":"counter","values":{"count":-0,"rate":0}}}}`))
	f.Add([]byte(`{"histograms":{"http_req_duration":"x"},"state":{"testRunDurationMs":5}}`))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, body []byte) {
		x, _, err := readDocument("fuzz", bytes.NewReader(body), int64(len(body)), 1<<20)
		if err != nil {
			return
		}
		secs := x.Doc.State.TestRunDurationMs / 1000
		if !(secs > 0) || math.IsInf(secs, 0) {
			t.Fatalf("taken with duration %v", x.Doc.State.TestRunDurationMs)
		}
		for name, m := range x.Doc.Metrics {
			if m.Type == "counter" && (!(m.Values["count"] >= 0) || math.IsInf(m.Values["count"], 0)) {
				t.Fatalf("taken with %s %v", name, m.Values)
			}
		}
	})
}
