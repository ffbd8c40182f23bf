package load

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestDecodeK6Options decodes what `k6 inspect` printed for testdata's
// two-scenario script: nulls are unset, rate is per timeUnit, both
// scenarios come out with their tags, startTime and env.
func TestDecodeK6Options(t *testing.T) {
	f, err := os.Open("testdata/k6-inspect-scenarios.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	c.URL = "http://127.0.0.1:1/"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	cfgs, starts, err := c.Effective()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 2 || cfgs[0].Scenario != "open" || cfgs[1].Scenario != "closed" || starts[1].D() != 500*time.Millisecond {
		t.Fatalf("scenarios %v starts %v (want open, then closed at 500ms)", names(cfgs), starts)
	}
	open, closed := cfgs[0], cfgs[1]
	if open.Rate.PerSecond() != 20 || open.ExecutorName() != ConstantArrivalRate || open.MaxVUs != 5 || open.Tags["kind"] != "open" {
		t.Errorf("open: %+v", open)
	}
	if closed.VUs != 2 || closed.gracefulStop() != time.Second || closed.Tags["kind"] != "closed" || closed.URL != c.URL {
		t.Errorf("closed: %+v", closed)
	}
	if got := c.SummaryTrendStats; strings.Join(got, ",") != "avg,p(99.9),count,min" {
		t.Errorf("summaryTrendStats %v", got)
	}
	lines, maxVUs, maxDur, err := Describe(c)
	// k6's header for this script: "2 scenarios, 7 max VUs, 32s max duration".
	if err != nil || len(lines) != 2 || maxVUs != 7 || maxDur != 32*time.Second {
		t.Errorf("Describe: %v %d %v %v", lines, maxVUs, maxDur, err)
	}
}

func names(cs []*Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Scenario)
	}
	return out
}

func TestThresholdObjectForm(t *testing.T) {
	c, err := DecodeConfig(strings.NewReader("url: http://a/\nthresholds:\n  http_req_failed:\n    - rate<0.1\n    - {threshold: rate<0.5, abortOnFail: true, delayAbortEval: 10s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := compileThresholds(c)
	if err != nil || len(ts) != 2 || ts[0].AbortOnFail || !ts[1].AbortOnFail || ts[1].DelayAbortEval != 10*time.Second || ts[1].Source != "rate<0.5" {
		t.Errorf("%+v %v", ts, err)
	}
}

func TestExpandEnv(t *testing.T) {
	c := &Config{URL: "http://${HOST}/a?x=$1", Headers: map[string]string{"X-Key": "${KEY}"}}
	if err := ExpandEnv(c, map[string]string{"HOST": "127.0.0.1:8080", "KEY": "k"}); err != nil {
		t.Fatal(err)
	}
	if c.URL != "http://127.0.0.1:8080/a?x=$1" || c.Headers["X-Key"] != "k" {
		t.Errorf("%q %v", c.URL, c.Headers)
	}
	if err := ExpandEnv(&Config{URL: "http://${NOPE}/"}, nil); err == nil || !strings.Contains(err.Error(), "${NOPE}") {
		t.Errorf("missing variable: %v", err)
	}
}

// TestScenarioEnv: a scenario's env fills ${NAME} in the url it inherits;
// the global env (-e) is there too.
func TestScenarioEnv(t *testing.T) {
	c, err := DecodeConfig(strings.NewReader("url: http://${HOST}/${PATH}\nscenarios:\n  a:\n    executor: shared-iterations\n    env: {PATH: a}\n  b:\n    executor: shared-iterations\n    env: {PATH: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ExpandEnv(c, map[string]string{"HOST": "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	cfgs, _, err := c.Effective()
	if err != nil {
		t.Fatal(err)
	}
	if cfgs[0].URL != "http://127.0.0.1:9/a" || cfgs[1].URL != "http://127.0.0.1:9/b" {
		t.Errorf("urls %q %q", cfgs[0].URL, cfgs[1].URL)
	}
}
