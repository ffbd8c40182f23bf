package record

import (
	"fmt"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/experiment"
)

type fakeSource map[string]float64

func (f fakeSource) Lookup(ref string) (float64, error) {
	v, ok := f[ref]
	if !ok {
		return 0, fmt.Errorf("no metric %q", ref)
	}
	return v, nil
}

func TestBandCheck(t *testing.T) {
	run := fakeSource{"http_req_blocked p(95)": 316.2, "http_req_duration avg": 55.1, "http_reqs count": 1201, "server server_time avg": 50.2, "derived passed": 666}
	others := map[string]metricSource{"no delay": fakeSource{"http_req_duration avg": 54.0}}
	tests := []struct {
		band    experiment.Band
		ok      bool
		wantMsg string
	}{
		{band: experiment.Band{Metric: "http_req_blocked p(95)", Min: "300ms", Max: "300ms + 30ms"}, ok: true},
		{band: experiment.Band{Metric: "http_req_blocked p(95)", Max: "300ms"}, ok: false, wantMsg: "http_req_blocked p(95) = 316.2, want −∞ .. 300ms [−∞ .. 300]"},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Within: "10%"}, ok: true},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Within: "1ms"}, ok: false, wantMsg: `within 1ms of run "no delay"`},
		{band: experiment.Band{Metric: "http_reqs count", Equals: "1200", Tolerance: "1"}, ok: true},
		{band: experiment.Band{Metric: "http_reqs count", Equals: "1199"}, ok: false, wantMsg: "= 1201, want 1199"},
		{band: experiment.Band{Metric: "http_reqs count", Equals: "1000", Tolerance: "25%"}, ok: true},
		{band: experiment.Band{Metric: "nope", Min: "1"}, ok: false, wantMsg: `no metric "nope"`},
		{band: experiment.Band{Metric: "http_req_duration avg", Max: "@{server server_time avg}"}, ok: false, wantMsg: "want −∞ .. @{server server_time avg} [−∞ .. 50.20]"},
		{band: experiment.Band{Metric: "http_reqs count", Equals: "@{derived passed} + 535"}, ok: true},
		{band: experiment.Band{Metric: "http_reqs count", Equals: "@{missing}"}, ok: false, wantMsg: `equals: no metric "missing"`},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "missing", Within: "1%"}, ok: false, wantMsg: `no run named "missing"`},
		// plus: what this run adds to the other's value (54.0 + 1 = 55.0 ± 0.5 holds 55.1;
		// 54.0 + 2 = 56.0 ± 0.5 does not, from below; a margin in % is of 55.0).
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Plus: "1ms", Within: "0.5ms"}, ok: true},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Plus: "2ms", Within: "0.5ms"}, ok: false, wantMsg: `within 0.5ms of run "no delay" (54) + 2ms [55.50 .. 56.50]`},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Plus: "2 * 0.5ms", Within: "0.2ms"}, ok: true},
		{band: experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Plus: "1ms", Within: "0.1%"}, ok: false, wantMsg: "[54.95 .. 55.05]"},
	}
	for _, tt := range tests {
		if err := tt.band.Validate(); err != nil {
			t.Fatalf("%+v: %v", tt.band, err)
		}
		c := checkBand(tt.band, run, others)
		if c.OK != tt.ok || !strings.Contains(c.Msg, tt.wantMsg) {
			t.Errorf("%+v: ok=%v msg=%q, want ok=%v msg containing %q", tt.band, c.OK, c.Msg, tt.ok, tt.wantMsg)
		}
	}
}

func TestCheckCodes(t *testing.T) {
	e := experiment.Expect{Codes: []string{"tls-handshake-slow"}, Absent: []string{"server-slow"}}
	for _, tc := range []struct {
		found []string
		fails int
	}{
		{[]string{"tls-handshake-slow", "hidden-connection-cost"}, 0},
		{[]string{"server-slow"}, 2},
		{nil, 1},
	} {
		n := 0
		for _, c := range CheckCodes(e, tc.found, nil) {
			if c.Failed() {
				n++
			}
		}
		if n != tc.fails {
			t.Errorf("found %v: %d failures, want %d", tc.found, n, tc.fails)
		}
	}
}

// A code the file cannot show is skipped, visibly and with the reason
// diagnose.Unshown gives, never passed: and a file that can show it is
// judged as usual.
func TestCheckCodesSkipsWhatTheFileCannotShow(t *testing.T) {
	e := experiment.Expect{Codes: []string{"throughput-ceiling", "download-limited"}, Absent: []string{"server-slow"}}
	u := &Unshown{File: "k6's summary export", Codes: map[string]string{
		"throughput-ceiling": "the file has no steps: k6's NDJSON (--out json) or CSV shows a sweep step by step",
		"server-slow":        "the file has no server time: add --server-stats",
	}}
	checks := CheckCodes(e, []string{"download-limited"}, u)
	want := []struct {
		what    string
		ok      bool
		skipped string
	}{
		{"finding throughput-ceiling", false, "not shown by k6's summary export (the file has no steps: k6's NDJSON (--out json) or CSV shows a sweep step by step)"},
		{"finding download-limited", true, ""},
		{"finding server-slow", false, "not shown by k6's summary export (the file has no server time: add --server-stats)"},
	}
	if len(checks) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(checks), len(want), checks)
	}
	for i, w := range want {
		c := checks[i]
		if c.What != w.what || c.OK != w.ok || c.Skipped != w.skipped || c.Failed() {
			t.Errorf("check %d = {%s ok=%v skipped=%q failed=%v}, want {%s ok=%v skipped=%q failed=false}",
				i, c.What, c.OK, c.Skipped, c.Failed(), w.what, w.ok, w.skipped)
		}
	}
	// Without the file's limits the same findings fail.
	n := 0
	for _, c := range CheckCodes(e, []string{"download-limited"}, nil) {
		if c.Failed() {
			n++
		}
	}
	if n != 1 {
		t.Errorf("judged on a file that shows everything: %d failures, want 1 (throughput-ceiling)", n)
	}
	// A forbidden code found in a file said not to show it still fails.
	if c := CheckCodes(e, []string{"throughput-ceiling", "download-limited", "server-slow"}, u)[2]; !c.Failed() {
		t.Errorf("server-slow found: %+v, want a failure", c)
	}
}
