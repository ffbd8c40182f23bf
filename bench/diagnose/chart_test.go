package diagnose

import (
	"bytes"
	"slices"
	"strings"
	"testing"
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
			err := WriteChart(&b, tt.reports, tt.labels)
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

func TestShortLabels(t *testing.T) {
	got := shortLabels([]string{"runs/a/summary.json", "runs/b/summary.json", "/tmp/points.json.gz"})
	want := []string{"runs/a/summary.json", "runs/b/summary.json", "points.json.gz"}
	if !slices.Equal(got, want) {
		t.Errorf("shortLabels = %q, want %q", got, want)
	}
}
