package mystery

import (
	"fmt"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/diagnose"
)

// Verdict is one answer scored against the key.
type Verdict struct {
	Name   string    `json:"name"`
	Right  []Mark    `json:"right"`
	Wrong  []Mark    `json:"wrong"`
	Missed []KeyLine `json:"missed"`
}

// Mark is one submitted code and why it is right or wrong.
type Mark struct {
	Code  string `json:"code"`
	Cause string `json:"cause,omitempty"`
	Rule  int    `json:"rule,omitempty"`
	Why   string `json:"why"`
}

// ErrCode is returned for a code that is not one of the analyzer's.
var ErrCode = fmt.Errorf("not a finding code (want one of %s)", strings.Join(diagnose.Codes(), ", "))

// CheckCodes normalises submitted codes and refuses unknown ones.
func CheckCodes(codes []string) ([]string, error) {
	var out []string
	for _, c := range codes {
		for _, one := range strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ' ' }) {
			one = strings.ToLower(strings.TrimSpace(one))
			if !slices.Contains(diagnose.Codes(), one) {
				return nil, fmt.Errorf("%q: %w", one, ErrCode)
			}
			if !slices.Contains(out, one) {
				out = append(out, one)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no codes: %w", ErrCode)
	}
	return out, nil
}

// Score judges an answer: a code is right when it names a cause of the
// mystery, wrong otherwise (naming the decoy included); a cause none of
// whose codes was given is missed.
func (k Key) Score(a Answer) Verdict {
	v := Verdict{Name: a.Name}
	found := map[string]bool{}
	for _, code := range a.Codes {
		mark := Mark{Code: code}
		for _, l := range k.Lines {
			if !l.Decoy && slices.Contains(l.Codes, code) {
				mark.Cause, mark.Rule = l.Cause, l.Rule
				mark.Why = fmt.Sprintf("names %s (%s): rule %d", l.Cause, l.What, l.Rule)
				found[l.Cause] = true
				break
			}
		}
		if mark.Cause != "" {
			v.Right = append(v.Right, mark)
			continue
		}
		mark.Why = "names no cause of this mystery"
		for _, l := range k.Lines {
			if l.Decoy && slices.Contains(l.Codes, code) {
				mark.Cause = l.Cause
				mark.Why = fmt.Sprintf("names the decoy %s (%s), which did nothing worth naming", l.Cause, l.What)
			}
			if m, ok := mistaken[[2]string{code, l.Cause}]; ok && !l.Decoy {
				mark.Why = fmt.Sprintf(m, l.Failed)
			}
		}
		v.Wrong = append(v.Wrong, mark)
	}
	for _, l := range k.Lines {
		if !l.Decoy && !found[l.Cause] {
			v.Missed = append(v.Missed, l)
		}
	}
	return v
}

// mistaken are the wrong codes a file can lead to for a cause, and what
// the ledger says instead (%g: the requests the cause failed). A summary
// export counts failures but not their statuses, so 429s and 403s look
// alike in it; the ledger counts them apart.
var mistaken = map[[2]string]string{
	{diagnose.CodeToolBlocked, "ratelimit"}: "the ledger: the rate limiter answered %g requests 429, and nothing answered 403 — a rate limiter (rule 8), not a blocked tool (rule 9). " + statusHint,
	{diagnose.CodeRateLimited, "uablock"}:   "the ledger: %g requests were answered 403 for their User-Agent, and nothing answered 429 — a blocked tool (rule 9), not a rate limiter (rule 8). " + statusHint,
}

// statusHint says which k6 file tells a 429 from a 403.
const statusHint = "A summary export has no status codes: bring k6's NDJSON stream (k6 run --out json=mystery.ndjson) or middlebench load --results, which carry each request's status."
