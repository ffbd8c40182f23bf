package bench

import (
	"fmt"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/k6script"
	"github.com/middlebench/middlebench/bench/load"
)

// A sweep's steps are cut from k6's stream as the engine cuts its own:
// the requests that end within each stage of the schedule, counted from
// the run's start, the drain after the last stage in no step. Left to find
// its steps where the VUs change, the stream cuts them from its first
// point — the first response's end, a request's length after k6's start —
// and keeps the drain in the last step (k6 writes no vus point after the
// stages, so the VUs do not fall there): E4's last step then counted the
// 32 responses in flight at the end, finishing in a burst within half a
// second, and read 40.9 responses/s against a cap that allows 40.

// k6Schedule is the steps of rs's sweep and k6's time zero in the stream
// at path: the first iteration's start (its iteration_duration point's
// time less its value) less when the schedule starts its first iteration.
// nil steps when the run is no sweep.
func k6Schedule(rs *experiment.RunSpec, path string) ([]diagnose.ScheduledStep, time.Time, error) {
	cfg, err := rs.Load.Aim(k6script.PlaceholderEntry)
	if err != nil {
		return nil, time.Time{}, err
	}
	sw, err := load.PlanSweep(cfg)
	if err != nil || sw == nil {
		return nil, time.Time{}, err
	}
	var first time.Time
	err = scanK6Points(path, "iteration_duration", func(end time.Time, ms float64) {
		if at := end.Add(-time.Duration(ms * float64(time.Millisecond))); first.IsZero() || at.Before(first) {
			first = at
		}
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	if first.IsZero() {
		return nil, time.Time{}, fmt.Errorf("%s: no iteration_duration point: the run's start is unknown", path)
	}
	steps := make([]diagnose.ScheduledStep, len(sw.Steps))
	for i, s := range sw.Steps {
		steps[i] = diagnose.ScheduledStep{Name: s.Name, Start: s.Start, End: s.End, VUs: float64(s.VUs), Rate: s.Rate}
	}
	return steps, first.Add(-sw.FirstStart), nil
}
