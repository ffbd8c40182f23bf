package chart

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one series of a Panel.
type Line struct {
	Name string
	Y    []float64
}

// Panel is one plot of a Lines figure, with its own y axis and the
// reference values drawn across it.
type Panel struct {
	YLabel string
	Lines  []Line
	LogY   bool // for curves that go flat then off a cliff (seed 003: 43 ms → 4 s)
	Refs   []Ref
}

// XAxis is the shared x axis of a Lines figure.
type XAxis struct {
	Label string
	Log   bool // for doubling steps: 1, 2, 4, … 32 VUs
}

// seriesStyles keep overlapping series apart without colour: each has its
// own dash pattern and marker.
var seriesStyles = []struct {
	dashes []vg.Length
	glyph  draw.GlyphDrawer
}{
	{nil, draw.CircleGlyph{}},
	{[]vg.Length{vg.Points(6), vg.Points(3)}, draw.SquareGlyph{}},
	{[]vg.Length{vg.Points(2), vg.Points(2)}, draw.TriangleGlyph{}},
	{[]vg.Length{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}, draw.CrossGlyph{}},
	{[]vg.Length{vg.Points(4), vg.Points(4)}, draw.PlusGlyph{}},
}

// Lines draws panels stacked vertically over one shared x axis (VUs or
// arrival rate per step). A linear y axis starts at 0.
func Lines(title string, xa XAxis, x []float64, panels []Panel) (*Figure, error) {
	if len(x) == 0 || len(panels) == 0 {
		return nil, errors.New("chart: lines need x values and at least one panel")
	}
	plots := make([][]*plot.Plot, len(panels))
	legends := make([]*legendBox, len(panels))
	legendW := vg.Length(0)
	for i, pn := range panels {
		p, leg, err := panelPlot(xa, x, pn)
		if err != nil {
			return nil, err
		}
		plots[i], legends[i] = []*plot.Plot{p}, leg
		legendW = max(legendW, leg.width())
	}
	width, height := figureWidth, vg.Length(len(panels))*7*vg.Centimeter+12*vg.Millimeter
	return &Figure{width: width, height: height, draw: func(dc draw.Canvas) layout {
		dc = drawTitle(dc, title)
		area, strip := split(dc, legendW)
		tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 4 * vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: 2 * vg.Millimeter}
		canvases := plot.Align(plots, tiles, area)
		var l layout
		for i := range plots {
			c := canvases[i][0]
			plots[i][0].Draw(c)
			r := strip
			r.Min.Y, r.Max.Y = c.Min.Y, c.Max.Y
			l.data = append(l.data, dataArea(plots[i][0], c))
			l.legends = append(l.legends, legends[i].drawIn(dc, r))
			l.entries = append(l.entries, legends[i].n)
		}
		return l
	}}, nil
}

func panelPlot(xa XAxis, x []float64, pn Panel) (*plot.Plot, *legendBox, error) {
	p := newPlot()
	p.X.Label.Text = xa.Label
	if xa.Log {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if spaced(x, xa.Log) {
		p.X.Tick.Marker = plot.ConstantTicks(stepTicks(x)) // ticks where the steps are
	}
	p.Y.Label.Text = pn.YLabel
	if pn.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	leg := newLegendBox()
	// References first: under the data, which stays visible on them.
	var refLegend []func()
	for i, r := range pn.Refs {
		if pn.LogY && r.Value <= 0 {
			continue
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: x[0], Y: r.Value}, {X: x[len(x)-1], Y: r.Value}})
		if err != nil {
			return nil, nil, fmt.Errorf("chart: reference %q: %w", r.Name, err)
		}
		ln.LineStyle = refStyle(i)
		p.Add(ln)
		refLegend = append(refLegend, func() { leg.add(r.Name, ln) })
	}
	for j, l := range pn.Lines {
		if len(l.Y) != len(x) {
			return nil, nil, fmt.Errorf("chart: line %q has %d values for %d x values", l.Name, len(l.Y), len(x))
		}
		xy := make(plotter.XYs, 0, len(x))
		for k := range x {
			y := finite(l.Y[k])
			if pn.LogY && y <= 0 {
				continue // a log axis cannot show 0
			}
			xy = append(xy, plotter.XY{X: x[k], Y: y})
		}
		if len(xy) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, nil, fmt.Errorf("chart: line %q: %w", l.Name, err)
		}
		st := seriesStyles[j%len(seriesStyles)]
		c := colorFor(l.Name, j)
		ln.Color, pts.Color = c, c
		ln.Width, ln.Dashes = vg.Points(1.5), st.dashes
		pts.Shape, pts.Radius = st.glyph, vg.Points(3)
		p.Add(ln, pts)
		leg.add(l.Name, ln, pts)
	}
	for _, add := range refLegend {
		add()
	}
	if !pn.LogY {
		p.Y.Min = 0
		p.Y.Max = max(p.Y.Max, 1e-3) * 1.05
	}
	return p, leg, nil
}

// minStepGap is the least distance between two steps, as a share of the
// axis, for each to get its own tick label (about three digits' width).
const minStepGap = 1.0 / 15

// spaced reports whether the steps are few and far enough apart on the
// axis (log or linear) to label each one.
func spaced(x []float64, log bool) bool {
	pos := func(v float64) float64 {
		if log {
			return math.Log(v)
		}
		return v
	}
	lo, hi := pos(x[0]), pos(x[len(x)-1])
	if len(x) < 2 || hi <= lo || (log && x[0] <= 0) {
		return false
	}
	for i := 1; i < len(x); i++ {
		if (pos(x[i])-pos(x[i-1]))/(hi-lo) < minStepGap {
			return false
		}
	}
	return true
}

// stepTicks labels the axis at the x values themselves (the steps).
func stepTicks(x []float64) []plot.Tick {
	ticks := make([]plot.Tick, 0, len(x))
	for _, v := range x {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	return ticks
}
