package bench

import (
	"testing"
	"time"
)

func TestFixedWindowSum(t *testing.T) {
	second := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name  string
		start time.Time
		want  int64
	}{
		// The article: 200/s offered, 100/s allowed, 6 s, begun two thirds into a second:
		// 66 in the first partial window, 5 × 100, then 100 of the last partial one.
		{name: "two thirds in", start: second.Add(670 * time.Millisecond), want: 666},
		{name: "on a boundary", start: second, want: 600},
	}
	for _, tt := range tests {
		got := fixedWindowSum(tt.start, 5*time.Millisecond, 6*time.Second, time.Second, 100)
		if got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
