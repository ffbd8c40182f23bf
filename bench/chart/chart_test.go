package chart

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
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

// drawn records a figure's drawing: its layout and every text drawn
// without rotation, with its box on the canvas.
type drawnText struct {
	s   string
	box vg.Rectangle
}

func record(t *testing.T, f *Figure) (layout, []drawnText) {
	t.Helper()
	rec := &recorder.Canvas{}
	l := f.draw(draw.NewCanvas(rec, f.width, f.height))
	var texts []drawnText
	depth, transformedAt := 0, -1 // texts under a Translate/Rotate (the y label) are left out
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.Push:
			depth++
		case *recorder.Pop:
			depth--
			if depth < transformedAt {
				transformedAt = -1
			}
		case *recorder.Rotate, *recorder.Translate:
			if transformedAt < 0 {
				transformedAt = depth
			}
		case *recorder.FillString:
			if transformedAt >= 0 {
				continue
			}
			face := font.DefaultCache.Lookup(a.Font, a.Size)
			ext := face.Extents()
			texts = append(texts, drawnText{s: a.String, box: vg.Rectangle{
				Min: vg.Point{X: a.Point.X, Y: a.Point.Y - ext.Descent},
				Max: vg.Point{X: a.Point.X + face.Width(a.String), Y: a.Point.Y + ext.Ascent}}})
		}
	}
	return l, texts
}

func inside(r, in vg.Rectangle) bool {
	const eps = 0.01
	return r.Min.X >= in.Min.X-eps && r.Min.Y >= in.Min.Y-eps && r.Max.X <= in.Max.X+eps && r.Max.Y <= in.Max.Y+eps
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// checkLegible is what a person looking at the figure needs: every text
// on the canvas, every legend beside (not on) the data, and the legends'
// entries exactly those given.
func checkLegible(t *testing.T, f *Figure, wantEntries [][]string) {
	t.Helper()
	l, texts := record(t, f)
	canvas := vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}
	if len(texts) == 0 {
		t.Fatal("no text drawn")
	}
	for _, tx := range texts {
		if !inside(tx.box, canvas) {
			t.Errorf("text %q at %v runs off the %v canvas", tx.s, tx.box, canvas.Max)
		}
		// An SVG text starts at its x whatever its alignment, so in the
		// wider fallback font it grows to the right.
		wide := tx.box
		wide.Max.X += (wide.Max.X - wide.Min.X) * (fallbackWidth - 1)
		if !inside(wide, canvas) {
			t.Errorf("text %q at %v runs off the %v canvas in a font %.2f× as wide (DejaVu Sans)", tx.s, wide, canvas.Max, fallbackWidth)
		}
	}
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			a, b := texts[i].box, texts[j].box
			a.Min.Y, a.Max.Y = a.Min.Y+0.5, a.Max.Y-0.5 // a line's descent may touch the next line's ascent
			if overlaps(a, b) {
				t.Errorf("texts %q %v and %q %v overlap", texts[i].s, texts[i].box, texts[j].s, texts[j].box)
			}
		}
	}
	for i, d := range l.data {
		if d.Size().X < f.width/3 {
			t.Errorf("data area %d is %v wide: less than a third of the figure (%v)", i, d.Size().X, f.width)
		}
	}
	for i, lg := range l.legends {
		if !inside(lg, canvas) {
			t.Errorf("legend %d at %v is off the canvas", i, lg)
		}
		for j, d := range l.data {
			if overlaps(lg, d) {
				t.Errorf("legend %d %v lies on data area %d %v", i, lg, j, d)
			}
		}
	}
	if !slices.EqualFunc(l.entries, wantEntries, slices.Equal[[]string]) {
		t.Errorf("legend entries %q, want %q", l.entries, wantEntries)
	}
}

