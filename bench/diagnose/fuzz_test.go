package diagnose

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/fuzztest"
)

// Each reader gets a fuzz target: whatever the bytes, it returns an
// Observation or an error wrapping ErrUnreadable, never panics, and what it
// returns can be analysed and marshalled.

func checkRead(t *testing.T, o *Observation, err error) {
	t.Helper()
	if err != nil {
		if o != nil {
			t.Fatalf("observation and error: %v", err)
		}
		return
	}
	if o == nil {
		t.Fatal("no observation and no error")
	}
	r := Analyze(o, DefaultConfig())
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("report does not marshal: %v", err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
}

func fuzzReader() Reader { return Reader{MaxBuckets: 8, MaxNames: 4, MaxJSON: 1 << 20}.withDefaults() }

func FuzzNDJSON(f *testing.F) {
	f.Add([]byte(`{"type":"Metric","data":{"name":"http_req_waiting","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"http_req_waiting"}
{"metric":"http_req_waiting","type":"Point","data":{"time":"2026-11-29T17:38:26.134822352Z","value":50.709878,"tags":{"expected_response":"true","name":"http://127.0.0.1:18080/?ms=50","status":"200"}}}
{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:27.1+02:00","value":1,"tags":{"status":"429","url":"http://x/\u003ca\u003e"}}}
{"metric":"server_time","type":"Point","data":{"time":"2026-11-29T17:38:28Z","value":50.3,"tags":null}}
`))
	f.Add([]byte(`{"metric":"http_req_failed","type":"Point","data":{"time":"2026-11-29T17:38:26Z","value":1,"tags":{"expected_response":"false","status":"0","error_code":"1211"}}}`))
	f.Add([]byte(`{"metric":"vus","type":"Point","data":{"time":"2026-11-29T17:38:26Z","value":3,"tags":{},"metadata":{"a":[1,{"b":null}]}}}`))
	f.Add(sweepSeed())
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzztest.Bound(5*time.Second, data)()
		for _, open := range []bool{false, true} { // steps by VUs, and by arrivals
			rd := fuzzReader()
			rd.Open = open
			o, err := rd.readNDJSON(context.Background(), bufio.NewReader(bytes.NewReader(data)), "fuzz")
			checkRead(t, o, err)
		}
	})
}

// sweepSeed is a stream of a few seconds with VUs, iterations, their
// durations and dropped iterations, so that the fuzzer works on the steps
// (loads, drains, partial last buckets) and not only on the parsing.
func sweepSeed() []byte {
	var b bytes.Buffer
	point := func(sec int, metric string, v float64) {
		fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":"2026-11-29T17:38:%02d.500Z","value":%g,"tags":{"status":"200","name":"x"}}}`+"\n", metric, sec, v)
	}
	for sec := range 9 {
		vus := float64(10 * (1 + sec/3))
		point(sec, "vus", vus)
		for range int(vus) {
			point(sec, "http_reqs", 1)
			point(sec, "http_req_waiting", 50+float64(sec*sec))
			point(sec, "http_req_duration", 51+float64(sec*sec))
			point(sec, "iterations", 1)
			point(sec, "iteration_duration", 52+float64(sec*sec))
		}
		if sec > 5 {
			point(sec, "dropped_iterations", float64(sec))
		}
	}
	return b.Bytes()
}

