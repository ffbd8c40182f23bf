package record

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
		if c.Failed() {
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
			out = append(out, fmt.Sprintf("%s / %s: %s — %s", x.Exp.ID, run, BusyNote(c.Disturbance), c.Msg))
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
func (x *ExperimentResult) Passed() bool { return x.Outcome() == OutcomePass }

// Outcome is the experiment's verdict: FAIL over not measured over PASS.
func (x *ExperimentResult) Outcome() Outcome {
	if x.Err != nil || len(x.Failures()) > 0 {
		return OutcomeFail
	}
	if len(x.NotMeasured()) > 0 {
		return OutcomeNotMeasured
	}
	return OutcomePass
}

// Mark is the verdict's word in the console.
func (o Outcome) Mark() string {
	switch o {
	case OutcomeFail:
		return "FAIL"
	case OutcomeNotMeasured:
		return "NOT MEASURED"
	}
	return "PASS"
}
