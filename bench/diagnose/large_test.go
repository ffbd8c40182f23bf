package diagnose

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// k6Stream writes a k6-shaped --out json stream of about n points: the
// Metric declarations, then per request the 13 points k6 writes (http_reqs,
// the 7 phases, http_req_failed, data_sent, data_received,
// iteration_duration, iterations), one server_time point, and a vus point
// per second. The load steps through stepVUs (equal time each); latency is
// 50 ms plus a backlog once VUs exceed 10 (a 10-worker server at 200/s).
func k6Stream(w io.Writer, n int, stepVUs []int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []struct{ name, typ, contains string }{
		{"http_reqs", "counter", "default"}, {"http_req_duration", "trend", "time"}, {"http_req_blocked", "trend", "time"},
		{"http_req_connecting", "trend", "time"}, {"http_req_tls_handshaking", "trend", "time"}, {"http_req_sending", "trend", "time"},
		{"http_req_waiting", "trend", "time"}, {"http_req_receiving", "trend", "time"}, {"http_req_failed", "rate", "default"},
		{"server_time", "trend", "time"}, {"data_sent", "counter", "data"}, {"data_received", "counter", "data"},
		{"iteration_duration", "trend", "time"}, {"iterations", "counter", "default"}, {"vus", "gauge", "default"},
	} {
		fmt.Fprintf(bw, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q,"thresholds":[],"submetrics":null},"metric":%q}`+"\n", m.name, m.typ, m.contains, m.name)
	}
	const perReq = 14
	reqs := n / perReq
	t0 := time.Date(2026, 11, 29, 17, 38, 26, 0, time.UTC)
	perStep := (reqs + len(stepVUs) - 1) / len(stepVUs)
	t := t0
	lastVUs := t0.Add(-time.Second)
	names := []string{"GET /", "GET /api/items", "POST /api/login"}
	for i := range reqs {
		vus := stepVUs[min(i/perStep, len(stepVUs)-1)]
		tps := min(float64(vus)/0.05, 200) // Little's law against a 200/s ceiling
		wait := 50 + max(0, float64(vus)/tps*1000-50) + r.NormFloat64()*2
		t = t.Add(time.Duration(float64(time.Second) / tps))
		if t.Sub(lastVUs) >= time.Second {
			lastVUs = t
			fmt.Fprintf(bw, `{"metric":"vus","type":"Point","data":{"time":%q,"value":%d,"tags":null}}`+"\n", t.Format(time.RFC3339Nano), vus)
		}
		status, exp := "200", "true"
		if r.IntN(100) == 0 {
			status, exp = "503", "false"
		}
		name := names[i%len(names)]
		tags := fmt.Sprintf(`{"expected_response":%q,"group":"","method":"GET","name":%q,"proto":"HTTP/1.1","scenario":"default","status":%q,"url":%q}`, exp, name, status, name)
		ts := t.Format(time.RFC3339Nano)
		send, recv := 0.02+r.Float64()*0.01, 0.08+r.Float64()*0.05
		blocked, conn := 0.003, 0.0
		if i < 10 {
			blocked, conn = 0.6, 0.5
		}
		failed := 0
		if exp == "false" {
			failed = 1
		}
		for _, p := range []struct {
			m string
			v float64
		}{
			{"http_reqs", 1}, {"http_req_duration", send + wait + recv}, {"http_req_blocked", blocked}, {"http_req_connecting", conn},
			{"http_req_tls_handshaking", 0}, {"http_req_sending", send}, {"http_req_waiting", wait}, {"http_req_receiving", recv},
			{"http_req_failed", float64(failed)},
		} {
			fmt.Fprintf(bw, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%g,"tags":%s}}`+"\n", p.m, ts, p.v, tags)
		}
		it := `{"group":"","scenario":"default"}`
		fmt.Fprintf(bw, `{"metric":"server_time","type":"Point","data":{"time":%q,"value":%g,"tags":%s}}`+"\n", ts, wait-1-max(0, float64(vus)/tps*1000-50), it)
		fmt.Fprintf(bw, `{"metric":"data_sent","type":"Point","data":{"time":%q,"value":77,"tags":%s}}`+"\n", ts, it)
		fmt.Fprintf(bw, `{"metric":"data_received","type":"Point","data":{"time":%q,"value":134,"tags":%s}}`+"\n", ts, it)
		fmt.Fprintf(bw, `{"metric":"iteration_duration","type":"Point","data":{"time":%q,"value":%g,"tags":%s}}`+"\n", ts, send+wait+recv+0.2, it)
		fmt.Fprintf(bw, `{"metric":"iterations","type":"Point","data":{"time":%q,"value":1,"tags":%s}}`+"\n", ts, it)
	}
	return bw.Flush()
}

func writeStream(t testing.TB, path string, n int, steps []int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var w io.WriteCloser = f
	if strings.HasSuffix(path, ".gz") {
		w = gzip.NewWriter(f)
	}
	if err := k6Stream(w, n, steps); err != nil {
		t.Fatal(err)
	}
	if w != io.WriteCloser(f) {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A VU sweep in an NDJSON stream: the time buckets are cut where the VUs
// change, and the sweep rules see the ceiling and the backlog.
func TestNDJSONStepsFromTheVUGauge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sweep.json.gz")
	writeStream(t, p, 140_000, []int{2, 5, 10, 40, 80})
	o, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Steps) != 5 {
		for _, s := range o.Steps {
			t.Logf("%s: %d requests, %.1f VUs", s.Name, s.Requests, s.VUs)
		}
		t.Fatalf("%d steps, want 5 (one per VU level)", len(o.Steps))
	}
	if len(o.ByName) != 3 || len(o.ByStatus) != 2 || o.Failed == 0 || o.OK == nil {
		t.Errorf("breakdowns: names %d, statuses %d, failed %d, ok %v", len(o.ByName), len(o.ByStatus), o.Failed, o.OK != nil)
	}
	o.Run.Executor, o.Run.Model = "ramping-vus", ModelClosed
	r := Analyze(o, DefaultConfig())
	assertCodes(t, r, CodeThroughputCeiling, CodeClosedModelBacklog)
}

// TestWriteLargeNDJSON writes a 1,000,000-point stream for measuring
// `middlebench analyze` by hand:
//
//	MIDDLEBENCH_NDJSON=/tmp/points.json.gz go test ./bench/diagnose -run TestWriteLargeNDJSON
//	/usr/bin/time -v middlebench analyze /tmp/points.json.gz
func TestWriteLargeNDJSON(t *testing.T) {
	path := os.Getenv("MIDDLEBENCH_NDJSON")
	if path == "" {
		t.Skip("set MIDDLEBENCH_NDJSON=FILE to write the 1,000,000-point stream")
	}
	writeStream(t, path, 1_000_000, []int{5, 10, 20, 40, 80, 160})
}

// BenchmarkReadNDJSON reads a 1,000,000-point stream (plain and gzipped).
func BenchmarkReadNDJSON(b *testing.B) {
	for _, name := range []string{"points.json", "points.json.gz"} {
		b.Run(name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), name)
			writeStream(b, p, 1_000_000, []int{5, 10, 20, 40, 80, 160})
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ResetTimer()
			for range b.N {
				o, err := Reader{}.ReadFile(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				_ = Analyze(o, DefaultConfig())
			}
			b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "points/s")
		})
	}
}
