package proxy

import (
	"testing"
	"time"
)

// TestWaitGauge: the way of waiting follows the share of time waited over
// each 10 ms: over three quarters polls, under half blocks, between keeps
// the way it had; nothing is decided before a span is full.
func TestWaitGauge(t *testing.T) {
	type wait struct{ worked, waited time.Duration }
	many := func(n int, w wait) []wait {
		ws := make([]wait, n)
		for i := range ws {
			ws[i] = w
		}
		return ws
	}
	ms := time.Millisecond
	for _, tt := range []struct {
		name     string
		from     bool // polling at the start
		waits    []wait
		polling  bool
		switches int
	}{
		{"a busy loop keeps blocking", false, many(100, wait{90 * time.Microsecond, 10 * time.Microsecond}), false, 0},
		{"an idle loop turns to the poller", false, many(100, wait{20 * time.Microsecond, 80 * time.Microsecond}), true, 1},
		{"a loop that turns busy blocks", true, many(100, wait{60 * time.Microsecond, 40 * time.Microsecond}), false, 1},
		{"an idle loop keeps polling", true, []wait{{0, 30 * ms}}, true, 0},
		{"60 % waiting keeps blocking", false, many(10, wait{400 * time.Microsecond, 600 * time.Microsecond}), false, 0},
		{"60 % waiting keeps polling", true, many(10, wait{400 * time.Microsecond, 600 * time.Microsecond}), true, 0},
		{"exactly three quarters is not over them", false, []wait{{2500 * time.Microsecond, 7500 * time.Microsecond}}, false, 0},
		{"exactly half is not under it", true, []wait{{5 * ms, 5 * ms}}, true, 0},
		{"a span not yet full decides nothing", false, []wait{{0, 9 * ms}}, false, 0},
		{"each span decides on its own", false, append(many(10, wait{0, ms}), many(10, wait{ms, 0})...), false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := waitGauge{polling: tt.from}
			var polling bool
			for _, w := range tt.waits {
				polling = g.note(w.worked, w.waited)
			}
			if polling != tt.polling || g.polling != tt.polling || g.switches != tt.switches {
				t.Errorf("polling %v (gauge %v) after %d switches, want %v after %d", polling, g.polling, g.switches, tt.polling, tt.switches)
			}
		})
	}
}
