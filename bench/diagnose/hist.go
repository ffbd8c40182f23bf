package diagnose

import (
	"math"
	"math/bits"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// hist aggregates one timing of a stream in nanoseconds: an HDR histogram
// (3 significant digits for the whole run, 2 for breakdowns and time
// buckets) plus the exact count, sum, min and max. Its percentiles follow
// k6's definition (linear interpolation between the two nearest ranks), so
// that a stream read here and k6's own summary of the same run agree within
// the histogram's precision.
type hist struct {
	h   *hdr.Histogram
	mag int // log2 of the sub-bucket count: bucket width doubles past 1<<mag
	sums
}

// histHighest is the largest value tracked in the histogram (1 hour in ns);
// larger values are kept exactly in min/max/sum only.
const histHighest = int64(time.Hour)

func newHist(digits int) *hist {
	largest := 2 * math.Pow10(digits)
	return &hist{
		h:   hdr.New(1, histHighest, digits),
		mag: int(math.Ceil(math.Log2(largest))),
	}
}

func (h *hist) add(ns int64) {
	ns = max(ns, 0)
	h.sums.add(ns)
	_ = h.h.RecordValue(min(ns, histHighest)) // cannot fail: within range
}

func (h *hist) merge(o *hist) {
	if o == nil || o.n == 0 {
		return
	}
	h.sums.merge(o.sums)
	h.h.Merge(o.h)
}

func (h *hist) clone() *hist {
	c := *h
	c.h = h.h.Clone()
	return &c
}

// statPercentiles are the percentiles a Stat carries, as fractions.
var statPercentiles = [...]float64{0.5, 0.9, 0.95, 0.99}

// stat summarises the histogram in ms.
func (h *hist) stat() Stat {
	if h.n == 0 {
		return Stat{}
	}
	// Two ranks per percentile (k6: i = p·(n−1), interpolate floor/ceil).
	var ranks [2 * len(statPercentiles)]int64
	var qs [2 * len(statPercentiles)]float64
	for k, p := range statPercentiles {
		i := p * float64(h.n-1)
		ranks[2*k], ranks[2*k+1] = int64(math.Floor(i)), int64(math.Ceil(i))
	}
	for k, r := range ranks {
		// hdr's rank for percentile q is int(q/100·n + 0.5): q = 100·(r+1)/n
		// selects the (r+1)-th smallest value exactly.
		qs[k] = 100 * float64(r+1) / float64(h.n)
	}
	vals := h.h.ValueAtPercentilesSlice(qs[:])
	at := func(k int) float64 {
		r := ranks[k]
		switch r {
		case 0:
			return float64(h.min)
		case h.n - 1:
			return float64(h.max)
		}
		v := vals[k]
		width := int64(1) << max(0, bits.Len64(uint64(v))-h.mag)
		mid := v - (width-1)/2 // HDR answers with the bucket's highest value
		return float64(min(max(mid, h.min), h.max))
	}
	pct := func(k int) float64 {
		i := statPercentiles[k] * float64(h.n-1)
		lo, hi := at(2*k), at(2*k+1)
		return nsToMs(lo + (hi-lo)*(i-math.Floor(i)))
	}
	return Stat{
		Count: h.n,
		Avg:   nsToMs(float64(h.sum) / float64(h.n)),
		Min:   nsToMs(float64(h.min)),
		Max:   nsToMs(float64(h.max)),
		Med:   pct(0),
		P90:   pct(1),
		P95:   pct(2),
		P99:   pct(3),
	}
}

func nsToMs(ns float64) float64 { return ns / 1e6 }

// msToNs converts a k6 time value (ms) to integer nanoseconds.
func msToNs(ms float64) int64 {
	if !(ms > 0) { // also NaN
		return 0
	}
	if ms > float64(math.MaxInt64/2)/1e6 {
		return math.MaxInt64 / 2
	}
	return int64(math.Round(ms * 1e6))
}

// sums keeps count, sum, min and max of a timing whose percentiles are not
// needed (a phase of a time bucket): a few words instead of a histogram.
type sums struct {
	n, sum, min, max int64
}

func (s *sums) add(ns int64) {
	if s.n == 0 || ns < s.min {
		s.min = ns
	}
	s.max = max(s.max, ns)
	s.n++
	s.sum += ns
}

func (s *sums) merge(o sums) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	s.max = max(s.max, o.max)
	s.n += o.n
	s.sum += o.sum
}

func (s sums) stat() Stat {
	if s.n == 0 {
		return Stat{}
	}
	return Stat{
		Count:         s.n,
		Avg:           nsToMs(float64(s.sum) / float64(s.n)),
		Min:           nsToMs(float64(s.min)),
		Max:           nsToMs(float64(s.max)),
		noPercentiles: true,
	}
}
