package diagnose

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/chart"
)

func TestWriteChart(t *testing.T) {
	sweep := Report{Steps: []StepRow{
		{VUs: 1, RPS: 10, DurationP95: 110, WaitingAvg: 100, ReceivingAvg: 5, ServerTimeP95: 100},
		{VUs: 4, RPS: 38, DurationP95: 140, WaitingAvg: 100, ReceivingAvg: 30, ServerTimeP95: 100},
		{VUs: 16, RPS: 40, DurationP95: 450, WaitingAvg: 100, ReceivingAvg: 300, ServerTimeP95: 100},
	}}
	rampDown := Report{Steps: []StepRow{{VUs: 4, RPS: 38}, {VUs: 16, RPS: 40}, {VUs: 4, RPS: 38}}}
	open := Report{Steps: []StepRow{{Rate: 100, RPS: 100}, {Rate: 200, RPS: 199}}}
	var direct, path Report
	direct.Phases.Waiting, direct.Phases.Server = Stat{Avg: 120}, Stat{Avg: 120}
	path.Phases.Waiting, path.Phases.Server = Stat{Avg: 570}, Stat{Avg: 120}
	tests := []struct {
		name    string
		reports []Report
		labels  []string
		want    []string // in the SVG
		wantErr bool
	}{
		{"sweep", []Report{sweep}, []string{"e4.json"}, []string{"e4.json: per step", "requests/s", "VUs", "server time p95", "receiving"}, false},
		{"sweep that ramps down", []Report{rampDown}, []string{"r"}, []string{">step<"}, false},
		{"open sweep", []Report{open}, []string{"o"}, []string{"arrivals/s"}, false},
		{"runs side by side", []Report{direct, path}, []string{"straight", "through the path"}, []string{"where the time went", "straight", "through the path", "outside the server"}, false},
		{"nothing", nil, nil, nil, true},
		{"labels missing", []Report{direct}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WriteChart(&b, chart.SVG, tt.reports, tt.labels)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			svg := b.String()
			if !tt.wantErr && !strings.HasPrefix(svg, "<?xml") {
				t.Errorf("not an SVG: %.60q", svg)
			}
			for _, w := range tt.want {
				if !strings.Contains(svg, w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
		})
	}
}

// TestChartFilePNG: analyze --chart x.png writes a PNG, x.svg an SVG, and
// another name is refused before anything is written.
func TestChartFilePNG(t *testing.T) {
	dir := t.TempDir()
	var r Report
	r.Phases.Waiting, r.Phases.Server = Stat{Avg: 570}, Stat{Avg: 120}
	pngPath := filepath.Join(dir, "x.png")
	if err := writeChartFile(pngPath, []Report{r}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("x.png is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
		t.Errorf("PNG %v: too small to read", b)
	}
	if err := writeChartFile(filepath.Join(dir, "x.jpg"), []Report{r}, []string{"run"}); err == nil || !strings.Contains(err.Error(), ".svg or .png") {
		t.Errorf("x.jpg: %v, want the formats named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jpg")); !os.IsNotExist(err) {
		t.Errorf("x.jpg was written: %v", err)
	}
}

func TestShortLabels(t *testing.T) {
	got := shortLabels([]string{"runs/a/summary.json", "runs/b/summary.json", "/tmp/points.json.gz"})
	want := []string{"runs/a/summary.json", "runs/b/summary.json", "points.json.gz"}
	if !slices.Equal(got, want) {
		t.Errorf("shortLabels = %q, want %q", got, want)
	}
}
