package merge

import (
	"fmt"
	"sort"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// part is one document's metrics and their encoded histograms.
type part struct {
	name       string
	metrics    map[string]metrics.Metric
	histograms map[string]string
}

// mergeMetrics adds up the parts' metrics over a window of seconds:
// counters' counts (rate = count / seconds), rates' passes and fails,
// trends through their HDR histograms (every statistic is that of all the
// samples, never an average of the parts'), gauges of processes that ran
// at once by adding value, min and max (vus: the VUs of all generators).
// Thresholds are dropped: they are evaluated again on the merge.
func mergeMetrics(parts []part, seconds float64) (map[string]metrics.Metric, map[string]string, error) {
	names := map[string]bool{}
	for _, p := range parts {
		for n := range p.metrics {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	out := map[string]metrics.Metric{}
	hists := map[string]string{}
	for _, name := range sorted {
		var first *metrics.Metric
		var counter metrics.Counter
		var rate metrics.Rate
		gauge := map[string]float64{}
		trend := timing.NewTrend()
		for _, p := range parts {
			m, ok := p.metrics[name]
			if !ok {
				continue
			}
			if first == nil {
				first = &m
			} else if m.Type != first.Type {
				return nil, nil, fmt.Errorf("%w: %s: metric %q is a %s, elsewhere a %s", ErrMismatch, p.name, name, m.Type, first.Type)
			}
			switch m.Type {
			case metrics.TypeCounter:
				counter.Add(int64(m.Values["count"]))
			case metrics.TypeRate:
				rate.Merge(metrics.Rate{Passes: int64(m.Values["passes"]), Fails: int64(m.Values["fails"])})
			case metrics.TypeGauge:
				for k, v := range m.Values {
					gauge[k] += v
				}
			case metrics.TypeTrend:
				enc, ok := p.histograms[name]
				if !ok {
					return nil, nil, fmt.Errorf("%w: %s: trend %q carries no histogram: its percentiles cannot be merged exactly", ErrMismatch, p.name, name)
				}
				t, err := timing.DecodeTrend(enc)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: histogram %q: %w", p.name, name, err)
				}
				trend.Merge(t)
			default:
				return nil, nil, fmt.Errorf("%w: %s: metric %q has unknown type %q", ErrMismatch, p.name, name, m.Type)
			}
		}
		m := metrics.Metric{Type: first.Type, Contains: first.Contains}
		switch first.Type {
		case metrics.TypeCounter:
			m.Values = counter.Values(seconds)
		case metrics.TypeRate:
			m.Values = rate.Values()
		case metrics.TypeGauge:
			m.Values = gauge
		case metrics.TypeTrend:
			stats := make([]string, 0, len(first.Values))
			for k := range first.Values {
				stats = append(stats, k)
			}
			sort.Strings(stats)
			v, err := trend.Values(stats)
			if err != nil {
				return nil, nil, fmt.Errorf("trend %q: %w", name, err)
			}
			m.Values = v
			if hists[name], err = trend.Encode(); err != nil {
				return nil, nil, fmt.Errorf("trend %q: %w", name, err)
			}
		}
		out[name] = m
	}
	return out, hists, nil
}

// thresholds collects every threshold the parts were given, as k6 sources
// keyed by metric, to evaluate them on the merge.
func thresholds(parts []part) ([]metrics.Threshold, error) {
	seen := map[[2]string]bool{}
	var out []metrics.Threshold
	for _, p := range parts {
		names := make([]string, 0, len(p.metrics))
		for n := range p.metrics {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			srcs := make([]string, 0, len(p.metrics[n].Thresholds))
			for s := range p.metrics[n].Thresholds {
				srcs = append(srcs, s)
			}
			sort.Strings(srcs)
			for _, s := range srcs {
				if seen[[2]string{n, s}] {
					continue
				}
				seen[[2]string{n, s}] = true
				t, err := metrics.ParseThreshold(n, s)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p.name, err)
				}
				out = append(out, t)
			}
		}
	}
	return out, nil
}
