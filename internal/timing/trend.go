package timing

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Trend geometry: microsecond resolution, three significant digits (a value
// is stored within 0.05 %: ±0.25 ms at 500 ms), up to one hour. Values below
// 1 µs are recorded as 0 µs; min, max and sum are kept exactly in nanoseconds.
const (
	trendLowest  = 1
	trendHighest = int64(time.Hour / time.Microsecond)
	trendSigFigs = 3
)

// Trend aggregates durations. The zero Trend is not usable: call NewTrend.
type Trend struct {
	h        *hdr.Histogram
	count    int64
	sum      time.Duration
	min, max time.Duration
}

// NewTrend returns an empty Trend (about 190 KB of counts, whatever is added).
func NewTrend() *Trend {
	return &Trend{h: hdr.New(trendLowest, trendHighest, trendSigFigs)}
}

// Add records one duration. Negative values count as 0; values beyond an
// hour are kept exactly in min/max/sum and clamped in the histogram.
func (t *Trend) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	if t.count == 0 || d < t.min {
		t.min = d
	}
	if d > t.max {
		t.max = d
	}
	t.count++
	t.sum += d
	us := int64((d + time.Microsecond/2) / time.Microsecond)
	if us > trendHighest {
		us = trendHighest
	}
	_ = t.h.RecordValue(us) // cannot fail: us is within [0, trendHighest]
}

// Merge adds everything o recorded into t.
func (t *Trend) Merge(o *Trend) {
	if o == nil || o.count == 0 {
		return
	}
	if t.count == 0 || o.min < t.min {
		t.min = o.min
	}
	if o.max > t.max {
		t.max = o.max
	}
	t.count += o.count
	t.sum += o.sum
	t.h.Merge(o.h)
}

// Reset empties the Trend, keeping its memory.
func (t *Trend) Reset() {
	t.h.Reset()
	t.count, t.sum, t.min, t.max = 0, 0, 0, 0
}

// Count is the number of values added.
func (t *Trend) Count() int64 { return t.count }

// Sum is the exact total of the values added.
func (t *Trend) Sum() time.Duration { return t.sum }

// Min is the exact smallest value (0 when empty).
func (t *Trend) Min() time.Duration { return t.min }

// Max is the exact largest value (0 when empty).
func (t *Trend) Max() time.Duration { return t.max }

// Mean is the exact average (0 when empty).
func (t *Trend) Mean() time.Duration {
	if t.count == 0 {
		return 0
	}
	return t.sum / time.Duration(t.count)
}

// Percentile returns the value at p (0–100) as k6 computes it: linear
// interpolation between the two samples around rank p/100 × (count − 1).
// Each sample is read from the histogram within its precision, except the
// ends, which are the exact Min and Max. Nearest-rank would differ from k6
// by up to a whole gap between samples: with 10 requests, p(95) is the 9th
// sample plus 55 % of the way to the 10th, not the 10th.
func (t *Trend) Percentile(p float64) time.Duration {
	if t.count == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	i := p / 100 * float64(t.count-1)
	lo, hi := t.atRank(int64(math.Floor(i))), t.atRank(int64(math.Ceil(i)))
	return lo + time.Duration(float64(hi-lo)*(i-math.Floor(i)))
}

// atRank returns the (k+1)-th smallest value (k from 0).
func (t *Trend) atRank(k int64) time.Duration {
	switch {
	case k <= 0:
		return t.min
	case k >= t.count-1:
		return t.max
	}
	// hdr's rank for percentile q is int(q/100·n + 0.5), so q = 100·(k+1)/n
	// selects exactly the (k+1)-th value. It answers with the highest value
	// of its bucket; the middle halves the bias. Buckets hold 1 µs below
	// 2048 µs and double with each octave.
	v := t.h.ValueAtPercentile(100 * float64(k+1) / float64(t.count))
	width := int64(1) << max(0, bits.Len64(uint64(v))-11)
	d := time.Duration(v-(width-1)/2) * time.Microsecond
	return min(max(d, t.min), t.max)
}