func FuzzJSONDocument(f *testing.F) { // handleSummary data and middlebench documents
	f.Add([]byte(`{"metrics":{"http_req_waiting":{"type":"trend","contains":"time","values":{"avg":51.3,"p(95)":52.1},"thresholds":{"p(95)<500":{"ok":true}}},
"http_reqs":{"type":"counter","contains":"default","values":{"count":291,"rate":57.9}},"http_req_duration{expected_response:true}":{"type":"trend","contains":"time","values":{"avg":51}}},
"state":{"testRunDurationMs":5021},"run":{"tool":"middlebench/0.1.0","executor":"constant-vus","vus":3},"server":{"requests":291,"server_time":{"avg":50.6}},
"steps":[{"name":"s","startMs":0,"endMs":1000,"vus":3,"metrics":{"http_reqs":{"type":"counter","values":{"count":50}}}}]}`))
	f.Add([]byte(`{"metrics":{"http_req_blocked":{"type":"trend","values":{"max":300}}},"histograms":{"http_req_blocked":"1,2,3,4;AAAA"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := fuzzReader().readJSONFile(bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkRead(t, o, err)
	})
}

func FuzzSummaryExport(f *testing.F) {
	f.Add([]byte(`{"root_group":{"name":"","groups":{},"checks":{}},"metrics":{"http_req_duration":{"avg":51.4,"min":50.5,"med":51.4,"max":53,"p(90)":52,"p(95)":52.2,"thresholds":{"p(95)<500":false}},
"http_req_failed":{"passes":0,"fails":291,"value":0},"http_reqs":{"count":291,"rate":57.9},"vus":{"value":3,"min":3,"max":3},"dropped_iterations":{"count":5,"rate":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := fuzzReader().readJSONFile(bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkRead(t, o, err)
	})
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("metric_name,timestamp,metric_value,expected_response,name,status,url,extra_tags,metadata\n" +
		"http_reqs,1700000000,1.000000,true,http://x,200,http://x,,\n" +
		"http_req_waiting,1700000000123,51.200000,true,http://x,200,http://x,,\n" +
		"server_time,2026-11-29T17:38:26Z,50.1,,,,,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := fuzzReader().readCSV(context.Background(), bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkRead(t, o, err)
	})
}

func FuzzTextSummary(f *testing.F) {
	f.Add([]byte(`     scenarios: (100.00%) 1 scenario, 3 max VUs, 35s max duration (incl. graceful stop):
              * origin_ms50: 3 looping VUs for 5s (gracefulStop: 30s)
    http_req_blocked...............: avg=26.41µs  min=946ns   med=3.42µs  max=2.31ms   p(90)=6.92µs   p(95)=10.69µs
    http_req_duration..............: avg=51.37ms  min=50.64ms med=51.34ms max=53.75ms  p(90)=51.92ms  p(95)=52.13ms
      { expected_response:true }...: avg=51.37ms  min=50.64ms med=51.34ms max=53.75ms  p(90)=51.92ms  p(95)=52.13ms
    http_req_failed................: 0.00% 0 out of 291
  ✓ http_req_failed................: 0.00%  ✓ 0         ✗ 291
    http_reqs......................: 291   58.082217/s
    data_received..................: 39 kB 7.8 kB/s
    vus............................: 3     min=3        max=3
running (05.0s), 0/3 VUs, 291 complete and 0 interrupted iterations
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := fuzzReader().readText(bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkRead(t, o, err)
	})
}

func FuzzDetect(f *testing.F) { // the whole path: sniffing, gzip, every reader
	f.Add([]byte(`{"metrics":{"http_reqs":{"count":1,"rate":1}}}`))
	f.Add([]byte("metric_name,timestamp,metric_value\nhttp_reqs,1,1\n"))
	f.Add(gz([]byte(`{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:26Z","value":1}}`)))
	f.Add([]byte("http_reqs......: 3 1/s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := fuzzReader().Read(context.Background(), bytes.NewReader(data), "fuzz")
		checkRead(t, o, err)
	})
}

func FuzzConfig(f *testing.F) {
	f.Add([]byte("floor: 5ms\nserver_slow:\n  slow: 500ms\n  share: 0.7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ParseConfig(data); err == nil {
			_ = Analyze(e0(), c)
		}
	})
}

// TestSweepSeedIsASweep: the fuzz seed really reaches the steps, in both
// models.
func TestSweepSeedIsASweep(t *testing.T) {
	for _, open := range []bool{false, true} {
		rd := fuzzReader()
		rd.Open = open
		o, err := rd.readNDJSON(context.Background(), bufio.NewReader(bytes.NewReader(sweepSeed())), "seed")
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Steps) < 2 {
			t.Errorf("open=%v: %d steps, want a sweep", open, len(o.Steps))
		}
	}
}