// save writes the figure as SVG and PNG where CHART_OUT says, to look at.
func save(t *testing.T, f *Figure, name string) {
	dir := os.Getenv("CHART_OUT")
	if dir == "" {
		return
	}
	for _, format := range []Format{SVG, PNG} {
		var b bytes.Buffer
		if err := f.Encode(&b, format); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"."+string(format)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// e0Bars are E0's phases: a 450 ms device, 50 ms of work, and phases of
// tens of µs that no pixel can show.
var e0Bars = []PhaseBar{{Label: "through the device", Blocked: 0.03, Sending: 0.028, Waiting: 503, Server: 51.3, Receiving: 0.058}}

func TestPhaseBarsAreLegible(t *testing.T) {
	long := "E0 — 450 ms of inspection on the way, 50 ms in the server: the full summary, with a title longer than the canvas is wide"
	f, err := PhaseBars(long, e0Bars, []Ref{{Name: "configured: 450 ms + 50 ms", Value: 500}, {Name: "the article: 503.1 ms", Value: 503.1}})
	if err != nil {
		t.Fatal(err)
	}
	// The µs phases are drawn but too thin to name; the queue is 0: not drawn.
	checkLegible(t, f, [][]string{{"outside the server", "server time", "configured: 450 ms + 50 ms", "the article: 503.1 ms"}})
	var b bytes.Buffer
	if err := f.Encode(&b, SVG); err != nil {
		t.Fatal(err)
	}
	text := wellFormedSVG(t, b.Bytes())
	for _, want := range []string{"E0 — 450 ms", "wide", "through the device", "outside the server"} {
		if !strings.Contains(text, want) {
			t.Errorf("svg text lacks %q", want)
		}
	}
	if strings.Contains(text, "server queue") || strings.Contains(text, "sending") {
		t.Error("the legend names a layer nobody can see")
	}
	save(t, f, "e0")
}

// TestPathLabels: analyze --chart labels bars with file paths, which must
// not squeeze the data out of the figure.
func TestPathLabels(t *testing.T) {
	bars := []PhaseBar{
		{Label: "/work/shared/k6-runs/e11/straight_at_the_server/summary-export.json", Waiting: 120, Server: 120},
		{Label: "/work/shared/k6-runs/e11/through_the_path/summary-export.json", Waiting: 212, Server: 120},
	}
	f, err := PhaseBars("where the time went", bars, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkLegible(t, f, [][]string{{"outside the server", "server time"}})
	save(t, f, "paths")
}

func TestManyBarsWithLongLabels(t *testing.T) {
	bars := []PhaseBar{
		{Label: "RTT 150 ms, TLS 1.3, new connections", Blocked: 450, Waiting: 200, Server: 50},
		{Label: "RTT 150 ms, TLS 1.2, new connections", Blocked: 600, Waiting: 200, Server: 50},
		{Label: "RTT 150 ms, reuse", Blocked: 3, Waiting: 200, Server: 50, Sending: 2},
		{Label: "RTT 1 ms, new connections", Blocked: 4, Waiting: 52, Server: 50},
		{Label: "RTT 1 ms, reuse", Waiting: 52, Server: 50, Receiving: 3},
	}
	f, err := PhaseBars("rtt — distance", bars, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkLegible(t, f, [][]string{{"blocked", "sending", "outside the server", "server time", "receiving"}})
	save(t, f, "rtt")
}

// e4Lines is E4's sweep: waiting and the server's time equal, so one
// line lies on the other.
func e4Lines() (XAxis, []float64, []Panel) {
	x := []float64{1, 2, 4, 8, 16, 32}
	return XAxis{Label: "VUs", Log: true}, x, []Panel{
		{YLabel: "req/s", Lines: []Line{{Name: "throughput", Y: []float64{8, 16, 30, 38, 39.5, 40}}}, Refs: []Ref{{Name: "the cap: 10 MiB/s ÷ 256 KiB = 40/s", Value: 40}}},
		{YLabel: "ms", Lines: []Line{
			{Name: "receiving avg", Y: []float64{24, 25, 30, 100, 300, 695}},
			{Name: "waiting avg", Y: []float64{100.5, 100.6, 100.5, 100.8, 101, 101}},
			{Name: "server avg", Y: []float64{100.2, 100.3, 100.2, 100.4, 100.5, 100.5}},
		}, Refs: []Ref{{Name: "server work: 100 ms", Value: 100}}},
	}
}

func TestLinesAreLegible(t *testing.T) {
	xa, x, panels := e4Lines()
	f, err := Lines("E4: throughput and where the time goes, per VU step — a title that must wrap on the canvas", xa, x, panels)
	if err != nil {
		t.Fatal(err)
	}
	checkLegible(t, f, [][]string{
		{"throughput", "the cap: 10 MiB/s ÷ 256 KiB = 40/s"},
		{"receiving avg", "waiting avg", "server avg", "server work: 100 ms"},
	})
	save(t, f, "e4")
}

// TestOverlappingSeriesDiffer: two series at the same values still look
// different (dash pattern and marker), as a reader needs when waiting lies
// on the server's time.
func TestOverlappingSeriesDiffer(t *testing.T) {
	for i := 1; i < len(seriesStyles); i++ {
		if slices.Equal(seriesStyles[i].dashes, seriesStyles[i-1].dashes) || seriesStyles[i].glyph == seriesStyles[i-1].glyph {
			t.Errorf("series %d and %d look alike", i-1, i)
		}
	}
}

// TestLinearAxesStartAtZero: a throughput of 38–40/s is drawn against 0,
// not against 38.
func TestLinearAxesStartAtZero(t *testing.T) {
	xa, x, panels := e4Lines()
	p, _, err := panelPlot(xa, x, panels[0])
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max < 40 {
		t.Errorf("throughput axis %g..%g, want from 0 past the 40/s cap", p.Y.Min, p.Y.Max)
	}
}

// TestDeterministic: the same figure gives the same bytes, so charts do
// not change in git when nothing changed.
func TestDeterministic(t *testing.T) {
	xa, x, panels := e4Lines()
	var a, b bytes.Buffer
	for _, w := range []*bytes.Buffer{&a, &b} {
		f, err := Lines("E4", xa, x, panels)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Encode(w, SVG); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two drawings of one figure differ")
	}
}

func TestPNG(t *testing.T) {
	f, err := PhaseBars("E0", e0Bars, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Encode(&b, PNG); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 900 {
		t.Errorf("PNG %d px wide: want the 20 cm at 144 dpi (1134 px)", b.Dx())
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"x.svg": SVG, "a/b.PNG": PNG, "x.jpg": "", "x": ""} {
		got, err := FormatOf(name)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := StackedBars("t", "ms", []string{"a"}, []Layer{{Name: "x", Values: []float64{1, 2}}}, nil); err == nil || !strings.Contains(err.Error(), `layer "x" has 2 values for 1 bars`) {
		t.Errorf("mismatched layer: %v", err)
	}
	if _, err := StackedBars("t", "ms", nil, nil, nil); err == nil {
		t.Error("empty bars accepted")
	}
	if _, err := Lines("t", XAxis{Label: "x", Log: true}, []float64{1}, []Panel{{Lines: []Line{{Name: "y", Y: []float64{1, 2}}}}}); err == nil {
		t.Error("mismatched line accepted")
	}
}

// TestPhaseLayers: waiting splits into outside the server, its queue and
// its own time, none of which may exceed waiting.
func TestPhaseLayers(t *testing.T) {
	tests := []struct {
		name string
		bar  PhaseBar
		want []float64 // blocked, sending, outside, queue, server, waiting with no server time, receiving
	}{
		{"device in front", PhaseBar{Waiting: 500, Server: 50, Blocked: 1, Sending: 0.02, Receiving: 0.03}, []float64{1, 0.02, 450, 0, 50, 0, 0.03}},
		{"queued server", PhaseBar{Waiting: 800, Queue: 700, Server: 50}, []float64{0, 0, 50, 700, 50, 0, 0}},
		{"fast 429s", PhaseBar{Waiting: 27, Server: 50}, []float64{0, 0, 0, 0, 27, 0, 0}},
		{"queue beyond waiting", PhaseBar{Waiting: 60, Queue: 30, Server: 50}, []float64{0, 0, 0, 10, 50, 0, 0}},
		{"no server time", PhaseBar{Waiting: 40, Receiving: 1, NoServer: true}, []float64{0, 0, 0, 0, 0, 40, 1}},
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

// TestCrowdedSteps: steps too close to label one by one still give
// ticks that do not run into each other.
func TestCrowdedSteps(t *testing.T) {
	x := []float64{60, 61, 62, 100, 140, 170, 190, 200, 210}
	y := []float64{40, 41, 42, 43, 45, 56, 94, 400, 4068}
	f, err := Lines("s003 open", XAxis{Label: "arrival rate (req/s)"}, x, []Panel{{YLabel: "ms", LogY: true, Lines: []Line{{Name: "p95", Y: y}}}})
	if err != nil {
		t.Fatal(err)
	}
	checkLegible(t, f, [][]string{{"p95"}})
	save(t, f, "crowded")
}
