package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// Evidence sanity, before any rule: a figure the file cannot hold for the
// requests it describes is set aside, said so, and the run judged without
// it.

// foreignServerTime returns a note when the server's own time is above
// the waiting the client saw, beyond clock noise: a server cannot work
// longer than the client waited for its answer, so the figure is not
// these requests' — a cache or proxy replaying a stored Server-Timing, a
// figure of other requests (an APM's), or another clock. Where the
// failures are mixed into the waiting and the file does not separate them,
// fast failures the server never timed can pull waiting below the server's
// time: that is not this case (honesty says so instead).
func foreignServerTime(obs *Observation, cfg *Config) string {
	f := newFacts(cfg, obs, &obs.Window, "")
	if !f.hasServer || f.served == f.all && obs.Failed > 0 {
		return ""
	}
	wait, own := f.served.Waiting.Avg, f.srv.Avg+f.queue.Avg
	noise := max(timing.Millis(cfg.Evidence.ClockNoise), float64(cfg.Evidence.ClockNoiseShare)*wait)
	if !f.served.Waiting.Present() || own <= wait+noise {
		return ""
	}
	return fmt.Sprintf("the server's own time (%s on average) is above the waiting the client saw (%s), beyond clock noise (%s): "+
		"a server cannot work longer than its client waited, so the figure is not these requests' — a cache or proxy replaying a stored "+
		"Server-Timing, an APM's figure of other requests, or another clock. The run is judged without it; compare with the server's "+
		"own count of these requests (--server-stats) or its log", metrics.FormatMs(own), metrics.FormatMs(wait), metrics.FormatMs(noise))
}

// unservedServerTime returns a note and the server's work per answered
// request when the server counted far fewer requests than k6 had answered
// while the answers carried one repeated Server-Timing (its median and
// p95 the same to evidence.repeat): something in front of the server (a
// cache) answered the others with a stored figure. A figure that varies
// is measured; a count that disagrees with it is then of another window. The server's
// own view (its count and its time) is the evidence that stands: its work
// spread over the answers k6 saw.
func unservedServerTime(obs *Observation, cfg *Config) (string, float64) {
	answered := obs.Requests - obs.Failed
	if obs.Server == nil || obs.Server.Requests < 0 || !obs.Phases.Server.Present() || answered <= 0 {
		return "", 0
	}
	if float64(obs.Server.Requests) >= float64(cfg.Evidence.Served)*float64(answered) {
		return "", 0
	}
	if st := obs.Phases.Server; st.Med <= 0 || st.Tail()-st.Med > float64(cfg.Evidence.Repeat)*st.Avg {
		return "", 0
	}
	per := obs.Server.Time.Avg * float64(obs.Server.Requests) / float64(answered)
	return fmt.Sprintf("every answer carried the server's time (%s on average), yet the server counted %d of the %d requests answered: "+
		"the others were answered in front of it (a cache replaying its stored Server-Timing), so the figure is not theirs. "+
		"The run is judged with the server's own work spread over the answers (%s each)", metrics.FormatMs(obs.Phases.Server.Avg),
		obs.Server.Requests, answered, metrics.FormatMs(per)), per
}

// withServerWork returns a copy of o whose server time is the server's
// own work per answered request (an average only), its queue unknown.
func (o *Observation) withServerWork(per float64) *Observation {
	cp := o.withoutServerTime()
	cp.Phases.Server = Stat{Avg: max(per, 1e-6)}
	return cp
}

// withoutServerTime returns a copy of o without the server's time (its
// count of requests stays: it is not a per-request figure).
func (o *Observation) withoutServerTime() *Observation {
	cp := *o
	cp.Window = o.Window.withoutServerTime()
	cp.Steps = stepsWithoutServerTime(o.Steps)
	cp.Series = stepsWithoutServerTime(o.Series)
	return &cp
}

func stepsWithoutServerTime(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		out[i] = s
		out[i].Window = s.Window.withoutServerTime()
	}
	return out
}

func (w Window) withoutServerTime() Window {
	w.Phases.Server, w.Phases.ServerQueue = Stat{}, Stat{}
	if w.OK != nil {
		ok := *w.OK
		ok.Server, ok.ServerQueue = Stat{}, Stat{}
		w.OK = &ok
	}
	if w.Server != nil {
		s := *w.Server
		s.Time, s.Queue = Stat{}, Stat{}
		w.Server = &s
	}
	return w
}
