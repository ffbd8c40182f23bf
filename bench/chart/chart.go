// Package chart draws the figures of RESULTS.md and of analyze --chart
// with gonum/plot, as SVG or PNG: stacked phase bars per run, and line
// panels per sweep step. It knows nothing of experiments: it takes names
// and numbers, and the reference values a reader compares them with.
//
// Every figure keeps its text inside the canvas (a title too long for it
// wraps), its legend beside the data (never on it), and lists only what
// it draws; the same input gives the same bytes.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is how a figure is encoded.
type Format string

// The formats a figure writes.
const (
	SVG Format = "svg"
	PNG Format = "png"
)

// FormatOf picks the format from a file name's extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	}
	return "", fmt.Errorf("chart %s: want a .svg or .png file name", path)
}

// Ref is a reference value drawn across the data as a dashed line: what
// the experiment configured (a cap, the server's work) or the article's
// figure, named in the legend.
type Ref struct {
	Name  string
	Value float64
}

// Figure is a drawn chart, ready to encode.
type Figure struct {
	width, height vg.Length
	draw          func(dc draw.Canvas) layout
}

// layout is where a figure put its parts, for tests that keep them apart.
type layout struct {
	data    []vg.Rectangle // each plot's data area
	legends []vg.Rectangle // each legend's box
	entries [][]string     // each legend's entries
}

// Encode writes the figure in format.
func (f *Figure) Encode(w io.Writer, format Format) error {
	switch format {
	case SVG:
		c := vgsvg.New(f.width, f.height)
		f.draw(draw.New(c))
		return writeSVG(w, c)
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
		f.draw(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
			return fmt.Errorf("chart: write png: %w", err)
		}
		return nil
	}
	return fmt.Errorf("chart: format %q: want svg or png", format)
}

// sansFont is Liberation Sans, embedded in gonum/plot (so a PNG renders
// the same on any machine) and metric-compatible with Arial and
// Helvetica (so an SVG viewer without it lays the text out the same).
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// writeSVG writes the canvas, naming fallback fonts after Liberation Sans.
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

// fallbackWidth is how much wider than Liberation Sans (and so Arial and
// Helvetica) the sans-serif a fresh Debian machine has, DejaVu Sans
// (fonts-dejavu-core), sets the figures' texts: 1.14–1.17× on their labels,
// titles and legends (measured against DejaVuSans.ttf 2.37). An SVG viewer
// with none of the fonts named falls back to it, so wherever a text's width
// decides a size — the legend's strip, a title's wrap, a bar label's cut —
// the layout leaves room for the wider font (textWidth).
const fallbackWidth = 1.2

// textWidth is the room s takes in sty in whichever font the viewer has.
func textWidth(sty text.Style, s string) vg.Length { return sty.Width(s) * fallbackWidth }

// textStyle is the sans font at size points, with the plain handler.
func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sansFont, size), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot whose every text uses sansFont and that draws no
// title or legend of its own (the figure places them).
func newPlot() *plot.Plot {
	p := plot.New()
	for _, st := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		st.Font = font.From(sansFont, st.Font.Size)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks{}, ticks{}
	return p
}

// wrap breaks s at spaces into lines no wider than width.
func wrap(sty text.Style, s string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		try := strings.TrimSpace(line + " " + w)
		if line != "" && textWidth(sty, try) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line = try
	}
	return append(lines, line)
}

// margin keeps every text and line off the canvas's edges.
const margin = 2 * vg.Millimeter

// drawTitle writes the title centred at the top of dc, wrapped to its
// width, and returns the canvas below it, inside the margins.
func drawTitle(dc draw.Canvas, title string) draw.Canvas {
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	sty := textStyle(12)
	// Centred on the room the line takes in the wider font: an SVG text
	// grows rightwards from its start in whichever font the viewer has.
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	pad := 2 * vg.Millimeter
	lineH := sty.Height("Ág") * 1.15
	y := dc.Max.Y - pad
	for _, l := range wrap(sty, title, dc.Size().X-2*pad) {
		dc.FillText(sty, vg.Point{X: (dc.Min.X+dc.Max.X)/2 - textWidth(sty, l)/2, Y: y}, l)
		y -= lineH
	}
	below := dc
	below.Max.Y = y - pad
	return below
}

// ticks are gonum's default ticks labelled as a person writes numbers:
// 250, not 250.00.
type ticks struct{}

func (ticks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// legendBox is a legend drawn beside the data.
type legendBox struct {
	leg plot.Legend
	n   []string
}

func newLegendBox() *legendBox {
	l := plot.NewLegend()
	l.TextStyle = textStyle(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 8 * vg.Millimeter
	l.Padding = vg.Millimeter
	return &legendBox{leg: l}
}

func (b *legendBox) add(name string, thumbs ...plot.Thumbnailer) {
	b.leg.Add(name, thumbs...)
	b.n = append(b.n, name)
}

// width is what the legend needs beside the data.
func (b *legendBox) width() vg.Length {
	w := vg.Length(0)
	for _, n := range b.n {
		w = max(w, textWidth(b.leg.TextStyle, " "+n))
	}
	return w + b.leg.ThumbnailWidth + 3*vg.Millimeter
}

// drawIn draws the legend at the top of r and returns its box.
func (b *legendBox) drawIn(dc draw.Canvas, r vg.Rectangle) vg.Rectangle {
	c := draw.Canvas{Canvas: dc.Canvas, Rectangle: r}
	b.leg.Draw(c)
	box := b.leg.Rectangle(c)
	// Rectangle places a left legend at the right edge; it is drawn at the left.
	return vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: box.Min.Y}, Max: vg.Point{X: r.Min.X + (box.Max.X - box.Min.X), Y: box.Max.Y}}
}

// figureWidth is every figure's width: a page's, with room for labels, data and legend.
const figureWidth = 20 * vg.Centimeter

// legendGap is the space between the data and its legend.
const legendGap = 3 * vg.Millimeter

// split cuts dc into the part left for the plot and a strip of width w
// on its right for the legend.
func split(dc draw.Canvas, w vg.Length) (plotArea draw.Canvas, strip vg.Rectangle) {
	plotArea = dc
	plotArea.Max.X = dc.Max.X - w - legendGap
	strip = vg.Rectangle{Min: vg.Point{X: plotArea.Max.X + legendGap, Y: dc.Min.Y}, Max: dc.Max}
	return plotArea, strip
}

// dataArea is where p draws its data inside c.
func dataArea(p *plot.Plot, c draw.Canvas) vg.Rectangle {
	return p.DataCanvas(c).Rectangle
}

// refStyle is how reference lines look: dashed, dark, one dash pattern
// per reference so two of them stay apart.
func refStyle(i int) draw.LineStyle {
	dashes := [][]vg.Length{{vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}
	greys := []color.Color{color.RGBA{0x33, 0x33, 0x33, 0xff}, color.RGBA{0xc6, 0x28, 0x28, 0xff}, color.RGBA{0x6a, 0x1b, 0x9a, 0xff}}
	return draw.LineStyle{Color: greys[i%len(greys)], Width: vg.Points(1.2), Dashes: dashes[i%len(dashes)]}
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
