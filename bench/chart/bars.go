package chart

import (
	"errors"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layer is one segment of every stacked bar: its name and one value per bar.
type Layer struct {
	Name   string
	Values []float64
}

// palette gives the phases fixed colours across every chart, so a reader
// learns them once; other names take the fallback colours in order.
var palette = map[string]color.RGBA{
	"blocked":            {0x9e, 0x9e, 0x9e, 0xff},
	"sending":            {0x42, 0x85, 0xf4, 0xff},
	"outside the server": {0xf4, 0xa2, 0x42, 0xff},
	"server time":        {0x34, 0xa8, 0x53, 0xff},
	"server queue":       {0xa5, 0xd6, 0xa7, 0xff},
	"server time p95":    {0x34, 0xa8, 0x53, 0xff},
	"waiting":            {0xf4, 0xa2, 0x42, 0xff},
	"receiving":          {0x9c, 0x27, 0xb0, 0xff},
}

var fallback = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
}

func colorFor(name string, i int) color.Color {
	if c, ok := palette[name]; ok {
		return c
	}
	return fallback[i%len(fallback)]
}

// visible is the share of the axis a layer must reach in some bar to be
// named in the legend: about a point at the figure's width.
const visible = 0.002

// StackedBars draws one horizontal bar per label, its layers stacked left
// to right in the order given, with refs as dashed vertical lines. A layer
// that is 0 in every bar is left out; one too thin to see is drawn but
// not named.
func StackedBars(title, unit string, labels []string, layers []Layer, refs []Ref) (*Figure, error) {
	if len(labels) == 0 || len(layers) == 0 {
		return nil, errors.New("chart: stacked bars need at least one bar and one layer")
	}
	totals := make([]float64, len(labels))
	for _, l := range layers {
		if len(l.Values) != len(labels) {
			return nil, fmt.Errorf("chart: layer %q has %d values for %d bars", l.Name, len(l.Values), len(labels))
		}
		for j, v := range l.Values {
			totals[j] += max(finite(v), 0)
		}
	}
	axis := 1e-3
	for _, t := range totals {
		axis = max(axis, t)
	}
	for _, r := range refs {
		axis = max(axis, finite(r.Value))
	}
	// The first bar on top, where a reader starts: gonum counts from the bottom.
	labels = fitLabels(labels, maxLabelWidth)
	slices.Reverse(labels)
	p := newPlot()
	p.X.Label.Text = unit
	leg := newLegendBox()
	var prev *plotter.BarChart
	for i, l := range layers {
		vals := make(plotter.Values, len(l.Values))
		peak := 0.0
		for j, v := range l.Values {
			vals[len(vals)-1-j] = max(finite(v), 0)
			peak = max(peak, max(finite(v), 0))
		}
		if peak == 0 {
			continue
		}
		b, err := plotter.NewBarChart(vals, vg.Points(18))
		if err != nil {
			return nil, fmt.Errorf("chart: layer %q: %w", l.Name, err)
		}
		b.Horizontal = true
		b.LineStyle.Width = 0
		b.Color = colorFor(l.Name, i)
		if prev != nil {
			b.StackOn(prev)
		}
		prev = b
		p.Add(b)
		if peak >= visible*axis {
			leg.add(l.Name, b)
		}
	}
	for i, r := range refs {
		ln, err := plotter.NewLine(plotter.XYs{{X: r.Value, Y: -0.5}, {X: r.Value, Y: float64(len(labels)) - 0.5}})
		if err != nil {
			return nil, fmt.Errorf("chart: reference %q: %w", r.Name, err)
		}
		ln.LineStyle = refStyle(i)
		p.Add(ln)
		leg.add(r.Name, ln)
	}
	p.X.Min, p.X.Max = 0, axis*1.04
	p.NominalY(labels...)
	p.Y.Padding = vg.Points(10)
	height := vg.Length(12+7*len(labels))*vg.Millimeter + 30*vg.Millimeter
	return &Figure{width: figureWidth, height: height, draw: func(dc draw.Canvas) layout {
		dc = drawTitle(dc, title)
		area, strip := split(dc, leg.width())
		p.Draw(area)
		box := leg.drawIn(dc, strip)
		return layout{data: []vg.Rectangle{dataArea(p, area)}, legends: []vg.Rectangle{box}, entries: [][]string{leg.n}}
	}}, nil
}

// maxLabelWidth keeps the bars' labels to a third of the figure's width, so
// long names (file paths) leave room for the data.
const maxLabelWidth = figureWidth / 3

// fitLabels shortens labels wider than width by cutting out their middle
// ("/work/…/through_the_path/summary-export.json" keeps both ends).
func fitLabels(labels []string, width vg.Length) []string {
	sty := textStyle(10) // gonum's tick label size
	out := make([]string, len(labels))
	for i, l := range labels {
		r := []rune(l)
		for cut := 1; textWidth(sty, l) > width && cut < len(r); cut++ {
			head := (len(r) - cut) / 3
			l = string(r[:head]) + "…" + string(r[head+cut:])
		}
		out[i] = l
	}
	return out
}

// PhaseBar is one run's average phases (ms), for PhaseBars.
type PhaseBar struct {
	Label                                               string
	Blocked, Sending, Waiting, Queue, Server, Receiving float64
	// NoServer: the run has no server time, so waiting cannot be split
	// (its layer says so instead of "outside the server").
	NoServer bool
}

// PhaseBars stacks each run's averages: connection setup first (it is not
// part of duration, but a new connection pays it), then sending, waiting
// split into the time outside the server, its queue and its own time, then
// receiving.
func PhaseBars(title string, bars []PhaseBar, refs []Ref) (*Figure, error) {
	labels, layers := phaseLayers(bars)
	return StackedBars(title, "ms (averages; blocked is outside duration)", labels, layers, refs)
}

func phaseLayers(bars []PhaseBar) ([]string, []Layer) {
	labels := make([]string, len(bars))
	layers := []Layer{{Name: "blocked"}, {Name: "sending"}, {Name: "outside the server"}, {Name: "server queue"}, {Name: "server time"},
		{Name: "waiting (no server time)"}, {Name: "receiving"}}
	for i, b := range bars {
		labels[i] = b.Label
		// Fast rejections never reach the server: its time cannot exceed waiting.
		server := min(b.Server, b.Waiting)
		queue := min(b.Queue, b.Waiting-server)
		vals := []float64{b.Blocked, b.Sending, b.Waiting - server - queue, queue, server, 0, b.Receiving}
		if b.NoServer {
			vals[2], vals[5] = 0, b.Waiting
		}
		for j := range layers {
			layers[j].Values = append(layers[j].Values, vals[j])
		}
	}
	return labels, layers
}
