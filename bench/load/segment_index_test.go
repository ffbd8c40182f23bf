package load

import (
	"errors"
	"testing"
)

func TestSegmentAt(t *testing.T) {
	for _, tc := range []struct {
		seq   string
		index int
		want  string
	}{
		{"0,1/4,2/4,3/4,1", 0, "0:1/4"},
		{"0,1/4,2/4,3/4,1", 1, "1/4:1/2"},
		{"0,1/4,2/4,3/4,1", 3, "3/4:1"},
		{"0,1/3,1/2,1", 1, "1/3:1/2"},
		{"1/2,1", 0, "0:1/2"}, // filled: 0,1/2,1
		{"0,1/2", 1, "1/2:1"},
		{"25%,75%", 2, "3/4:1"},
	} {
		got, err := SegmentAt(tc.seq, tc.index)
		if err != nil || got != tc.want {
			t.Errorf("SegmentAt(%q, %d) = %q, %v; want %q", tc.seq, tc.index, got, err, tc.want)
			continue
		}
		// The segment it names must be one newStripe accepts in that sequence.
		if _, err := newStripe(got, tc.seq); err != nil {
			t.Errorf("SegmentAt(%q, %d) = %q, which the sequence refuses: %v", tc.seq, tc.index, got, err)
		}
	}
	for _, tc := range []struct {
		seq   string
		index int
	}{{"", 0}, {"0,1/2,1", 2}, {"0,1/2,1", -1}, {"0,x,1", 0}} {
		if _, err := SegmentAt(tc.seq, tc.index); !errors.Is(err, ErrConfig) {
			t.Errorf("SegmentAt(%q, %d): err %v, want ErrConfig", tc.seq, tc.index, err)
		}
	}
}
