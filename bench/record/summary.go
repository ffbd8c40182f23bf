package record

import "time"

// Summary is a whole replay.
type Summary struct {
	Machine     Machine
	Quick       bool
	Started     time.Time
	Elapsed     time.Duration
	Experiments []*ExperimentResult
	K6Version   string // of the k6 that replayed the runs, or ""
	// LoadBefore and LoadAfter are the machine's load averages around the
	// replay: a shared machine's figures need them.
	LoadBefore, LoadAfter string
}

// Failures lists every failure of every experiment.
func (s *Summary) Failures() []string {
	var out []string
	for _, x := range s.Experiments {
		out = append(out, x.Failures()...)
	}
	return out
}

// NotMeasured lists every check of every experiment that failed only while
// the machine was busy (see Judge).
func (s *Summary) NotMeasured() []string {
	var out []string
	for _, x := range s.Experiments {
		out = append(out, x.NotMeasured()...)
	}
	return out
}

// Counts is how many experiments passed, failed and were not measured.
func (s *Summary) Counts() (passed, failed, notMeasured int) {
	for _, x := range s.Experiments {
		switch x.Outcome() {
		case OutcomePass:
			passed++
		case OutcomeFail:
			failed++
		default:
			notMeasured++
		}
	}
	return passed, failed, notMeasured
}

// Machine says where a run was measured; RESULTS.md opens with it.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryGiB int    `json:"memoryGiB"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	Go        string `json:"go"`
	Date      string `json:"date"`
}
