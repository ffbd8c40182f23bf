// Package merge folds the results documents of the segments of one test
// (middlebench load --execution-segment … --results) into the document one
// process would have written: counts added, trends merged through their
// HDR histograms, thresholds evaluated on the whole.
package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// Result is the merged document and how its thresholds fared.
type Result struct {
	Doc      *metrics.Document
	Failed   int    // thresholds crossed on the merge (k6 exits 99)
	Segments string // what the parts cover: "0:1" when the whole test
}

// ReadFiles reads results documents; an error names the file.
func ReadFiles(paths []string) ([]Input, error) {
	var in []Input
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		x, err := decodeInput(p, b)
		if err != nil {
			return nil, err
		}
		in = append(in, x)
	}
	return in, nil
}

// decodeInput reads one results document; name says where it came from.
func decodeInput(name string, b []byte) (Input, error) {
	var d metrics.Document
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&d); err != nil {
		return Input{}, fmt.Errorf("%s: not a results document: %w", name, err)
	}
	return Input{Name: name, Doc: &d}, nil
}

// Merge merges the documents of the segments of one test. It refuses
// documents of different tests and segments that overlap.
func Merge(in []Input) (*Result, error) {
	if err := checkSameTest(in); err != nil {
		return nil, err
	}
	cover, err := checkSegments(in)
	if err != nil {
		return nil, err
	}
	start, end, err := window(in)
	if err != nil {
		return nil, err
	}
	seconds := end.Sub(start).Seconds()
	parts := make([]part, len(in))
	for i, x := range in {
		parts[i] = part{x.Name, x.Doc.Metrics, x.Doc.Histograms}
	}
	first := in[0].Doc
	run := *first.Run
	run.Start = start.Format(time.RFC3339Nano)
	run.VUs, run.MaxVUs, run.Rate, run.Interrupted, run.MaxDurationSkewMs = 0, 0, 0, false, 0
	for _, x := range in {
		r := x.Doc.Run
		run.VUs += r.VUs
		run.MaxVUs += r.MaxVUs
		run.Rate += r.Rate
		run.Interrupted = run.Interrupted || r.Interrupted
		run.MaxDurationSkewMs = max(run.MaxDurationSkewMs, r.MaxDurationSkewMs)
	}
	run.ExecutionSegment = cover
	if cover == "0:1" {
		run.ExecutionSegment, run.ExecutionSegmentSequence = "", ""
	}
	doc := &metrics.Document{
		State:   metrics.State{TestRunDurationMs: float64(end.Sub(start)) / 1e6},
		Options: first.Options,
		Run:     &run,
	}
	if doc.Metrics, doc.Histograms, err = mergeMetrics(parts, seconds); err != nil {
		return nil, err
	}
	doc.Statuses, doc.Errors, doc.ErrorCodes = map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, x := range in {
		addCounts(doc.Statuses, x.Doc.Statuses)
		addCounts(doc.Errors, x.Doc.Errors)
		addCounts(doc.ErrorCodes, x.Doc.ErrorCodes)
	}
	doc.GeneratorCPU = busiest(in, func(d *metrics.Document) *metrics.CPUUsage { return d.GeneratorCPU })
	doc.Server, doc.Stages = widestServer(in)
	if doc.Steps, err = mergeSteps(in); err != nil {
		return nil, err
	}
	if doc.Scenarios, err = mergeScenarios(in, seconds); err != nil {
		return nil, err
	}
	ts, err := thresholds(parts)
	if err != nil {
		return nil, err
	}
	failed := metrics.ApplyThresholds(doc, ts)
	return &Result{Doc: doc, Failed: failed, Segments: cover}, nil
}

// window is the union of the parts' runs: the earliest start to the
// latest end (start + testRunDurationMs).
func window(in []Input) (start, end time.Time, err error) {
	for i, x := range in {
		s, err := time.Parse(time.RFC3339Nano, x.Doc.Run.Start)
		if err != nil {
			return start, end, fmt.Errorf("%w: %s: run.start %q: %v", ErrMismatch, x.Name, x.Doc.Run.Start, err)
		}
		e := s.Add(time.Duration(x.Doc.State.TestRunDurationMs * 1e6))
		if i == 0 || s.Before(start) {
			start = s
		}
		if i == 0 || e.After(end) {
			end = e
		}
	}
	return start, end, nil
}

func addCounts(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

// busiest is the generator whose CPUs were busiest (its own work, and
// other processes' where known): one saturated generator is enough to
// distort what all of them measured, so the merge keeps the busiest's CPU
// rather than an average that would hide it.
func busiest(in []Input, cpu func(*metrics.Document) *metrics.CPUUsage) *metrics.CPUUsage {
	var best *metrics.CPUUsage
	for _, x := range in {
		if c := cpu(x.Doc); c != nil && (best == nil || c.Busy() > best.Busy()) {
			best = c
		}
	}
	return best
}

// widestServer is the server's own view (and the middleboxes' counters)
// from the part that saw most requests: every generator reads the same
// server, so the views overlap and must not be added.
func widestServer(in []Input) (*timing.ServerView, json.RawMessage) {
	var best *metrics.Document
	for _, x := range in {
		if s := x.Doc.Server; s != nil && (best == nil || s.Requests > best.Server.Requests) {
			best = x.Doc
		}
	}
	if best == nil {
		return nil, in[0].Doc.Stages
	}
	return best.Server, best.Stages
}
