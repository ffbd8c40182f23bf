package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
)

// wellFormedSVG parses the output as XML and returns its text nodes.
func wellFormedSVG(t *testing.T, b []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var text strings.Builder
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
		case xml.CharData:
			text.Write(v)
			text.WriteByte(' ')
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return text.String()
}

func TestStackedBars(t *testing.T) {
	var b bytes.Buffer
	err := StackedBars(&b, "E3: where waiting goes", "ms", []string{"slow server", "inspecting device"}, []Layer{
		{Name: "sending", Values: []float64{0.03, 0.03}},
		{Name: "outside the server", Values: []float64{1, 452}},
		{Name: "server time", Values: []float64{502, 52}},
		{Name: "receiving", Values: []float64{0.06, 0.06}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text := wellFormedSVG(t, b.Bytes())
	for _, want := range []string{"E3: where waiting goes", "slow server", "inspecting device", "outside the server", "server time"} {
		if !strings.Contains(text, want) {
			t.Errorf("svg text lacks %q", want)
		}
	}
	if os.Getenv("CHART_OUT") != "" {
		_ = os.WriteFile(os.Getenv("CHART_OUT")+"/bars.svg", b.Bytes(), 0o644)
	}
}

func TestLines(t *testing.T) {
	var b bytes.Buffer
	err := Lines(&b, "seed 003: open model p95 per arrival rate", XAxis{Label: "arrival rate (req/s)"}, []float64{60, 100, 140, 170, 190, 210}, []Panel{
		{YLabel: "p95 (ms)", LogY: true, Lines: []Line{{Name: "k6 p95", Y: []float64{43, 40.1, 45.6, 56.3, 94.5, 4068}}, {Name: "server p95", Y: []float64{38, 38, 39, 40, 41, 42}}}},
		{YLabel: "req/s", Lines: []Line{{Name: "throughput", Y: []float64{60, 100, 140, 170, 190, 200}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text := wellFormedSVG(t, b.Bytes())
	for _, want := range []string{"k6 p95", "server p95", "throughput", "arrival rate (req/s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("svg text lacks %q", want)
		}
	}
	if os.Getenv("CHART_OUT") != "" {
		_ = os.WriteFile(os.Getenv("CHART_OUT")+"/lines.svg", b.Bytes(), 0o644)
	}
}

func TestBadInput(t *testing.T) {
	if err := StackedBars(io.Discard, "t", "ms", []string{"a"}, []Layer{{Name: "x", Values: []float64{1, 2}}}); err == nil || !strings.Contains(err.Error(), `layer "x" has 2 values for 1 bars`) {
		t.Errorf("mismatched layer: %v", err)
	}
	if err := StackedBars(io.Discard, "t", "ms", nil, nil); err == nil {
		t.Error("empty bars accepted")
	}
	if err := Lines(io.Discard, "t", XAxis{Label: "x", Log: true}, []float64{1}, []Panel{{Lines: []Line{{Name: "y", Y: []float64{1, 2}}}}}); err == nil {
		t.Error("mismatched line accepted")
	}
}

// TestPhaseLayers: waiting splits into outside the server, its queue and
// its own time, none of which may exceed waiting.
func TestPhaseLayers(t *testing.T) {
	tests := []struct {
		name string
		bar  PhaseBar
		want []float64 // blocked, sending, outside, queue, server, receiving
	}{
		{"device in front", PhaseBar{Waiting: 500, Server: 50, Blocked: 1, Sending: 0.02, Receiving: 0.03}, []float64{1, 0.02, 450, 0, 50, 0.03}},
		{"queued server", PhaseBar{Waiting: 800, Queue: 700, Server: 50}, []float64{0, 0, 50, 700, 50, 0}},
		{"fast 429s", PhaseBar{Waiting: 27, Server: 50}, []float64{0, 0, 0, 0, 27, 0}},
		{"queue beyond waiting", PhaseBar{Waiting: 60, Queue: 30, Server: 50}, []float64{0, 0, 0, 10, 50, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels, layers := phaseLayers([]PhaseBar{tt.bar})
			if len(labels) != 1 || len(layers) != len(tt.want) {
				t.Fatalf("%d labels, %d layers", len(labels), len(layers))
			}
			for i, l := range layers {
				if l.Values[0] != tt.want[i] {
					t.Errorf("%s = %v, want %v", l.Name, l.Values[0], tt.want[i])
				}
			}
		})
	}
}
