// Package chart draws the figures of RESULTS.md as SVG with gonum/plot:
// stacked phase bars per run, and line panels per sweep step. It knows
// nothing of experiments: it takes names and numbers.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
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

// StackedBars draws one horizontal bar per label, its layers stacked left
// to right in the order given, and writes the SVG to w.
func StackedBars(w io.Writer, title, unit string, labels []string, layers []Layer) error {
	if len(labels) == 0 || len(layers) == 0 {
		return errors.New("chart: stacked bars need at least one bar and one layer")
	}
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = unit
	p.X.Min = 0
	p.Legend.Top = true
	p.Legend.Left = false
	height := vg.Length(12 + 7*len(labels))
	var prev *plotter.BarChart
	totals := make([]float64, len(labels))
	for i, l := range layers {
		if len(l.Values) != len(labels) {
			return fmt.Errorf("chart: layer %q has %d values for %d bars", l.Name, len(l.Values), len(labels))
		}
		vals := make(plotter.Values, len(l.Values))
		for j, v := range l.Values {
			vals[j] = max(finite(v), 0)
			totals[j] += vals[j]
		}
		b, err := plotter.NewBarChart(vals, vg.Points(18))
		if err != nil {
			return fmt.Errorf("chart: layer %q: %w", l.Name, err)
		}
		b.Horizontal = true
		b.LineStyle.Width = 0
		b.Color = colorFor(l.Name, i)
		if prev != nil {
			b.StackOn(prev)
		}
		prev = b
		p.Add(b)
		p.Legend.Add(l.Name, b)
	}
	// Leave the right third free for the legend, so it never hides a bar.
	longest := 0.0
	for _, t := range totals {
		longest = max(longest, t)
	}
	p.X.Max = max(longest, 1e-3) * 1.45
	p.NominalY(labels...)
	p.Y.Padding = vg.Points(10)
	return save(w, p, 18*vg.Centimeter, height*vg.Millimeter+40*vg.Millimeter)
}

// PhaseBar is one run's average phases (ms), for PhaseBars.
type PhaseBar struct {
	Label                                               string
	Blocked, Sending, Waiting, Queue, Server, Receiving float64
}

// PhaseBars stacks each run's averages: connection setup first (it is not
// part of duration, but a new connection pays it), then sending, waiting
// split into the time outside the server, its queue and its own time, then
// receiving.
func PhaseBars(w io.Writer, title string, bars []PhaseBar) error {
	labels, layers := phaseLayers(bars)
	return StackedBars(w, title, "ms (averages; blocked is outside duration)", labels, layers)
}

func phaseLayers(bars []PhaseBar) ([]string, []Layer) {
	labels := make([]string, len(bars))
	layers := []Layer{{Name: "blocked"}, {Name: "sending"}, {Name: "outside the server"}, {Name: "server queue"}, {Name: "server time"}, {Name: "receiving"}}
	for i, b := range bars {
		labels[i] = b.Label
		// Fast rejections never reach the server: its time cannot exceed waiting.
		server := min(b.Server, b.Waiting)
		queue := min(b.Queue, b.Waiting-server)
		vals := []float64{b.Blocked, b.Sending, b.Waiting - server - queue, queue, server, b.Receiving}
		for j := range layers {
			layers[j].Values = append(layers[j].Values, vals[j])
		}
	}
	return labels, layers
}

// Line is one series of a Panel.
type Line struct {
	Name string
	Y    []float64
}

// Panel is one plot of a Lines figure, with its own y axis.
type Panel struct {
	YLabel string
	Lines  []Line
	LogY   bool // for curves that go flat then off a cliff (seed 003: 43 ms → 4 s)
}

// XAxis is the shared x axis of a Lines figure.
type XAxis struct {
	Label string
	Log   bool // for doubling steps: 1, 2, 4, … 32 VUs
}

// Lines draws panels stacked vertically over one shared x axis (VUs or
// arrival rate per step) and writes the SVG to w.
func Lines(w io.Writer, title string, xa XAxis, x []float64, panels []Panel) error {
	if len(x) == 0 || len(panels) == 0 {
		return errors.New("chart: lines need x values and at least one panel")
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := newPlot()
		if i == 0 {
			p.Title.Text = title
		}
		p.X.Label.Text = xa.Label
		if xa.Log {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.ConstantTicks(stepTicks(x))
		}
		p.Y.Label.Text = pn.YLabel
		p.Legend.Top = true
		p.Legend.Left = true
		if pn.LogY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		for j, l := range pn.Lines {
			if len(l.Y) != len(x) {
				return fmt.Errorf("chart: line %q has %d values for %d x values", l.Name, len(l.Y), len(x))
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
				return fmt.Errorf("chart: line %q: %w", l.Name, err)
			}
			c := colorFor(l.Name, j)
			ln.Color, pts.Color = c, c
			ln.Width = vg.Points(1.5)
			p.Add(ln, pts)
			p.Legend.Add(l.Name, ln, pts)
		}
		p.Add(plotter.NewGrid())
		plots[i] = []*plot.Plot{p}
	}
	width, height := 18*vg.Centimeter, vg.Length(len(panels))*7*vg.Centimeter
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	return writeSVG(w, c)
}

func save(w io.Writer, p *plot.Plot, width, height vg.Length) error {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	return writeSVG(w, c)
}

// sansFont is Liberation Sans, metric-compatible with Arial and Helvetica:
// text laid out with its metrics fits when a viewer substitutes either.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// writeSVG writes the canvas, naming fallback fonts after Liberation Sans
// so that a page without it (a code-hosting site) lays text out the same.
func writeSVG(w io.Writer, c *vgsvg.Canvas) error {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fmt.Errorf("chart: write svg: %w", err)
	}
	out := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("chart: write svg: %w", err)
	}
	return nil
}

// newPlot returns a plot whose every text uses sansFont.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font = font.From(sansFont, st.Font.Size)
	}
	return p
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// powersOfTwo labels a log axis at the x values themselves (the steps).
func stepTicks(x []float64) []plot.Tick {
	ticks := make([]plot.Tick, 0, len(x))
	for _, v := range x {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	return ticks
}
