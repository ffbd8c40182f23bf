package metrics

import "testing"

func FuzzParseThreshold(f *testing.F) {
	for _, s := range [][2]string{{"http_req_duration", "p(95)<500"}, {"http_req_failed", "rate < 0.01"}, {"http_reqs", "count>=10"},
		{"checks{name:a}", "rate===1"}, {"x", "avg!=NaN"}, {"x{", "max<1"}, {"x", "p(101)<1"}, {"x", "<"}, {"x", "med<=1e309"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, metric, source string) {
		th, err := ParseThreshold(metric, source)
		if err != nil {
			return
		}
		if th.Metric != metric || th.Op == "" || th.Agg == "" {
			t.Fatalf("%q %q parsed to %+v", metric, source, th)
		}
	})
}
