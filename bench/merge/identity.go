package merge

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
)

// Input is one results document and where it came from (for errors).
type Input struct {
	Name string
	Doc  *metrics.Document
}

// ErrMismatch is wrapped by every refusal to merge: documents of different
// tests, or segments that overlap.
var ErrMismatch = fmt.Errorf("cannot merge")

// identity is what makes two documents parts of the same test: the target,
// the executor(s) and scenario(s), the whole run's planned duration and
// iterations (not split by segments), and the sequence of segments. VUs and
// rate are not compared: they are each segment's share.
func identity(r *metrics.RunInfo) [][2]string {
	return [][2]string{
		{"url", r.URL},
		{"executor", r.Executor},
		{"scenario", r.Scenario},
		{"durationMs", fmt.Sprint(r.DurationMs)},
		{"iterations", fmt.Sprint(r.Iterations)},
		{"executionSegmentSequence", r.ExecutionSegmentSequence},
	}
}

func checkSameTest(in []Input) error {
	if len(in) == 0 {
		return fmt.Errorf("%w: no documents", ErrMismatch)
	}
	for _, x := range in {
		if x.Doc.Run == nil {
			return fmt.Errorf("%w: %s: no \"run\" key: not a middlebench results document (load --results)", ErrMismatch, x.Name)
		}
	}
	want := identity(in[0].Doc.Run)
	for _, x := range in[1:] {
		for i, kv := range identity(x.Doc.Run) {
			if kv[1] != want[i][1] {
				return fmt.Errorf("%w: %s and %s are different tests: run.%s %q vs %q",
					ErrMismatch, in[0].Name, x.Name, kv[0], want[i][1], kv[1])
			}
		}
	}
	return nil
}

// span is one document's segment, (from, to].
type span struct {
	from, to *big.Rat
	name     string
}

func parseSpan(name, s string) (span, error) {
	if s == "" {
		return span{big.NewRat(0, 1), big.NewRat(1, 1), name}, nil // the whole test
	}
	f, t, ok := strings.Cut(s, ":")
	from, ok1 := new(big.Rat).SetString(f)
	to, ok2 := new(big.Rat).SetString(t)
	if !ok || !ok1 || !ok2 || from.Cmp(to) >= 0 {
		return span{}, fmt.Errorf("%w: %s: run.executionSegment %q is not FROM:TO", ErrMismatch, name, s)
	}
	return span{from, to, name}, nil
}

// checkSegments refuses overlapping segments (two processes that started
// the same iterations) and returns the union, "0:1" when they cover the
// whole test, else the parts joined by commas.
func checkSegments(in []Input) (string, error) {
	var spans []span
	for _, x := range in {
		s, err := parseSpan(x.Name, x.Doc.Run.ExecutionSegment)
		if err != nil {
			return "", err
		}
		spans = append(spans, s)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Cmp(spans[j].from) < 0 })
	for i := 1; i < len(spans); i++ {
		if spans[i].from.Cmp(spans[i-1].to) < 0 {
			return "", fmt.Errorf("%w: %s (segment %s:%s) and %s (segment %s:%s) overlap: they ran the same part of the test",
				ErrMismatch, spans[i-1].name, spans[i-1].from.RatString(), spans[i-1].to.RatString(),
				spans[i].name, spans[i].from.RatString(), spans[i].to.RatString())
		}
	}
	var parts []string
	from, to := spans[0].from, spans[0].to
	for _, s := range spans[1:] {
		if s.from.Cmp(to) == 0 {
			to = s.to
			continue
		}
		parts = append(parts, from.RatString()+":"+to.RatString())
		from, to = s.from, s.to
	}
	parts = append(parts, from.RatString()+":"+to.RatString())
	return strings.Join(parts, ","), nil
}
