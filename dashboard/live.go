package dashboard

import (
	"strconv"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/timing"
)

// LiveFindings returns a Sources.Findings that runs the analyzer on the
// run so far, from the aggregator's averages (the analyzer reads a Stat
// with only count and average as it reads an APM figure copied by hand:
// its tail is its average). server, if set, is the APM's view. cfg says
// what was asked (executor, VUs, rate), as `analyze` is told.
func LiveFindings(a *Aggregator, started time.Time, cfg *load.Config, server func() timing.ServerView) func() []diagnose.Finding {
	return func() []diagnose.Finding {
		t := a.Totals()
		if t.Requests == 0 {
			return nil
		}
		obs := observationOf(t, time.Since(started).Seconds())
		x := diagnose.Extra{}
		if cfg != nil {
			x.Executor, x.VUs = cfg.Executor, cfg.VUs
			if cfg.Rate.PerSecond() > 0 {
				x.Rate = cfg.Rate.PerSecond()
			}
		}
		if server != nil {
			v := server()
			x.Server = diagnose.ServerFromView(&v, "server")
		}
		obs.Apply(x)
		return diagnose.Analyze(obs, diagnose.DefaultConfig()).Findings
	}
}

func observationOf(t Totals, seconds float64) *diagnose.Observation {
	n := float64(t.Requests)
	avg := func(d time.Duration) diagnose.Stat {
		return diagnose.Stat{Count: t.Requests, Avg: timing.Millis(d) / n}
	}
	w := diagnose.Window{Seconds: seconds, Requests: t.Requests, Failed: t.Failed, Statuses: map[string]int64{}}
	for code, c := range t.Status {
		w.Statuses[strconv.Itoa(code)] = c
	}
	w.Phases = diagnose.Phases{Blocked: avg(t.Phase[0]), Connecting: avg(t.Phase[1]), TLS: avg(t.Phase[2]),
		Sending: avg(t.Phase[3]), Waiting: avg(t.Phase[4]), Receiving: avg(t.Phase[5]), Duration: avg(t.Duration)}
	if t.WithServer > 0 {
		w.Phases.Server = diagnose.Stat{Count: t.WithServer, Avg: timing.Millis(t.Server) / float64(t.WithServer)}
	}
	return &diagnose.Observation{Source: "live", Run: diagnose.RunInfo{Tool: "middlebench"}, Window: w}
}

// FinalFindings is the analyzer on the run's results document, with the
// server's view when known: what `middlebench analyze` would print.
func FinalFindings(res *load.Result, server *timing.ServerView) []diagnose.Finding {
	if res == nil {
		return nil
	}
	doc := res.Document()
	if server != nil {
		doc.Server = server
	}
	obs, err := diagnose.FromDocument(doc)
	if err != nil {
		return nil
	}
	return diagnose.Analyze(obs, diagnose.DefaultConfig()).Findings
}
