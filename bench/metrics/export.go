package metrics

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/middlebench/middlebench/internal/timing"
)

// rootGroupID is k6's id of the root group: the MD5 of its empty path.
const rootGroupID = "d41d8cd98f00b204e9800998ecf8427e"

// SummaryExport is k6's legacy --summary-export file, key for key as real
// k6 v1.8.1 writes it: "root_group" and "metrics" only; each metric's values
// flat in the metric (a trend's summaryTrendStats, a counter's count and
// rate, a rate's passes, fails and value, a gauge's value, min and max) and
// its thresholds as source → true when the threshold FAILED (the opposite
// of handleSummary's "ok").
type SummaryExport struct {
	RootGroup ExportGroup               `json:"root_group"`
	Metrics   map[string]map[string]any `json:"metrics"`
}

// ExportGroup is k6's group in the legacy export (middlebench runs no
// groups and no checks: the root group is empty, as in k6 for a script
// without them).
type ExportGroup struct {
	Name   string                 `json:"name"`
	Path   string                 `json:"path"`
	ID     string                 `json:"id"`
	Groups map[string]ExportGroup `json:"groups"`
	Checks map[string]any         `json:"checks"`
}

// NewSummaryExport renders d in the legacy shape. Trend metrics carry
// exactly trendStats (k6's default when nil); a stat the document's values
// lack (p(99.9), count) is computed from the metric's exact histogram.
func NewSummaryExport(d *Document, trendStats []string) (*SummaryExport, error) {
	if trendStats == nil {
		trendStats = timing.DefaultTrendStats()
	}
	e := &SummaryExport{
		RootGroup: ExportGroup{ID: rootGroupID, Groups: map[string]ExportGroup{}, Checks: map[string]any{}},
		Metrics:   map[string]map[string]any{},
	}
	for name, m := range d.Metrics {
		if m.Type == TypeCounter && m.Values["count"] == 0 && len(m.Thresholds) == 0 {
			continue // k6 exports only metrics that got a sample (no dropped_iterations: 0)
		}
		flat, err := exportValues(d, name, m, trendStats)
		if err != nil {
			return nil, err
		}
		if len(m.Thresholds) > 0 {
			th := map[string]bool{}
			for src, v := range m.Thresholds {
				th[src] = !v.OK
			}
			flat["thresholds"] = th
		}
		e.Metrics[name] = flat
	}
	return e, nil
}

func exportValues(d *Document, name string, m Metric, trendStats []string) (map[string]any, error) {
	out := map[string]any{}
	pick := func(keys ...string) {
		for _, k := range keys {
			out[k] = m.Values[k]
		}
	}
	switch m.Type {
	case TypeTrend:
		tr, has, err := d.Trend(name)
		if err != nil {
			return nil, err
		}
		for _, s := range trendStats {
			v, ok := m.Values[s]
			if !ok {
				if !has {
					return nil, fmt.Errorf("summary export: %s: no %s value and no histogram to compute it", name, s)
				}
				if v, err = tr.Stat(s); err != nil {
					return nil, err
				}
			}
			out[s] = v
		}
	case TypeCounter:
		pick("count", "rate")
	case TypeRate:
		out["passes"], out["fails"], out["value"] = m.Values["passes"], m.Values["fails"], m.Values["rate"]
	case TypeGauge:
		pick("value", "min", "max")
	default:
		for k, v := range m.Values {
			out[k] = v
		}
	}
	return out, nil
}

// Write encodes the export as k6 does: indented JSON.
func (e *SummaryExport) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	if err := enc.Encode(e); err != nil {
		return fmt.Errorf("write summary export: %w", err)
	}
	return nil
}
