package load

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"
)

// maxSegmentLCD bounds the striping cycle: the wrapper is built in
// O(lcd·segments), and no real split needs more than a million stripes.
const maxSegmentLCD = 1_000_000

// segmentBounds is one (from, to] execution segment, k6's syntax: "1/4:2/4",
// "0.25:0.5", "25%:50%", or one value v meaning 0:v; "" is the whole run.
type segmentBounds struct{ from, to *big.Rat }

func (s segmentBounds) String() string { return s.from.RatString() + ":" + s.to.RatString() }

func (s segmentBounds) length() *big.Rat { return new(big.Rat).Sub(s.to, s.from) }

// parseRat reads a percentage, decimal or fraction in [0, 1].
func parseRat(field, s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	r := new(big.Rat)
	ok := false
	if p, isPct := strings.CutSuffix(s, "%"); isPct {
		_, ok = r.SetString(p)
		r.Quo(r, big.NewRat(100, 1))
	} else {
		_, ok = r.SetString(s)
	}
	if !ok || s == "" {
		return nil, configErr(field, "%q is not a percentage, decimal or fraction", s)
	}
	if r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return nil, configErr(field, "%q is outside 0..1", s)
	}
	return r, nil
}

func parseSegment(s string) (segmentBounds, error) {
	const field = "executionSegment"
	from, to := big.NewRat(0, 1), big.NewRat(1, 1)
	var err error
	if s = strings.TrimSpace(s); s != "" {
		f, t, hasFrom := strings.Cut(s, ":")
		if !hasFrom {
			t = f
		} else if from, err = parseRat(field, f); err != nil {
			return segmentBounds{}, err
		}
		if to, err = parseRat(field, t); err != nil {
			return segmentBounds{}, err
		}
	}
	if from.Cmp(to) >= 0 {
		return segmentBounds{}, configErr(field, "%q: the start must be below the end", s)
	}
	return segmentBounds{from, to}, nil
}

// parseSequence reads k6's "0,1/4,2/4,3/4,1": strictly increasing
// boundaries; the segments are the gaps between neighbours.
func parseSequence(s string) ([]*big.Rat, error) {
	const field = "executionSegmentSequence"
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []*big.Rat
	for _, p := range strings.Split(s, ",") {
		r, err := parseRat(field, p)
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && out[n-1].Cmp(r) >= 0 {
			return nil, configErr(field, "%q: the values must increase (%s then %s)", s, out[n-1].RatString(), r.RatString())
		}
		out = append(out, r)
	}
	if len(out) < 2 {
		return nil, configErr(field, "%q: give at least two boundaries, such as 0,1", s)
	}
	return out, nil
}

// stripe is one segment's share of every countable thing of a run (VUs,
// iterations, arrivals), k6's striping over the sequence: within each
// cycle of lcd consecutive items (lcd: the least common denominator of the
// segments' lengths) the segment owns the items at pos, len(pos) =
// length·lcd of them. The segments of one sequence own disjoint positions
// that together are the whole cycle, so they split everything exactly.
type stripe struct {
	seg segmentBounds
	seq string // the filled sequence, k6's form
	lcd int64
	pos []int64 // sorted, in [0, lcd)

	all   []segmentBounds // the filled sequence's segments
	index int             // seg's place in all
}

// fullStripe is the unsegmented run: it owns everything.
func fullStripe() *stripe {
	return &stripe{seg: segmentBounds{big.NewRat(0, 1), big.NewRat(1, 1)}, seq: "0,1", lcd: 1, pos: []int64{0}}
}

// newStripe resolves a segment in a sequence as k6 does: no sequence means
// the segment with the gaps around it; a sequence not starting at 0 or not
// ending at 1 is filled; the segment must be one of its segments.
func newStripe(segment, sequence string) (*stripe, error) {
	seg, err := parseSegment(segment)
	if err != nil {
		return nil, err
	}
	bounds, err := parseSequence(sequence)
	if err != nil {
		return nil, err
	}
	if bounds == nil {
		bounds = []*big.Rat{seg.from, seg.to}
	}
	bounds = fillSequence(bounds)
	segs := make([]segmentBounds, len(bounds)-1)
	index := -1
	var text []string
	for i := range segs {
		segs[i] = segmentBounds{bounds[i], bounds[i+1]}
		if segs[i].from.Cmp(seg.from) == 0 && segs[i].to.Cmp(seg.to) == 0 {
			index = i
		}
		text = append(text, bounds[i].RatString())
	}
	text = append(text, "1")
	if index < 0 {
		return nil, configErr("executionSegment", "segment %s is not one of the sequence %s", seg, strings.Join(text, ","))
	}
	return newStripeOf(segs, index, strings.Join(text, ","))
}

