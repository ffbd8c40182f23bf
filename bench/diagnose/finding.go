package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// CodeHealthy: nothing stands out. Every other code is a rule's, named in
// its file and its row of the rules table (rules.go); the codes are part
// of the contract (experiments assert them), as the package doc lists them.
const CodeHealthy = "healthy"

// Codes returns every code: healthy, then the rules' in alphabetical order
// (a fresh slice). Pick-lists show them in this order, which a new rule
// does not reshuffle; the table's order is the order the rules run.
func Codes() []string {
	out := make([]string, 0, len(rules)+1)
	for i := range rules {
		out = append(out, rules[i].code)
	}
	slices.Sort(out)
	return append([]string{CodeHealthy}, out...)
}

// CodeDoc is a code and its line of doc.
type CodeDoc struct{ Code, Doc string }

// CodeDocs returns every code with its doc line: healthy, then the rules'
// in the order they run (their rows in rules.go).
func CodeDocs() []CodeDoc {
	out := []CodeDoc{{CodeHealthy, "nothing stands out"}}
	for i := range rules {
		out = append(out, CodeDoc{rules[i].code, rules[i].doc})
	}
	return out
}

// Severity says how much a finding matters to the run's numbers.
type Severity string

// Severities, from least to most.
const (
	SeverityInfo     Severity = "info"     // worth knowing; the numbers stand
	SeverityWarning  Severity = "warning"  // the numbers mislead unless read with this
	SeverityCritical Severity = "critical" // the run does not measure what it meant to
)

func (s Severity) rank() int {
	switch s {
	case SeverityCritical:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// Confidence says how sure the rule is of the cause.
type Confidence string

// Confidences.
const (
	ConfidenceLow    Confidence = "low"    // the symptom fits, a needed input is missing
	ConfidenceMedium Confidence = "medium" // the symptom fits; another cause is not excluded
	ConfidenceHigh   Confidence = "high"   // the numbers that tell causes apart agree
)

// Evidence is the named numbers that triggered a finding, in the order the
// rule gives them. It marshals as a JSON object {name: value}.
type Evidence []Fact

// Fact is one named number: durations in ms (names end in _ms), ratios as
// fractions, counts, rates per second, bytes.
type Fact struct {
	Name  string
	Value float64
}

// Get returns the value named name.
func (e Evidence) Get(name string) (float64, bool) {
	for _, f := range e {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

// MarshalJSON writes {name: value, …} in the evidence's order.
func (e Evidence) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteByte(':')
		v := f.Value
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		n, _ := json.Marshal(round6(v))
		b.Write(n)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads {name: value}, keeping the file's order.
func (e *Evidence) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("evidence: want an object")
	}
	*e = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("evidence: %w", err)
		}
		var v float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("evidence %v: %w", t, err)
		}
		*e = append(*e, Fact{Name: fmt.Sprint(t), Value: v})
	}
	return nil
}

// Finding is one named cause with what triggered it and what to do next.
type Finding struct {
	Code       string     `json:"code"`
	Severity   Severity   `json:"severity"`
	Confidence Confidence `json:"confidence"`
	Evidence   Evidence   `json:"evidence"`
	Summary    string     `json:"summary"`
	Suspect    []string   `json:"suspect"`
	Next       []string   `json:"next"`
	// ExplainsMs is how much of a request's time (ms, on average) the
	// finding accounts for: findings are ordered by it.
	ExplainsMs float64 `json:"explains_ms"`
	// Explains is the time claimed line by line (the explanation budget:
	// what this cause accounts for, which a later rule does not read as
	// its own).
	Explains []Claim `json:"explains,omitempty"`
	claims   []claim
	// Steps names the steps of a sweep where the finding holds (empty when
	// it was read off the whole run).
	Steps []string `json:"steps,omitempty"`
	// Alternatives are the causes the file cannot tell from this one,
	// each with what would tell them apart.
	Alternatives []Alternative `json:"alternatives,omitempty"`
}

// Alternative is a cause the file cannot tell from the finding's: its
// code when the analyzer has one, and why it fits and which file or
// figure would tell.
type Alternative struct {
	Code string `json:"code,omitempty"`
	Why  string `json:"why"`
}

// alternative adds a cause the evidence cannot separate from fd's.
func (f *Finding) alternative(code, why string) *Finding {
	f.Alternatives = append(f.Alternatives, Alternative{Code: code, Why: why})
	return f
}

// add appends named numbers to the evidence.
func (f *Finding) add(name string, v float64) *Finding {
	f.Evidence = append(f.Evidence, Fact{Name: name, Value: v})
	return f
}
