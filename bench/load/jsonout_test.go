package load

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

type ndLine struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Name       string            `json:"name"`
		Type       string            `json:"type"`
		Contains   string            `json:"contains"`
		Submetrics json.RawMessage   `json:"submetrics"`
		Tags       map[string]string `json:"tags"`
		Time       string            `json:"time"`
	} `json:"data"`
}

func readND(t *testing.T, r *bufio.Scanner) (metrics map[string]ndLine, tagKeys map[string][]string) {
	t.Helper()
	metrics, tagKeys = map[string]ndLine{}, map[string][]string{}
	for r.Scan() {
		var l ndLine
		if err := json.Unmarshal(r.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", r.Text(), err)
		}
		switch l.Type {
		case "Metric":
			metrics[l.Metric] = l
		case "Point":
			if _, err := time.Parse(time.RFC3339Nano, l.Data.Time); err != nil {
				t.Errorf("point time %q: %v", l.Data.Time, err)
			}
			if _, seen := tagKeys[l.Metric]; !seen {
				var keys []string
				for k := range l.Data.Tags {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				tagKeys[l.Metric] = keys
			}
		}
	}
	return metrics, tagKeys
}

// TestJSONOutputMatchesK6 compares the Metric lines and the tag keys of
// our --out json stream with a real k6 run's (testdata, from
// shared/k6-samples; k6's "group" tag value differs: that run used a group).
func TestJSONOutputMatchesK6(t *testing.T) {
	f, err := os.Open("testdata/k6-points.ndjson.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	k6Metrics, k6Tags := readND(t, bufio.NewScanner(gz))

	s := newServer(t, sleepyHandler(time.Millisecond))
	path := filepath.Join(t.TempDir(), "points.ndjson.gz")
	out, err := OpenStream(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), &Config{URL: s.URL, VUs: 2, Duration: dur(1200 * time.Millisecond)}, Options{JSON: out}); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("our file is not gzip: %v", err)
	}
	ours, ourTags := readND(t, bufio.NewScanner(zr))
	for name, k := range k6Metrics {
		if name == "checks" || name == "group_duration" {
			continue // middlebench runs no checks or groups
		}
		o, ok := ours[name]
		if !ok {
			t.Errorf("no Metric line for %s", name)
			continue
		}
		if o.Data.Type != k.Data.Type || o.Data.Contains != k.Data.Contains || string(o.Data.Submetrics) != string(k.Data.Submetrics) {
			t.Errorf("%s: ours %s/%s %s, k6 %s/%s %s", name, o.Data.Type, o.Data.Contains, o.Data.Submetrics, k.Data.Type, k.Data.Contains, k.Data.Submetrics)
		}
		if !slices.Equal(ourTags[name], k6Tags[name]) {
			t.Errorf("%s tags: ours %v, k6 %v", name, ourTags[name], k6Tags[name])
		}
	}
}
