package record

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CheckAll evaluates every run's expectations once all runs exist, since a
// band may be relative to another run, and judges each failure by how busy
// the machine was over what it read (see Judge).
func CheckAll(runs []*RunResult) {
	others := map[string]metricSource{}
	byName := map[string]*RunResult{}
	for _, r := range runs {
		others[r.Spec.Name], byName[r.Spec.Name] = r, r
	}
	for _, r := range runs {
		whole := r.RunDisturbance()
		r.Checks = nil
		for _, c := range CheckCodes(r.Spec.Expect, r.Report.Codes(), r.Unshown) {
			r.Checks = append(r.Checks, Judge(c, whole))
		}
		if !r.Spec.Expect.AllowFailures {
			r.Checks = append(r.Checks, Judge(r.noFailures(), whole))
		}
		for _, b := range r.Spec.Expect.Bands {
			c := checkBand(b, r, others)
			if b.Why != "" && !c.OK {
				c.Msg += " — " + b.Why
			}
			r.Checks = append(r.Checks, Judge(c, r.bandDisturbance(b, byName)))
		}
	}
}

// noFailures checks that every request of the run succeeded.
func (r *RunResult) noFailures() Check {
	c := Check{What: "failed requests", Value: float64(r.Result.Failed), Hi: 0, Band: "none", OK: r.Result.Failed == 0, Side: loadNeither}
	if !c.OK {
		var why []string
		for _, code := range slices.Sorted(maps.Keys(r.Doc.Statuses)) {
			if code >= "400" {
				why = append(why, fmt.Sprintf("%d × %s", r.Doc.Statuses[code], code))
			}
		}
		for _, class := range slices.Sorted(maps.Keys(r.Result.Errors)) {
			why = append(why, fmt.Sprintf("%d × %s", r.Result.Errors[class], class))
		}
		c.Msg = fmt.Sprintf("%d of %d requests failed (%s); set allowFailures if the run means them", r.Result.Failed, r.Result.Requests, strings.Join(why, ", "))
	}
	return c
}
