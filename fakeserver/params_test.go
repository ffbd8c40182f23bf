package fakeserver

import (
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func TestParseSpec(t *testing.T) {
	def := spec{work: units.Fixed(time.Millisecond), size: 10, status: 200}
	tests := []struct {
		q       string
		check   func(spec) bool
		wantErr string
	}{
		{q: "", check: func(s spec) bool { return s == def }},
		{q: "work=500ms&size=8KiB&status=429&cpu=2ms", check: func(s spec) bool {
			return s.work.Mean() == 500*time.Millisecond && s.size == 8192 && s.status == 429 && s.cpu == 2*time.Millisecond
		}},
		{q: "work=normal%3A50ms%2C5ms", check: func(s spec) bool { return !s.work.IsFixed() && s.work.Mean() == 50*time.Millisecond }},
		{q: "size=1+KiB", check: func(s spec) bool { return s.size == 1024 }},
		{q: "x=1&&y", check: func(s spec) bool { return s == def }},
		{q: "status=", wantErr: "query parameter status"},
		{q: "work=%zz", wantErr: "bad escape"},
		{q: "size=-5", wantErr: "negative"},
	}
	for _, tt := range tests {
		got, err := parseSpec(tt.q, def, limits{work: time.Minute, cpu: 10 * time.Second, size: units.GiB})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.q, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(got) {
			t.Errorf("%q: got %+v, %v", tt.q, got, err)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"work=500ms&size=8KiB", "status=429", "work=lognormal:p50=1ms,p99=2ms", "cpu=%41", "size=1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		s, err := parseSpec(q, spec{status: 200}, limits{work: time.Minute, cpu: 10 * time.Second, size: units.GiB})
		if err != nil {
			return
		}
		if s.status < 200 || s.status > 599 || s.size < 0 || s.size > int64(units.GiB) || s.cpu < 0 || s.cpu > 10*time.Second || s.work.Mean() > time.Minute {
			t.Fatalf("%q accepted as %+v", q, s)
		}
	})
}

func TestServerTimingFormat(t *testing.T) {
	got := serverTiming(timings{app: 50123456 * time.Nanosecond, queue: 1500 * time.Microsecond})
	if want := "app;dur=50.123, queue;dur=1.500, read;dur=0.000"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
