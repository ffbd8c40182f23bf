package k6script

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
)

// optionsOf cuts the exported options object out of a generated script.
func optionsOf(t *testing.T, src []byte) map[string]any {
	t.Helper()
	const start = "export const options = "
	i := bytes.Index(src, []byte(start))
	if i < 0 {
		t.Fatalf("no %q in the script", start)
	}
	rest := src[i+len(start):]
	j := bytes.Index(rest, []byte("};\n"))
	if j < 0 {
		t.Fatal("the options object does not end")
	}
	var o map[string]any
	if err := json.Unmarshal(rest[:j+1], &o); err != nil {
		t.Fatalf("the options object is not JSON: %v", err)
	}
	return o
}

func durOf(t *testing.T, v any) time.Duration {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("duration %v is not a string", v)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// wantScenario is what the YAML's load config says the scenario is, field
// by field, with the engine's documented defaults.
func checkScenario(t *testing.T, c *load.Config, sc map[string]any) {
	t.Helper()
	num := func(k string) float64 { f, _ := sc[k].(float64); return f }
	if got, want := sc["executor"], c.ExecutorName(); got != want {
		t.Errorf("executor %v, want %s", got, want)
	}
	wantStop := 30 * time.Second
	if c.GracefulStop != nil {
		wantStop = c.GracefulStop.D()
	}
	if got := durOf(t, sc["gracefulStop"]); got != wantStop {
		t.Errorf("gracefulStop %s, want %s", got, wantStop)
	}
	wantVUs := float64(max(c.VUs, 1))
	switch c.ExecutorName() {
	case load.ConstantVUs:
		if num("vus") != wantVUs || durOf(t, sc["duration"]) != c.Duration.D() {
			t.Errorf("vus %v duration %v, want %v %s", sc["vus"], sc["duration"], wantVUs, c.Duration)
		}
	case load.RampingVUs:
		if num("startVUs") != float64(c.StartVUs) {
			t.Errorf("startVUs %v, want %d", sc["startVUs"], c.StartVUs)
		}
		if c.GracefulRampDown != nil && durOf(t, sc["gracefulRampDown"]) != c.GracefulRampDown.D() {
			t.Errorf("gracefulRampDown %v, want %s", sc["gracefulRampDown"], c.GracefulRampDown)
		}
	case load.PerVUIterations, load.SharedIterations:
		if num("vus") != wantVUs || num("iterations") != float64(max(c.Iterations, 1)) {
			t.Errorf("vus %v iterations %v, want %v %d", sc["vus"], sc["iterations"], wantVUs, c.Iterations)
		}
	case load.ConstantArrivalRate:
		if num("rate") != c.Rate.N || durOf(t, sc["timeUnit"]) != c.Rate.Per || durOf(t, sc["duration"]) != c.Duration.D() {
			t.Errorf("rate %v/%v for %v, want %s for %s", sc["rate"], sc["timeUnit"], sc["duration"], c.Rate, c.Duration)
		}
	case load.RampingArrivalRate:
		if num("startRate") != c.StartRate {
			t.Errorf("startRate %v, want %g", sc["startRate"], c.StartRate)
		}
	}
	if c.PreAllocatedVUs > 0 && num("preAllocatedVUs") != float64(c.PreAllocatedVUs) {
		t.Errorf("preAllocatedVUs %v, want %d", sc["preAllocatedVUs"], c.PreAllocatedVUs)
	}
	if c.MaxVUs > 0 && num("maxVUs") != float64(c.MaxVUs) {
		t.Errorf("maxVUs %v, want %d", sc["maxVUs"], c.MaxVUs)
	}
	stages, _ := sc["stages"].([]any)
	if len(stages) != len(c.Stages) {
		t.Fatalf("%d stages, want %d", len(stages), len(c.Stages))
	}
	for i, s := range c.Stages {
		st := stages[i].(map[string]any)
		if durOf(t, st["duration"]) != s.Duration.D() || st["target"] != s.Target {
			t.Errorf("stage %d: %v, want %s:%g", i, st, s.Duration, s.Target)
		}
	}
}

func checkTopLevel(t *testing.T, c *load.Config, o map[string]any) {
	t.Helper()
	truth := func(k string) bool { b, _ := o[k].(bool); return b }
	if truth("noConnectionReuse") != c.NoConnectionReuse || truth("noVUConnectionReuse") != c.NoVUConnectionReuse {
		t.Errorf("noConnectionReuse %v noVUConnectionReuse %v, want %v %v", o["noConnectionReuse"], o["noVUConnectionReuse"], c.NoConnectionReuse, c.NoVUConnectionReuse)
	}
	if c.UserAgent != nil && o["userAgent"] != *c.UserAgent {
		t.Errorf("userAgent %v, want %q", o["userAgent"], *c.UserAgent)
	}
	if c.UserAgent == nil && o["userAgent"] != nil {
		t.Errorf("userAgent %v, want k6's own", o["userAgent"])
	}
	if !truth("discardResponseBodies") {
		t.Error("discardResponseBodies: the engine drops bodies; k6 must too")
	}
}

// TestK6ScriptsSayWhatTheYAMLSays generates every experiment's scripts and
// reads the options back out of them.
func TestK6ScriptsSayWhatTheYAMLSays(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiments: %v", err)
	}
	k6 := k6ForTest()
	for _, quick := range []bool{false, true} {
		for _, f := range files {
			e, err := experiment.Load(f, quick)
			if err != nil {
				t.Fatal(err)
			}
			scripts, err := Scripts(e, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(scripts) != len(e.Runs) {
				t.Fatalf("%s: %d scripts for %d runs", e.ID, len(scripts), len(e.Runs))
			}
			for i, s := range scripts {
				c := &e.Runs[i].Load
				t.Run(e.ID+"/"+s.Run, func(t *testing.T) {
					o := optionsOf(t, s.Src)
					scs, _ := o["scenarios"].(map[string]any)
					if len(scs) != 1 {
						t.Fatalf("scenarios %v: want one", o["scenarios"])
					}
					for _, sc := range scs {
						checkScenario(t, c, sc.(map[string]any))
					}
					checkTopLevel(t, c, o)
					if c.ClientCPU > 0 && !bytes.Contains(s.Src, []byte("const CLIENT_CPU_MS = "+
						strings.TrimSuffix(c.ClientCPU.String(), "ms")+";")) {
						t.Errorf("clientCPU %s is not the script's CLIENT_CPU_MS", c.ClientCPU)
					}
					if !quick {
						t.Run("k6 inspect", func(t *testing.T) {
							if k6 == "" {
								t.Skip("no k6: set MIDDLEBENCH_K6 or put k6 on PATH to check that k6 reads these options")
							}
							inspectEquals(t, k6, s, o)
						})
					}
				})
			}
		}
	}
}

// k6ForTest is real k6: $MIDDLEBENCH_K6 or k6 on PATH ("" without one).
func k6ForTest() string {
	if p := os.Getenv("MIDDLEBENCH_K6"); p != "" {
		return p
	}
	if p, err := exec.LookPath("k6"); err == nil {
		return p
	}
	return ""
}

// inspectEquals checks that k6 reads the options we wrote: every key of
// ours has the same value in what `k6 inspect` prints.
func inspectEquals(t *testing.T, k6 string, s Script, ours map[string]any) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, s.File)
	if err := os.WriteFile(path, s.Src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(k6, "inspect", path).Output()
	if err != nil {
		t.Fatalf("k6 inspect: %v", err)
	}
	var theirs map[string]any
	if err := json.Unmarshal(out, &theirs); err != nil {
		t.Fatalf("k6 inspect printed no JSON: %v", err)
	}
	for k, v := range ours {
		if k == "scenarios" {
			for name, sc := range v.(map[string]any) {
				got, _ := theirs["scenarios"].(map[string]any)[name].(map[string]any)
				for sk, sv := range sc.(map[string]any) {
					if !sameOption(sv, got[sk]) {
						t.Errorf("k6 reads scenarios.%s.%s as %v, the script says %v", name, sk, got[sk], sv)
					}
				}
			}
			continue
		}
		if !sameOption(v, theirs[k]) {
			t.Errorf("k6 reads %s as %v, the script says %v", k, theirs[k], v)
		}
	}
}

