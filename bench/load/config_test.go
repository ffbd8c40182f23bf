package load

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func TestValidateNamesTheField(t *testing.T) {
	rate, _ := units.ParseRate("10/s")
	tests := []struct {
		name string
		cfg  Config
		want string // in the error
	}{
		{"no target", Config{VUs: 1}, "url"},
		{"bad scheme", Config{URL: "ftp://x/"}, "http:// or https://"},
		{"no host", Config{URL: "http:///x"}, "no host"},
		{"constant-vus without duration", Config{URL: "http://a/", Executor: ConstantVUs}, "duration"},
		{"unknown executor", Config{URL: "http://a/", Executor: "shared-vus"}, "unknown executor"},
		{"ramping-vus fractional VUs", Config{URL: "http://a/", Stages: []Stage{stage(time.Second, 1.5)}}, "stages[0].target"},
		{"zero-length stages", Config{URL: "http://a/", Stages: []Stage{stage(0, 5)}}, "0s in total"},
		{"arrival without duration", Config{URL: "http://a/", Rate: rate, MaxVUs: 3}, "duration"},
		{"maxVUs below preAllocated", Config{URL: "http://a/", Rate: rate, Duration: dur(time.Second), PreAllocatedVUs: 5, MaxVUs: 2}, "maxVUs"},
		{"negative VUs", Config{URL: "http://a/", VUs: -1}, "negative"},
		{"absurd rate", Config{URL: "http://a/", Rate: units.Rate{N: 1e9, Per: time.Second}, Duration: dur(time.Second), MaxVUs: 1}, "arrivals per second"},
		{"zero rate", Config{URL: "http://a/", Rate: units.Rate{N: 0, Per: time.Second}, Duration: dur(time.Second)}, "rate: 0/s starts no iteration"},
		{"too many VUs", Config{URL: "http://a/", VUs: 200_000, Duration: dur(time.Second)}, "more than the 100000 VUs"},
		{"huge stage target", Config{URL: "http://a/", Stages: []Stage{stage(time.Second, 1e12)}}, "stages[0].target"},
		{"too many ramping VUs", Config{URL: "http://a/", Stages: []Stage{stage(time.Second, 5e5)}}, "more than the 100000 VUs"},
		{"vus above shared iterations", Config{URL: "http://a/", VUs: 5, Iterations: 2}, "VUs must not exceed"},
		{"body too large", Config{URL: "http://a/", BodySize: 2 << 30}, "bodySize: 2GiB: at most 1GiB"},
		{"mix body too large", Config{Requests: []Request{{URL: "http://a/"}, {URL: "http://a/", BodySize: 1<<30 + 1}}}, "requests[1].bodySize"},
		{"bad header", Config{URL: "http://a/", Headers: map[string]string{"Bad Name": "x"}}, "headers"},
		{"url and requests", Config{URL: "http://a/", Requests: []Request{{URL: "http://b/"}}}, "either url or requests"},
		{"mix entry without url", Config{Requests: []Request{{Name: "x"}}}, "requests[0].url"},
		{"unknown threshold metric", Config{URL: "http://a/", Thresholds: ThresholdsOf(map[string][]string{"http_req_speed": {"avg<1"}})}, "no metric"},
		{"threshold aggregation of another type", Config{URL: "http://a/", Thresholds: ThresholdsOf(map[string][]string{"http_req_failed": {"p(95)<1"}})}, "no \"p(95)\""},
		{"malformed threshold", Config{URL: "http://a/", Thresholds: ThresholdsOf(map[string][]string{"http_req_duration": {"p(95)"}})}, "no operator"},
		{"bad server-timing name", Config{URL: "http://a/", ServerTimingMetric: "a;b"}, "serverTimingMetric"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want an error mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestExecutorShortcuts(t *testing.T) {
	rate, _ := units.ParseRate("10/s")
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Duration: dur(time.Second)}, ConstantVUs},
		{Config{Stages: []Stage{stage(time.Second, 2)}}, RampingVUs},
		{Config{Iterations: 10}, SharedIterations},
		{Config{Rate: rate, Duration: dur(time.Second)}, ConstantArrivalRate},
		{Config{Rate: rate, Stages: []Stage{stage(time.Second, 2)}}, RampingArrivalRate},
		{Config{}, PerVUIterations},
	}
	for _, tt := range tests {
		if got := tt.cfg.ExecutorName(); got != tt.want {
			t.Errorf("%+v → %s, want %s", tt.cfg, got, tt.want)
		}
	}
}

