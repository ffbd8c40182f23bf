package diagnose

import (
	"errors"
	"io"

	"github.com/middlebench/middlebench/bench/chart"
)

// WriteChart draws what a person would rather see than read, as SVG or PNG: the
// steps of a sweep as curves (throughput, then latency against the
// server's own time, per step) when there is one report with steps;
// otherwise each report's average phases as a stacked bar, so that runs
// given together (straight at the server, through the path) sit side by
// side. labels name the reports.
func WriteChart(w io.Writer, format chart.Format, reports []Report, labels []string) error {
	if len(reports) == 0 || len(reports) != len(labels) {
		return errors.New("chart: one label per report, at least one report")
	}
	var fig *chart.Figure
	var err error
	if len(reports) == 1 && len(reports[0].Steps) >= 2 {
		fig, err = stepChart(labels[0], reports[0].Steps)
	} else {
		fig, err = phaseChart(reports, labels)
	}
	if err != nil {
		return err
	}
	return fig.Encode(w, format)
}

// phaseChart stacks each report's average phases, as the harness does.
func phaseChart(reports []Report, labels []string) (*chart.Figure, error) {
	bars := make([]chart.PhaseBar, len(reports))
	for i, r := range reports {
		p := r.Phases
		bars[i] = chart.PhaseBar{Label: labels[i], Blocked: p.Blocked.Avg, Sending: p.Sending.Avg, Waiting: p.Waiting.Avg,
			Queue: p.ServerQueue.Avg, Server: p.Server.Avg, Receiving: p.Receiving.Avg, NoServer: !p.Server.Present()}
	}
	return chart.PhaseBars("where the time went", bars, nil)
}

// stepChart draws a sweep against its load per step: arrivals per second
// for an open model, VUs for a closed one, or the step's number when the
// load does not only rise (a ramp down would fold the curve back).
func stepChart(title string, steps []StepRow) (*chart.Figure, error) {
	x := make([]float64, len(steps))
	xa := chart.XAxis{Label: "VUs"}
	open := false
	for _, s := range steps {
		open = open || s.Rate > 0
	}
	if open {
		xa.Label = "arrivals/s"
	}
	rising := true
	for i, s := range steps {
		x[i] = s.VUs
		if open {
			x[i] = s.Rate
		}
		rising = rising && (i == 0 || x[i] > x[i-1])
	}
	if !rising {
		xa.Label = "step"
		for i := range x {
			x[i] = float64(i + 1)
		}
	}
	// Doubling steps (1, 2, 4, … VUs) read best on a log axis.
	xa.Log = rising && len(x) >= 3 && x[0] > 0
	for i := 1; i < len(x) && xa.Log; i++ {
		xa.Log = x[i]/x[i-1] >= 1.9
	}
	col := func(f func(StepRow) float64) []float64 {
		out := make([]float64, len(steps))
		for i, s := range steps {
			out[i] = f(s)
		}
		return out
	}
	latency := chart.Panel{YLabel: "ms", Lines: []chart.Line{
		{Name: "duration p95", Y: col(func(s StepRow) float64 { return s.DurationP95 })},
		{Name: "waiting", Y: col(func(s StepRow) float64 { return s.WaitingAvg })},
		{Name: "receiving", Y: col(func(s StepRow) float64 { return s.ReceivingAvg })},
	}}
	server := col(func(s StepRow) float64 { return s.ServerTimeP95 })
	for _, v := range server {
		if v > 0 {
			latency.Lines = append(latency.Lines, chart.Line{Name: "server time p95", Y: server})
			break
		}
	}
	throughput := chart.Panel{YLabel: "requests/s", Lines: []chart.Line{
		{Name: "requests/s", Y: col(func(s StepRow) float64 { return s.RPS })},
	}}
	return chart.Lines(title+": per step", xa, x, []chart.Panel{throughput, latency})
}