// sameOption compares an option as we wrote it with k6's reading of it:
// durations as durations ("1m0s" is "60s").
func sameOption(ours, theirs any) bool {
	if a, ok := ours.(string); ok {
		if b, ok := theirs.(string); ok {
			da, errA := time.ParseDuration(a)
			db, errB := time.ParseDuration(b)
			if errA == nil && errB == nil {
				return da == db
			}
		}
	}
	if a, ok := ours.([]any); ok {
		b, ok := theirs.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameOption(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	if a, ok := ours.(map[string]any); ok {
		b, ok := theirs.(map[string]any)
		if !ok {
			return false
		}
		for k := range a {
			if !sameOption(a[k], b[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(ours, theirs)
}

func TestWriteK6Scripts(t *testing.T) {
	e, err := experiment.Load("../../experiments/e1-tls-handshake.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(e, "", "", &out); err == nil || !strings.Contains(err.Error(), "has 3 runs") {
		t.Errorf("three runs to stdout: %v", err)
	}
	out.Reset()
	if err := Write(e, "delay, reuse", "", &out); err != nil || !strings.Contains(out.String(), "export const options") {
		t.Errorf("one run to stdout: %v, %.80q", err, out.String())
	}
	if err := Write(e, "no such run", "", &out); err == nil || !strings.Contains(err.Error(), `no run "no such run"`) {
		t.Errorf("unknown run: %v", err)
	}
	dir := t.TempDir()
	out.Reset()
	if err := Write(e, "", dir, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"e1-1.js", "e1-2.js", "e1-3.js"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("%s not written: %s", f, out.String())
		}
	}
}
