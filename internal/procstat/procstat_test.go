package procstat

import (
	"strings"
	"testing"
	"time"
)

// A /proc/stat of a 2-CPU machine, as the kernel writes it.
const sample = `cpu  119320 1 37244 1152582 2056 0 2600 4590 0 0
cpu0 60000 1 18000 576000 1000 0 1300 2300 0 0
cpu1 59320 0 19244 576582 1056 0 1300 2290 0 0
intr 123 4 5
ctxt 456
`

func TestParse(t *testing.T) {
	ms := func(ticks int64) time.Duration { return time.Duration(ticks) * 10 * time.Millisecond }
	for _, tt := range []struct {
		name        string
		ok          bool
		busy, steal time.Duration
	}{
		{"cpu", true, ms(119320 + 1 + 37244 + 0 + 2600), ms(4590)},
		{"cpu1", true, ms(59320 + 0 + 19244 + 0 + 1300), ms(2290)},
		{"cpu2", false, 0, 0},
		{"intr", false, 0, 0}, // too few fields for a CPU line
	} {
		got, ok := parse(strings.NewReader(sample), tt.name)
		if ok != tt.ok || got.Busy() != tt.busy || got.Steal != tt.steal {
			t.Errorf("%s: busy %v steal %v ok %v, want %v %v %v", tt.name, got.Busy(), got.Steal, ok, tt.busy, tt.steal, tt.ok)
		}
	}
	if _, ok := parse(strings.NewReader("cpu 1 2 x 4 5 6 7 8\n"), "cpu"); ok {
		t.Error("a line that is not numbers was read")
	}
}