func TestDecodeConfig(t *testing.T) {
	good := `
url: http://127.0.0.1:8080/?work=50ms
executor: ramping-arrival-rate
startRate: 100
timeUnit: 1s
preAllocatedVUs: 10
maxVUs: 200
stages:
  - {duration: 10s, target: 1000}
  - {duration: 10s, target: 3600}
gracefulStop: 5s
userAgent: "Grafana k6/1.4.2"
think: uniform:10ms..20ms
clientCPU: 4ms
thresholds:
  http_req_failed: ["rate<0.01"]
  http_req_duration: ["p(95)<500", "p(99)<1000"]
`
	c, err := DecodeConfig(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.ExecutorName() != RampingArrivalRate || len(c.Stages) != 2 || c.Stages[1].Target != 3600 || *c.UserAgent != "Grafana k6/1.4.2" ||
		c.ClientCPU.D() != 4*time.Millisecond || c.gracefulStop() != 5*time.Second || len(c.Thresholds["http_req_duration"]) != 2 {
		t.Errorf("decoded %+v", c)
	}
	bad := []struct {
		name, yaml, want string
	}{
		{"unknown field", "url: http://a/\nvu: 3\n", "line 2"},
		{"bad duration", "url: http://a/\nduration: 5 seconds\n", "line 2"},
		{"bad size", "url: http://a/\nbodySize: 8M\n", "ambiguous"},
		{"bad rate", "url: http://a/\nrate: fast\n", "line 2"}, // a bare number is k6's: per timeUnit
		{"stage as a string", "url: http://a/\nstages: [30s:100]\n", "line 2"},
		{"two documents", "url: http://a/\n---\nurl: http://b/\n", "second YAML document"},
		{"empty", "", "empty"},
		{"wrong type", "url: http://a/\nvus: many\n", "line 2"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeConfig(strings.NewReader(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrConfig) {
				t.Errorf("DecodeConfig = %v, want an ErrConfig mentioning %q", err, tt.want)
			}
		})
	}
}

func TestParseStage(t *testing.T) {
	if s, err := ParseStage("30s:100"); err != nil || s.Duration.D() != 30*time.Second || s.Target != 100 {
		t.Errorf("ParseStage = %v, %v", s, err)
	}
	for _, bad := range []string{"30s", "x:1", "30s:-1", "30s:many", ":5", "30s:NaN"} {
		if _, err := ParseStage(bad); err == nil {
			t.Errorf("ParseStage(%q) accepted", bad)
		}
	}
}

func FuzzDecodeConfig(f *testing.F) {
	f.Add("url: http://a/\nvus: 3\nduration: 5s\n")
	f.Add("stages: [{duration: 1s, target: 2}]\nthresholds: {http_reqs: [count>1]}\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeConfig(strings.NewReader(s))
		if err == nil {
			_ = c.Validate() // must not panic
		}
	})
}

func TestExampleScenario(t *testing.T) {
	c, err := LoadConfig("testdata/scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	text, maxVUs, maxDur, err := Describe(c)
	if err != nil || maxVUs != 200 || maxDur != 25*time.Second {
		t.Errorf("Describe = %q, %d, %v, %v", text, maxVUs, maxDur, err)
	}
	t.Log(text)
}

func FuzzParseStage(f *testing.F) {
	for _, s := range []string{"30s:100", "0:0", "1m30s:2.5", ":", "10s:1e308", "5s: 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStage(s)
		if err == nil && (st.Target < 0 || st.Target != st.Target || st.Duration < 0) {
			t.Fatalf("%q parsed to %+v", s, st)
		}
	})
}