// Millis is d in milliseconds, the unit of k6's JSON and of Server-Timing:
// any count of nanoseconds (time.Duration, units.Duration, int64).
func Millis[D ~int64](d D) float64 { return float64(d) / float64(time.Millisecond) }

// Stat returns one named statistic in milliseconds, the unit of k6's JSON:
// avg, min, med, max, count, or p(N) with N in 0–100 ("p(99.9)").
func (t *Trend) Stat(name string) (float64, error) {
	ms := Millis[time.Duration]
	switch name {
	case "avg":
		if t.count == 0 {
			return 0, nil
		}
		return ms(t.sum) / float64(t.count), nil
	case "min":
		return ms(t.min), nil
	case "max":
		return ms(t.max), nil
	case "med":
		return ms(t.Percentile(50)), nil
	case "count":
		return float64(t.count), nil
	}
	p, err := ParsePercentile(name)
	if err != nil {
		return 0, err
	}
	return ms(t.Percentile(p)), nil
}

// Values returns the named statistics (k6's summaryTrendStats) in ms.
func (t *Trend) Values(stats []string) (map[string]float64, error) {
	out := make(map[string]float64, len(stats))
	for _, s := range stats {
		v, err := t.Stat(s)
		if err != nil {
			return nil, err
		}
		out[s] = v
	}
	return out, nil
}

// ParsePercentile reads k6's "p(95)" or "p(99.9)" and returns 95 or 99.9.
func ParsePercentile(s string) (float64, error) {
	inner, ok := strings.CutPrefix(s, "p(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	}
	if !ok {
		return 0, fmt.Errorf("trend stat %q: want avg, min, med, max, count or p(N)", s)
	}
	p, err := strconv.ParseFloat(inner, 64)
	if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
		return 0, fmt.Errorf("trend stat %q: N in p(N) must be a number from 0 to 100", s)
	}
	return p, nil
}

// DefaultTrendStats returns k6's default summaryTrendStats (a new slice
// each call: callers may append to it).
func DefaultTrendStats() []string { return []string{"avg", "min", "med", "max", "p(90)", "p(95)"} }

// FullTrendStats returns the stats the results document always carries (a
// new slice each call).
func FullTrendStats() []string { return append(DefaultTrendStats(), "p(99)") }

// Encode returns the histogram in HdrHistogram's compressed V2 format
// (base64), prefixed with the exact count, sum, min and max in ns, so that
// two results can be merged exactly: "count,sum,min,max;BASE64".
func (t *Trend) Encode() (string, error) {
	b, err := t.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode trend: %w", err)
	}
	return fmt.Sprintf("%d,%d,%d,%d;%s", t.count, int64(t.sum), int64(t.min), int64(t.max), b), nil
}

// DecodeTrend is the inverse of Encode.
func DecodeTrend(s string) (*Trend, error) {
	head, body, ok := strings.Cut(s, ";")
	if !ok {
		return nil, fmt.Errorf("decode trend: missing ';' between header and histogram")
	}
	var n [4]int64
	parts := strings.Split(head, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("decode trend: header %q: want count,sum,min,max", head)
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("decode trend: header field %d %q is not a non-negative integer", i+1, p)
		}
		n[i] = v
	}
	if _, err := base64.StdEncoding.DecodeString(body); err != nil {
		return nil, fmt.Errorf("decode trend: histogram is not base64: %w", err)
	}
	h, err := hdr.Decode([]byte(body))
	if err != nil {
		return nil, fmt.Errorf("decode trend: %w", err)
	}
	if h.SignificantFigures() != trendSigFigs || h.HighestTrackableValue() > trendHighest {
		return nil, fmt.Errorf("decode trend: histogram geometry (%d digits, up to %d) is not middlebench's (%d digits, up to %d µs)",
			h.SignificantFigures(), h.HighestTrackableValue(), trendSigFigs, trendHighest)
	}
	if h.TotalCount() != n[0] {
		return nil, fmt.Errorf("decode trend: header says %d values, histogram holds %d", n[0], h.TotalCount())
	}
	t := NewTrend()
	t.h.Merge(h)
	t.count, t.sum, t.min, t.max = n[0], time.Duration(n[1]), time.Duration(n[2]), time.Duration(n[3])
	return t, nil
}
