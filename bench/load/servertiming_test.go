package load

import (
	"testing"
)

func TestServerTiming(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		metric string
		want   float64
		ok     bool
	}{
		{"fake server", []string{"queue;dur=0.012, app;dur=51.27"}, "app", 51.27, true},
		{"first entry", []string{"app;dur=3"}, "app", 3, true},
		{"other metric", []string{"queue;dur=1.5, app;dur=2"}, "queue", 1.5, true},
		{"absent", []string{"db;dur=3"}, "app", 0, false},
		{"no dur", []string{"app;desc=\"hit\""}, "app", 0, false},
		{"no dur then dur", []string{"app, app;dur=7"}, "app", 7, true},
		{"dur without value", []string{"app;dur"}, "app", 0, false},
		{"quoted dur", []string{`app;dur="12.5"`}, "app", 12.5, true},
		{"desc with comma and semicolon", []string{`app;desc="a, b; c";dur=4`}, "app", 4, true},
		{"escaped quote in desc", []string{`app;desc="say \"hi\", ok";dur=9`}, "app", 9, true},
		{"whitespace", []string{"  app ; dur = 8 ,x;dur=1"}, "app", 8, true},
		{"upper DUR", []string{"app;DUR=6"}, "app", 6, true},
		{"name is case-sensitive", []string{"APP;dur=6"}, "app", 0, false},
		{"second header line", []string{"cache;desc=hit", "app;dur=1.25"}, "app", 1.25, true},
		{"negative", []string{"app;dur=-1"}, "app", 0, false},
		{"garbage", []string{"app;dur=abc"}, "app", 0, false},
		{"prefix is not the name", []string{"application;dur=5"}, "app", 0, false},
		{"empty", nil, "app", 0, false},
		{"bare commas", []string{",,,app;dur=2,,"}, "app", 2, true},
		{"first of two", []string{"app;dur=1, app;dur=2"}, "app", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := serverTiming(tt.values, tt.metric)
			if ok != tt.ok || got != tt.want {
				t.Errorf("serverTiming(%q, %q) = %v, %v; want %v, %v", tt.values, tt.metric, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestServerTimingAllocs(t *testing.T) {
	v := []string{`queue;dur=0.012, app;desc="x";dur=51.27`}
	if n := testing.AllocsPerRun(100, func() { serverTiming(v, "app") }); n != 0 {
		t.Errorf("%v allocations per parse, want 0", n)
	}
}

func FuzzServerTiming(f *testing.F) {
	for _, s := range []string{"queue;dur=0.012, app;dur=51.27", `app;desc="a,\"b";dur=1`, "app;dur", ";;,,\"", "app;dur=\"1e3\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, ok := serverTiming([]string{s}, "app")
		if ok && (ms < 0 || ms != ms) {
			t.Fatalf("%q gave %v", s, ms)
		}
	})
}

func BenchmarkServerTiming(b *testing.B) {
	v := []string{"queue;dur=0.012, app;dur=51.27"}
	b.ReportAllocs()
	for b.Loop() {
		serverTiming(v, "app")
	}
}
