package proxy

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/middlebench/middlebench/internal/clock"
)

// expectedFixed is the article's formula, computed independently:
// Σ over the wall-clock windows the arrivals touch of min(arrivals, limit).
func expectedFixed(arrivals []time.Time, window time.Duration, limit int) int {
	per := map[int64]int{}
	for _, a := range arrivals {
		per[a.UnixNano()/int64(window)]++
	}
	total := 0
	for _, n := range per {
		total += min(n, limit)
	}
	return total
}

func schedule(start time.Time, every time.Duration, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i) * every)
	}
	return out
}

func TestFixedWindowArticleE5(t *testing.T) {
	// 200/s offered for 6 s from 0.67 s into a second, 100/s allowed:
	// 1,201 sent, 66 + 5 × 100 + 100 = 666 passed, 535 rejected.
	start := time.Unix(1_700_000_000, 670*int64(time.Millisecond))
	arr := schedule(start, 5*time.Millisecond, 1201)
	fw := &fixedWindow{window: int64(time.Second), limit: 100, index: -1}
	passed, firstWindow := 0, 0
	for _, a := range arr {
		if fw.allow(a).ok {
			passed++
			if a.Before(time.Unix(1_700_000_001, 0)) {
				firstWindow++
			}
		}
	}
	if passed != 666 || firstWindow != 66 || len(arr)-passed != 535 {
		t.Fatalf("passed %d (first window %d), rejected %d; want 666 (66), 535", passed, firstWindow, len(arr)-passed)
	}
}

func TestLimitersMatchTheirDefinition(t *testing.T) {
	tests := []struct {
		name   string
		offset time.Duration // into the second
		every  time.Duration
		n      int
		window time.Duration
		limit  int
	}{
		{"on the second", 0, 5 * time.Millisecond, 1201, time.Second, 100},
		{"third in", 333 * time.Millisecond, 5 * time.Millisecond, 1201, time.Second, 100},
		{"under the limit", 100 * time.Millisecond, 20 * time.Millisecond, 300, time.Second, 100},
		{"2 s windows", 1500 * time.Millisecond, 3 * time.Millisecond, 2000, 2 * time.Second, 150},
		{"ms windows", 250 * time.Microsecond, 100 * time.Microsecond, 5000, 10 * time.Millisecond, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arr := schedule(time.Unix(1_700_000_000, 0).Add(tt.offset), tt.every, tt.n)
			fw := &fixedWindow{window: int64(tt.window), limit: int64(tt.limit), index: -1}
			sw := newSlidingWindow(int64(tt.limit), tt.window)
			fixed, sliding := 0, 0
			var passes []time.Time
			for _, a := range arr {
				if fw.allow(a).ok {
					fixed++
				}
				if d := sw.allow(a); d.ok {
					sliding++
					passes = append(passes, a)
				}
			}
			if want := expectedFixed(arr, tt.window, tt.limit); fixed != want {
				t.Errorf("fixed window passed %d, want %d", fixed, want)
			}
			// Sliding: no window of that length ever holds more than limit passes,
			// and a request was refused only when it would have exceeded it.
			for i := tt.limit; i < len(passes); i++ {
				if passes[i].Sub(passes[i-tt.limit]) < tt.window {
					t.Fatalf("sliding window let %d through within %v", tt.limit+1, passes[i].Sub(passes[i-tt.limit]))
				}
			}
			t.Logf("fixed %d, sliding %d of %d", fixed, sliding, tt.n)
		})
	}
}

func TestTokenBucketCounts(t *testing.T) {
	// 100/s, burst 10, 200/s offered for 5 s: 10 + 100 × 5 = 510 pass
	// (the first arrival is at 0, the last at 5 s − 5 ms).
	tb := &tokenBucket{lim: rate.NewLimiter(100, 10)}
	start := time.Unix(1_700_000_000, 0)
	passed := 0
	for _, a := range schedule(start, 5*time.Millisecond, 1000) {
		if d := tb.allow(a); d.ok {
			passed++
		} else if d.reset <= 0 || d.reset > 10*time.Millisecond {
			t.Fatalf("reset %v outside (0, 10ms]", d.reset)
		}
	}
	if passed < 509 || passed > 510 {
		t.Fatalf("passed %d, want 510 (−1 for float rounding)", passed)
	}
}

// TestRateLimitStageOnFakeClock drives real HTTP through a box whose clock
// is fake, so the counts are exact: E5 through the whole box.
func TestRateLimitStageOnFakeClock(t *testing.T) {
	up := origin(t)
	fc := clock.NewFake(time.Unix(1_700_000_000, 670*int64(time.Millisecond)))
	cfg := PathConfig{Boxes: []BoxConfig{{Name: "lb", Stages: []StageConfig{mustStage(t, "ratelimit:rate=100/s,window=1s")}}}}
	p, err := start(context.Background(), cfg, up.URL, fc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := &http.Client{Timeout: 10 * time.Second}
	statuses := map[int]int{}
	var last *http.Response
	for i := range 1201 {
		if i > 0 {
			fc.Advance(5 * time.Millisecond)
		}
		resp, _ := get(t, c, p.URL()+"/")
		statuses[resp.StatusCode]++
		if resp.StatusCode == 429 {
			last = resp
		}
	}
	if statuses[200] != 666 || statuses[429] != 535 {
		t.Fatalf("statuses %v, want 666×200 and 535×429", statuses)
	}
	if last.Header.Get("Retry-After") == "" || last.Header.Get("RateLimit-Policy") != `"default";q=100;w=1` ||
		last.Header.Get("RateLimit") == "" {
		t.Fatalf("429 headers: %v", last.Header)
	}
	st := p.Stats().Boxes[0].Stages[0]
	if st.Seen != 1201 || st.Passed != 666 || st.Rejected["429"] != 535 {
		t.Fatalf("stage stats %+v", st)
	}
	if n := len(p.Ledger()); n != 535 {
		t.Fatalf("ledger has %d entries, want one per rejection (535)", n)
	}
}

func TestRateLimitKeys(t *testing.T) {
	up := origin(t)
	fc := clock.NewFake(time.Unix(1_700_000_000, 0))
	cfg := PathConfig{Boxes: []BoxConfig{{Stages: []StageConfig{mustStage(t, "ratelimit:rate=2/s,key=header:X-Key,status=503,body=slow down")}}}}
	p, err := start(context.Background(), cfg, up.URL, fc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	codes := map[string][]int{}
	for _, key := range []string{"a", "a", "a", "b", "b", "b"} {
		req, _ := http.NewRequest("GET", p.URL(), nil)
		req.Header.Set("X-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[key] = append(codes[key], resp.StatusCode)
	}
	for _, k := range []string{"a", "b"} {
		if got := codes[k]; got[0] != 200 || got[1] != 200 || got[2] != 503 {
			t.Errorf("key %s: %v, want 200 200 503", k, got)
		}
	}
}

func mustStage(t testing.TB, s string) StageConfig {
	t.Helper()
	sc, err := ParseStage(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

var _ = strconv.Itoa
