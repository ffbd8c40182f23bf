package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/bench/chart"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/internal/atomicfile"
)

// drawCharts draws the charts an experiment asks for into dir and returns
// their file names.
func drawCharts(x *record.ExperimentResult, dir string) ([]string, error) {
	var names []string
	for i, spec := range x.Exp.Charts {
		runs := runsNamed(x, spec.Runs)
		if len(runs) == 0 {
			continue
		}
		title := spec.Title
		if title == "" {
			title = x.Exp.Title
		}
		var fig *chart.Figure
		var err error
		switch spec.Kind {
		case experiment.ChartPhases:
			fig, err = phaseBars(title, spec, runs)
		case experiment.ChartSweep:
			fig, err = sweepLines(title, spec, runs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: chart %d: %w", x.Exp.ID, i+1, err)
		}
		name := fmt.Sprintf("%s-%d-%s.svg", x.Exp.ID, i+1, spec.Kind)
		err = atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error { return fig.Encode(w, chart.SVG) })
		if err != nil {
			return nil, fmt.Errorf("%s: chart: %w", x.Exp.ID, err)
		}
		names = append(names, name)
	}
	return names, nil
}

func runsNamed(x *record.ExperimentResult, names []string) []*record.RunResult {
	if len(names) == 0 {
		return x.Runs
	}
	var out []*record.RunResult
	for _, n := range names {
		for _, r := range x.Runs {
			if r.Spec.Name == n {
				out = append(out, r)
			}
		}
	}
	return out
}

// refs evaluates a chart's reference lines (on panel, for a sweep), each
// named with its value in the axis's unit.
func refs(spec experiment.ChartSpec, panel, unit string) []chart.Ref {
	var out []chart.Ref
	for _, r := range spec.Refs {
		if r.Panel == panel || r.Panel == "" && panel == "lines" {
			v, _ := experiment.EvalExpr(r.Value) // validated when the file was read
			out = append(out, chart.Ref{Name: fmt.Sprintf("%s = %s %s", r.Label, strconv.FormatFloat(v, 'g', 4, 64), unit), Value: v})
		}
	}
	return out
}

// phaseBars stacks each run's average phases (chart.PhaseBars).
func phaseBars(title string, spec experiment.ChartSpec, runs []*record.RunResult) (*chart.Figure, error) {
	bars := make([]chart.PhaseBar, len(runs))
	for i, r := range runs {
		avg := func(metric string) float64 { return zeroNaN(phaseValue(r, metric, "avg")) }
		bars[i] = chart.PhaseBar{Label: r.Spec.Name,
			Blocked: avg("http_req_blocked"), Sending: avg("http_req_sending"), Waiting: avg("http_req_waiting"),
			Queue: avg("server_queue"), Server: avg("server_time"), Receiving: avg("http_req_receiving")}
	}
	return chart.PhaseBars(title, bars, refs(spec, "", "ms"))
}

// sweepLines draws the chosen series per step, against the steps' target
// VUs or arrival rate.
func sweepLines(title string, spec experiment.ChartSpec, runs []*record.RunResult) (*chart.Figure, error) {
	r := runs[0]
	steps := r.Doc.Steps
	if len(steps) == 0 {
		return nil, fmt.Errorf("run %q has no steps to draw", r.Spec.Name)
	}
	x := make([]float64, len(steps))
	xa := chart.XAxis{Label: "VUs", Log: spec.LogX}
	for i, s := range steps {
		if spec.X == "rate" {
			x[i], xa.Label = s.Rate, "arrival rate (req/s)"
		} else {
			x[i] = float64(s.VUs)
		}
	}
	panel := func(series []string) (chart.Panel, error) {
		p := chart.Panel{LogY: spec.LogY && !onlyRates(series)}
		for _, name := range series {
			ys := make([]float64, len(steps))
			for i := range steps {
				v, err := r.Lookup(fmt.Sprintf("step %d %s", i+1, name))
				if err != nil {
					return p, err
				}
				ys[i] = v
			}
			p.Lines = append(p.Lines, chart.Line{Name: seriesLabel(name), Y: ys})
		}
		p.YLabel = "ms"
		if onlyRates(series) {
			p.YLabel = "req/s"
		}
		return p, nil
	}
	var panels []chart.Panel
	for i, s := range [][]string{spec.Lines, spec.Panel} {
		if len(s) == 0 {
			continue
		}
		p, err := panel(s)
		if err != nil {
			return nil, err
		}
		p.Refs = refs(spec, []string{"lines", "panel"}[i], p.YLabel)
		panels = append(panels, p)
	}
	return chart.Lines(title, xa, x, panels)
}

func onlyRates(series []string) bool {
	for _, s := range series {
		if s != "tps" && s != "rate" {
			return false
		}
	}
	return true
}

// seriesLabel names a series as a reader says it: "server_time p(95)" →
// "server p95".
func seriesLabel(s string) string {
	if s == "rate" {
		return "offered (the arrival rate)"
	}
	r := strings.NewReplacer("http_req_", "", "server_time", "server", "tps", "throughput", "(", "", ")", "")
	return r.Replace(s)
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
