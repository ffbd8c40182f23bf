package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

func TestParseThresholdFlag(t *testing.T) {
	tests := []struct {
		in              string
		metric, agg, op string
		value           float64
		wantErr         bool
	}{
		{in: "http_req_failed:rate<0.01", metric: "http_req_failed", agg: "rate", op: "<", value: 0.01},
		{in: "http_req_duration:p(95) < 500", metric: "http_req_duration", agg: "p(95)", op: "<", value: 500},
		{in: "http_req_duration{expected_response:true}:p(99.9)<=1000", metric: "http_req_duration{expected_response:true}", agg: "p(99.9)", op: "<=", value: 1000},
		{in: "http_reqs:count>=10", metric: "http_reqs", agg: "count", op: ">=", value: 10},
		{in: "vus:value===3", metric: "vus", agg: "value", op: "===", value: 3},
		{in: "http_req_failed", wantErr: true},
		{in: "http_req_failed:rate", wantErr: true},
		{in: "http_req_failed:rate<abc", wantErr: true},
		{in: "http_req_duration:p(101)<5", wantErr: true},
		{in: "http_req_duration:mean<5", wantErr: true},
		{in: "http_req_duration{name:x:p(95)<5", wantErr: true},
		{in: ":p(95)<5", wantErr: true},
		{in: "x:rate=>1", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseThresholdFlag(tt.in)
		if tt.wantErr {
			if err == nil || !errors.Is(err, ErrThreshold) && err.Error() == "" {
				t.Errorf("%q: want an error, got %+v", tt.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got.Metric != tt.metric || got.Agg != tt.agg || got.Op != tt.op || got.Value != tt.value {
			t.Errorf("%q = %+v", tt.in, got)
		}
	}
}

func TestThresholdCheckType(t *testing.T) {
	th, _ := ParseThreshold("http_req_failed", "p(95)<1")
	if err := th.CheckType(TypeRate); err == nil {
		t.Error("p(95) on a rate accepted")
	}
	th, _ = ParseThreshold("http_req_failed", "rate<0.01")
	if err := th.CheckType(TypeRate); err != nil {
		t.Error(err)
	}
}

func TestApplyThresholds(t *testing.T) {
	tr := timing.NewTrend()
	for i := 1; i <= 1000; i++ {
		tr.Add(time.Duration(i) * time.Millisecond)
	}
	enc, _ := tr.Encode()
	m, _ := TrendMetric(tr, nil)
	d := &Document{Metrics: map[string]Metric{
		"http_req_duration": m,
		"http_req_failed":   {Type: TypeRate, Values: map[string]float64{"rate": 0.445}},
	}, Histograms: map[string]string{"http_req_duration": enc}}
	var ts []Threshold
	for _, s := range []string{"http_req_duration:p(95)<500", "http_req_duration:p(99.9)<2000", "http_req_failed:rate<0.01", "http_req_duration:avg<600"} {
		th, err := ParseThresholdFlag(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	if failed := ApplyThresholds(d, ts); failed != 2 {
		t.Errorf("%d failed, want 2 (p(95)=950ms and rate=44.5%%)", failed)
	}
	if d.Metrics["http_req_duration"].Thresholds["p(99.9)<2000"].OK != true {
		t.Error("p(99.9) from the histogram should pass")
	}
	if d.Metrics["http_req_failed"].Thresholds["rate<0.01"].OK {
		t.Error("rate<0.01 should fail at 44.5%")
	}
}

func FuzzParseThresholdFlag(f *testing.F) {
	for _, s := range []string{"http_req_failed:rate<0.01", "a{b:c}:p(9)>=1", "x:count!=3", "{:}:<", "a{:p(1)<1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThresholdFlag(s)
		if err == nil && (th.Metric == "" || th.Op == "") {
			t.Fatalf("%q parsed to %+v", s, th)
		}
	})
}