// fillSequence starts the boundaries at 0 and ends them at 1, as k6 does.
func fillSequence(bounds []*big.Rat) []*big.Rat {
	if bounds[0].Sign() != 0 {
		bounds = append([]*big.Rat{big.NewRat(0, 1)}, bounds...)
	}
	if one := big.NewRat(1, 1); bounds[len(bounds)-1].Cmp(one) != 0 {
		bounds = append(bounds, one)
	}
	return bounds
}

func newStripeOf(segs []segmentBounds, index int, seq string) (*stripe, error) {
	positions, lcd, err := stripes(segs)
	if err != nil {
		return nil, err
	}
	return &stripe{seg: segs[index], seq: seq, lcd: lcd, pos: positions[index], all: segs, index: index}, nil
}

// resplit is k6's re-segmenting of a sequence by a value (shared-iterations
// splits its iterations this way): each segment's new length is its share
// of v over v, segments with no share dropped, so that iterations follow
// the VUs that will run them. nil: this segment has no share of v.
func (s *stripe) resplit(v int64) (*stripe, error) {
	if v < 1 || s.isFull() {
		return s, nil
	}
	var segs []segmentBounds
	index, prev := -1, int64(0)
	for i := range s.all {
		o, err := newStripeOf(s.all, i, s.seq)
		if err != nil {
			return nil, err
		}
		n := o.scale(v)
		if n == 0 {
			continue
		}
		if i == s.index {
			index = len(segs)
		}
		segs = append(segs, segmentBounds{big.NewRat(prev, v), big.NewRat(prev+n, v)})
		prev += n
	}
	if index < 0 {
		return nil, nil
	}
	return newStripeOf(segs, index, s.seq)
}

// stripes deals the items 0..lcd-1 of a cycle to the segments: item i goes
// to the first segment, largest first (ties in sequence order), whose taken
// count c has not got ahead of its share, c·lcd ≤ i·n (n: its length in
// 1/lcd). This spreads each segment's items evenly over the cycle.
func stripes(segs []segmentBounds) ([][]int64, int64, error) {
	lcd := int64(1)
	for _, s := range segs {
		d := s.length().Denom()
		g := new(big.Int).GCD(nil, nil, big.NewInt(lcd), d)
		l := new(big.Int).Mul(big.NewInt(lcd), new(big.Int).Quo(d, g))
		if !l.IsInt64() || l.Int64() > maxSegmentLCD {
			return nil, 0, configErr("executionSegmentSequence", "the segments' common denominator exceeds %d", maxSegmentLCD)
		}
		lcd = l.Int64()
	}
	n := make([]int64, len(segs))
	order := make([]int, len(segs))
	for i, s := range segs {
		l := s.length()
		n[i] = l.Num().Int64() * (lcd / l.Denom().Int64())
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return n[order[a]] > n[order[b]] })
	out := make([][]int64, len(segs))
	for i := int64(0); i < lcd; i++ {
		for _, k := range order {
			if int64(len(out[k]))*lcd <= i*n[k] {
				out[k] = append(out[k], i)
				break
			}
		}
	}
	return out, lcd, nil
}

// isFull says the stripe owns everything (no segmentation).
func (s *stripe) isFull() bool { return s.lcd == 1 }

// scale is how many of the first v items the segment owns (k6's
// ScaleInt64): its share of v VUs or v iterations.
func (s *stripe) scale(v int64) int64 {
	r := v / s.lcd * int64(len(s.pos))
	rem := v % s.lcd
	return r + int64(sort.Search(len(s.pos), func(i int) bool { return s.pos[i] >= rem }))
}

func (s *stripe) scaleInt(v int) int { return int(s.scale(int64(v))) }

// global is the index, in the whole run, of the segment's k-th item.
func (s *stripe) global(k int64) int64 {
	n := int64(len(s.pos))
	return k/n*s.lcd + s.pos[k%n]
}

func (s *stripe) String() string { return fmt.Sprintf("%s of %s", s.seg, s.seq) }

// stripedPacer starts the segment's arrivals: the k-th is the whole run's
// arrival global(k), at the whole run's time for it.
type stripedPacer struct {
	all pacer
	st  *stripe
}

func (p stripedPacer) at(i int64) (time.Duration, bool) { return p.all.at(p.st.global(i)) }
