package diagnose

import (
	"errors"
	"io"

	"github.com/middlebench/middlebench/bench/chart"
)

// WriteChart draws what a person would rather see than read, as SVG: the
// steps of a sweep as curves (throughput, then latency against the
// server's own time, per step) when there is one report with steps;
// otherwise each report's average phases as a stacked bar, so that runs
// given together (straight at the server, through the path) sit side by
// side. labels name the reports.
func WriteChart(w io.Writer, reports []Report, labels []string) error {
	if len(reports) == 0 || len(reports) != len(labels) {
		return errors.New("chart: one label per report, at least one report")
	}
	if len(reports) == 1 && len(reports[0].Steps) >= 2 {
		return stepChart(w, labels[0], reports[0].Steps)
	}
	return phaseChart(w, reports, labels)
}

// phaseChart stacks each report's averages as the harness does: setup
// (outside duration, but every new connection pays it), sending, waiting
// split into outside the server, its queue and its own time, receiving.
func phaseChart(w io.Writer, reports []Report, labels []string) error {
	layers := []chart.Layer{{Name: "blocked"}, {Name: "sending"}, {Name: "outside the server"}, {Name: "server queue"}, {Name: "server time"}, {Name: "receiving"}}
	for _, r := range reports {
		p := r.Phases
		wait := p.Waiting.Avg
		// Fast rejections never reach the server: its time cannot exceed waiting.
		server := min(p.Server.Avg, wait)
		queue := min(p.ServerQueue.Avg, wait-server)
		vals := []float64{p.Blocked.Avg, p.Sending.Avg, wait - server - queue, queue, server, p.Receiving.Avg}
		for i := range layers {
			layers[i].Values = append(layers[i].Values, vals[i])
		}
	}
	return chart.StackedBars(w, "where the time went (averages)", "ms (blocked is outside duration)", labels, layers)
}

// stepChart draws a sweep against its load per step: arrivals per second
// for an open model, VUs for a closed one, or the step's number when the
// load does not only rise (a ramp down would fold the curve back).
func stepChart(w io.Writer, title string, steps []StepRow) error {
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
	return chart.Lines(w, title+": per step", xa, x, []chart.Panel{throughput, latency})
}
