package bench

import "fmt"

// Failures lists every failed check as "experiment / run: message": a
// failure on a quiet machine, below its band, or a run that could not
// complete.
func (x *ExperimentResult) Failures() []string {
	var out []string
	if x.Err != nil {
		out = append(out, fmt.Sprintf("%s: %v", x.Exp.ID, x.Err))
	}
	x.eachCheck(func(run string, c Check) {
		if c.failed() {
			out = append(out, fmt.Sprintf("%s / %s: %s", x.Exp.ID, run, c.Msg))
		}
	})
	return out
}

// NotMeasured lists every check of the last attempt that failed while the
// machine was busy, with how busy.
func (x *ExperimentResult) NotMeasured() []string {
	var out []string
	x.eachCheck(func(run string, c Check) {
		if c.Busy {
			out = append(out, fmt.Sprintf("%s / %s: %s — %s", x.Exp.ID, run, busyNote(c.Disturbance), c.Msg))
		}
	})
	return out
}

// eachCheck calls f with every check of the engine's runs and k6's, and
// the run's label: run "NAME", or run "NAME" with k6.
func (x *ExperimentResult) eachCheck(f func(run string, c Check)) {
	for _, r := range x.Runs {
		for _, c := range r.Checks {
			f(fmt.Sprintf("run %q", r.Spec.Name), c)
		}
	}
	for _, r := range x.K6 {
		for _, c := range r.Checks {
			f(fmt.Sprintf("run %q with k6", r.Spec.Name), c)
		}
	}
}

// Passed reports whether every run ran and every check held.
func (x *ExperimentResult) Passed() bool { return x.outcome() == outcomePass }

// outcome is the experiment's verdict: FAIL over not measured over PASS.
func (x *ExperimentResult) outcome() outcome {
	if x.Err != nil || len(x.Failures()) > 0 {
		return outcomeFail
	}
	if len(x.NotMeasured()) > 0 {
		return outcomeNotMeasured
	}
	return outcomePass
}

// mark is the verdict's word in the console.
func (o outcome) mark() string {
	switch o {
	case outcomeFail:
		return "FAIL"
	case outcomeNotMeasured:
		return "NOT MEASURED"
	}
	return "PASS"
}
