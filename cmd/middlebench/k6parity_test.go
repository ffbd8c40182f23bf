package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// k6Recording is what real k6 did for one parity row (testdata/k6parity/
// ROW/k6.json), recorded outside the repository by running k6 v1.8.1 on
// the row's script.js; summary.json is k6's own --summary-export.
type k6Recording struct {
	K6            string            `json:"k6"`
	K6Command     string            `json:"k6Command"`
	K6Exit        int               `json:"k6Exit"`
	K6Requests    int64             `json:"k6Requests"`
	K6VusMax      *float64          `json:"k6VusMax"`      // the vus gauge's max (nil: k6 sampled none)
	K6VusMaxGauge *float64          `json:"k6VusMaxGauge"` // vus_max's max
	K6Warnings    []string          `json:"k6Warnings"`
	EngineArgs    []string          `json:"engineArgs"` // load's, $URL for the test's server
	EngineEnv     map[string]string `json:"engineEnv"`
}

// k6WarningSays maps a k6 warning to what the engine's must say.
var k6WarningSays = map[string]string{
	"overrode scenarios configuration entirely": `"cli" level configuration overrode scenarios configuration entirely`,
	"unknown fields in the options":             "bogusOption: unknown option, ignored",
}

// TestLoadAgreesWithRecordedK6: for each row, `middlebench load` with the
// options of the row's script (k6 inspect's JSON where the row has one)
// exits as k6 did, sends as many requests, and warns where k6 warned.
func TestLoadAgreesWithRecordedK6(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d, err := time.ParseDuration(r.URL.Query().Get("work")); err == nil {
			time.Sleep(d) // the work the row's script asked the server for
		}
	}))
	defer srv.Close()
	rows, err := filepath.Glob("testdata/k6parity/*/k6.json")
	if err != nil || len(rows) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	for _, file := range rows {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var rec k6Recording
			readJSON(t, file, &rec)
			for k, v := range rec.EngineEnv {
				t.Setenv(k, v)
			}
			export := filepath.Join(t.TempDir(), "summary.json")
			args := []string{"load", "-q", "--summary-export", export}
			for _, a := range rec.EngineArgs {
				a = strings.ReplaceAll(a, "$URL", srv.URL+"/")
				if a == "options.json" {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			root := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(args)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			code := exitCode(root.ExecuteContext(ctx))
			if code != rec.K6Exit {
				t.Fatalf("exit %d, k6 exited %d (%s)\n%s", code, rec.K6Exit, rec.K6Command, out.String())
			}
			ours := exportMetrics(t, export)
			got := int64(ours["http_reqs"]["count"].(float64))
			want, tolerance := rec.K6Requests, int64(0)
			if rec.K6VusMax != nil && *rec.K6VusMax == 0 && rec.K6VusMaxGauge != nil && *rec.K6VusMaxGauge > 0 {
				// An arrival-rate run: k6 starts an arrival at the very end
				// of the duration or not, run to run (15 and 16 for 5/s × 3s).
				tolerance = 1
			}
			if got < want-tolerance || got > want+tolerance {
				t.Errorf("%d requests, k6 sent %d (±%d) with %s", got, want, tolerance, rec.K6Command)
			}
			for k6Says, oursSays := range k6WarningSays {
				k6Warned := strings.Contains(strings.Join(rec.K6Warnings, "\n"), k6Says)
				if k6Warned != strings.Contains(out.String(), oursSays) {
					t.Errorf("k6 warned %q: %v; ours said %q: %v\n%s", k6Says, k6Warned, oursSays, !k6Warned, out.String())
				}
			}
			if len(rec.K6Warnings) == 0 && strings.Contains(out.String(), "warning") {
				t.Errorf("k6 did not warn; ours did:\n%s", out.String())
			}
			checkRowSpecifics(t, dir, &rec, ours)
		})
	}
}

// checkRowSpecifics compares what a row is about beyond the exit status
// and the count: the empty submetric as k6 exported it, the vus gauge.
func checkRowSpecifics(t *testing.T, dir string, rec *k6Recording, ours map[string]map[string]any) {
	theirs := exportMetrics(t, filepath.Join(dir, "summary.json"))
	for _, gauge := range []string{"vus", "vus_max"} {
		_, k6Has := theirs[gauge]
		if _, has := ours[gauge]; has != k6Has {
			t.Errorf("%s in the export: ours %v, k6's %v (k6 leaves out a gauge it never sampled)", gauge, has, k6Has)
		}
	}
	for name, k6m := range theirs {
		if _, judged := k6m["thresholds"]; !judged || !strings.Contains(name, "{") {
			continue // a submetric a threshold made: the empty one of its row
		}
		om, ok := ours[name]
		if !ok {
			t.Errorf("submetric %s: k6 exported it, ours did not", name)
			continue
		}
		for stat, v := range k6m {
			if stat == "thresholds" {
				continue
			}
			if om[stat] != v {
				t.Errorf("%s %s: ours %v, k6's %v", name, stat, om[stat], v)
			}
		}
		if o, k := om["thresholds"], k6m["thresholds"]; !jsonEqual(o, k) {
			t.Errorf("%s thresholds: ours %v, k6's %v", name, o, k)
		}
	}
	if rec.K6VusMaxGauge != nil && rec.K6VusMax != nil && *rec.K6VusMax < *rec.K6VusMaxGauge {
		// k6 counts in vus only the VUs running an iteration; at 5/s of
		// 100 ms each, at most one at a time.
		vus, vusMax := ours["vus"]["max"].(float64), ours["vus_max"]["max"].(float64)
		if vus > 1 || vusMax != *rec.K6VusMaxGauge {
			t.Errorf("vus max %v (want ≤ 1; k6 %v), vus_max %v (k6 %v)", vus, *rec.K6VusMax, vusMax, *rec.K6VusMaxGauge)
		}
	}
}

func exportMetrics(t *testing.T, file string) map[string]map[string]any {
	var doc struct {
		Metrics map[string]map[string]any `json:"metrics"`
	}
	readJSON(t, file, &doc)
	return doc.Metrics
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
