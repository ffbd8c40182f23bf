package diagnose

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

// The ranges a value of a k6 file can take. Out of them a value is not a
// measurement (a corrupt file, a forged one, a unit mistaken): the file is
// refused with the metric and field named, never judged.
const (
	// maxTimeMs bounds one time value: 30 days. k6's request timeout
	// defaults to 60 s and a run to hours; a longer time is no request's.
	maxTimeMs = 30 * 24 * 3600 * 1e3
	// maxCount bounds a count (requests, iterations, bytes): 1e15, far
	// past any run (a million requests a second for 30 years) and exact
	// in a float64, so that a count converts to int64 without overflow.
	maxCount = 1e15
	// minMaxSlack: a summary rounds its values; min above max by more than
	// this (ms) is not rounding.
	minMaxSlack = 1e-3
)

// errTooLarge is wrapped when an input passes Reader.MaxBytes.
var errTooLarge = errors.New("input too large")

// checkTime refuses a time value out of range.
func checkTime(metric, field string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s %s is not a finite number", metric, field)
	case v < 0:
		return fmt.Errorf("%s %s is negative (%g ms): a time cannot be", metric, field, v)
	case v > maxTimeMs:
		return fmt.Errorf("%s %s is %g ms, more than 30 days: not a request's time", metric, field, v)
	}
	return nil
}

// checkCount refuses a count out of range.
func checkCount(metric, field string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s %s is not a finite number", metric, field)
	case v < 0:
		return fmt.Errorf("%s %s is negative (%g): a count cannot be", metric, field, v)
	case v > maxCount:
		return fmt.Errorf("%s %s is %g, more than 1e15: no run counts that many", metric, field, v)
	}
	return nil
}

// checkValues checks one metric of a summary (its k6 values by name).
func checkValues(metric string, kind metricKind, v map[string]float64) error {
	for _, k := range slices.Sorted(maps.Keys(v)) {
		x := v[k]
		var err error
		switch {
		case kind == kPhase || kind == kIterDur:
			if k == "count" {
				err = checkCount(metric, k, x)
			} else {
				err = checkTime(metric, k, x)
			}
		case kind == kFailed && k == "rate":
			if x < 0 || x > 1 || math.IsNaN(x) {
				err = fmt.Errorf("%s rate is %g: a share is between 0 and 1", metric, x)
			}
		case kind == kVUs || kind == kVUsMax || k == "count" || k == "passes" || k == "fails" || k == "rate":
			err = checkCount(metric, k, x)
		}
		if err != nil {
			return err
		}
	}
	if lo, hi := v["min"], v["max"]; kind == kPhase && lo > hi+minMaxSlack {
		return fmt.Errorf("%s min %g ms is above its max %g ms", metric, lo, hi)
	}
	return nil
}

// checkPoint checks one point of a stream (value in ms for times). It
// allocates nothing unless the value is out of range: it runs per point.
func checkPoint(metric []byte, kind metricKind, v float64) error {
	switch kind {
	case kPhase, kIterDur:
		if v >= 0 && v <= maxTimeMs {
			return nil
		}
		return checkTime(string(metric), "value", v)
	case kIgnore:
		return nil
	}
	if v >= 0 && v <= maxCount {
		return nil
	}
	return checkCount(string(metric), "value", v)
}

// checkStat checks a Stat handed in from beside the file (a server's
// figures): the same ranges as a summary's.
func checkStat(what string, s Stat) error {
	return checkValues(what, kPhase, map[string]float64{
		"avg": s.Avg, "min": s.Min, "med": s.Med, "max": s.Max, "p(90)": s.P90, "p(95)": s.P95, "p(99)": s.P99, "count": float64(s.Count),
	})
}

// capped reads at most limit bytes from r; past them it fails with
// errTooLarge and the flag that raises the bound.
type capped struct {
	r     io.Reader
	left  int64
	limit int64
	flag  string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a file of exactly limit bytes from a longer one.
		var one [1]byte
		if n, _ := io.ReadFull(c.r, one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%w: more than %s decompressed (%s raises the bound)", errTooLarge, sizeText(c.limit), c.flag)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// sizeText prints a byte bound in binary units.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
