package load

import "time"

// PlannedStep is one step of a sweep as Run's result cuts it: the requests
// that end in [Start, End) from the run's start, at the load the step
// offers (VUs for a closed model, Rate per second for an open one).
type PlannedStep struct {
	Name       string
	Start, End time.Duration
	VUs        int
	Rate       float64
}

// Sweep is what another generator's stream needs to be cut into the same
// steps as the engine's result: the steps, and when the schedule starts
// its first iteration (the first VU's activation, the first arrival), so
// that the run's start can be found from the first iteration's start.
type Sweep struct {
	Steps      []PlannedStep
	FirstStart time.Duration
}

// PlanSweep is cfg's sweep, or nil when its run is one step (no stages) or
// it has several scenarios (whose steps are not cut).
func PlanSweep(cfg *Config) (*Sweep, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scs, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	if len(scs) != 1 || len(scs[0].plan.steps) == 0 {
		return nil, nil
	}
	s := scs[0]
	sw := &Sweep{FirstStart: s.start}
	for _, st := range s.plan.steps {
		sw.Steps = append(sw.Steps, PlannedStep{Name: st.name, Start: st.start, End: st.end, VUs: st.vus, Rate: st.rate})
	}
	switch x := s.x.(type) {
	case rampingVUs:
		for _, c := range x.schedule() {
			if c.VUs > 0 {
				sw.FirstStart += c.At
				break
			}
		}
	case *arrivalRate:
		at, _ := x.pacer.at(0)
		sw.FirstStart += at
	}
	return sw, nil
}
