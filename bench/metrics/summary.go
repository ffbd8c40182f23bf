package metrics

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/middlebench/middlebench/internal/timing"
)

// SummaryOptions choose what WriteSummary prints.
type SummaryOptions struct {
	Mode       string   // "compact" (k6's default: no phase metrics) or "full" (phases and the scenario section)
	TrendStats []string // columns of trend lines (default: k6's avg, min, med, max, p(90), p(95))
	TimeUnit   string   // "", "s", "ms" or "us"
	Scenario   string   // the scenario section's name in full mode
}

// WriteSummary prints d as k6's end-of-test summary: the THRESHOLDS
// section, TOTAL RESULTS grouped into CUSTOM, HTTP, EXECUTION and NETWORK
// with dotted names and aligned columns, and in full mode the SCENARIO
// section; middlebench adds STATUS CODES (when any request failed) and, in
// full mode, STEPS for a sweep.
func WriteSummary(w io.Writer, d *Document, o SummaryOptions) error {
	if o.TrendStats == nil {
		o.TrendStats = timing.DefaultTrendStats()
	}
	full := o.Mode == "full"
	var b strings.Builder
	if th := thresholdLines(d, o); len(th) > 0 {
		writeSection(&b, "THRESHOLDS", th)
	}
	shown := map[string]Metric{}
	for name, m := range d.Metrics {
		if !full && compactSkips(name) {
			continue
		}
		shown[name] = m
	}
	writeSection(&b, "TOTAL RESULTS", metricGroups(d, shown, o))
	if lines := statusLines(d); len(lines) > 0 {
		writeSection(&b, "STATUS CODES AND ERRORS", lines)
	}
	if full {
		scen := map[string]Metric{}
		for name, m := range shown {
			// k6's scenario section has neither the untagged gauges nor submetrics.
			if name != "vus" && name != "vus_max" && !strings.Contains(name, "{") {
				scen[name] = m
			}
		}
		if len(d.Scenarios) > 0 {
			// One section per scenario, by name, as k6 prints them.
			names := make([]string, 0, len(d.Scenarios))
			for n := range d.Scenarios {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sr := d.Scenarios[n]
				sd := &Document{Metrics: sr.Metrics, Histograms: sr.Histograms}
				own := map[string]Metric{}
				for name, m := range sr.Metrics {
					if (full || !compactSkips(name)) && name != "vus" && name != "vus_max" {
						own[name] = m
					}
				}
				writeSection(&b, "SCENARIO: "+n, metricGroups(sd, own, o))
			}
		} else {
			name := o.Scenario
			if name == "" {
				name = "default"
			}
			writeSection(&b, "SCENARIO: "+name, metricGroups(d, scen, o))
		}
		if len(d.Steps) > 0 {
			writeSection(&b, "STEPS", stepLines(d, o))
		}
	}
	_, err := io.WriteString(w, b.String()+"\n")
	if err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// writeSection follows k6's build(): a title, then each line on its own
// line, "" standing for k6's bare '\n' items.
func writeSection(b *strings.Builder, title string, lines []string) {
	b.WriteString("\n  █ " + title + " \n")
	for _, l := range lines {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("\n" + l)
	}
	b.WriteString("\n")
}

func compactSkips(name string) bool {
	for _, p := range []string{"http_req_blocked", "http_req_connecting", "http_req_receiving", "http_req_sending", "http_req_tls_handshaking", "http_req_waiting", "checks", "group_duration"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func groupOf(name string) string {
	parent, _, _ := strings.Cut(name, "{")
	switch {
	case strings.HasPrefix(parent, "http_req"):
		return "HTTP"
	case parent == "vus" || parent == "vus_max" || parent == "iterations" || parent == "iteration_duration" || parent == "dropped_iterations":
		return "EXECUTION"
	case parent == "data_sent" || parent == "data_received":
		return "NETWORK"
	}
	return "CUSTOM"
}

// sortNames sorts metric names with submetrics right after their parent.
func sortNames(names []string) {
	sort.Slice(names, func(i, j int) bool {
		pi, si, _ := strings.Cut(names[i], "{")
		pj, sj, _ := strings.Cut(names[j], "{")
		if pi != pj {
			return pi < pj
		}
		return si < sj
	})
}

func displayName(name string) string {
	if i := strings.IndexByte(name, '{'); i >= 0 {
		return "  { " + name[i+1:len(name)-1] + " }"
	}
	return name
}

// cells are one section's formatted values, aligned as k6 aligns them.
type cells struct {
	trend           map[string][]string
	main            map[string]string
	extras          map[string][]string
	nameW, mainW    int
	trendW, extrasW []int
}

func (c *cells) fill(d *Document, ms map[string]Metric, o SummaryOptions, indent int) {
	c.trend, c.main, c.extras = map[string][]string{}, map[string]string{}, map[string][]string{}
	c.trendW = make([]int, len(o.TrendStats))
	for name, m := range ms {
		c.nameW = max(c.nameW, indent+utf8.RuneCountInString(displayName(name)))
		if m.Type == TypeTrend {
			cols := make([]string, len(o.TrendStats))
			for i, s := range o.TrendStats {
				cols[i] = trendCell(d, name, m, s, o.TimeUnit)
				c.trendW[i] = max(c.trendW[i], utf8.RuneCountInString(cols[i]))
			}
			c.trend[name] = cols
			continue
		}
		vals := nonTrendCells(m, o.TimeUnit)
		c.main[name] = vals[0]
		c.mainW = max(c.mainW, utf8.RuneCountInString(vals[0]))
		c.extras[name] = vals[1:]
		for i, x := range vals[1:] {
			if i >= len(c.extrasW) {
				c.extrasW = append(c.extrasW, 0)
			}
			c.extrasW[i] = max(c.extrasW[i], utf8.RuneCountInString(x))
		}
	}
}

func trendCell(d *Document, name string, m Metric, stat, unit string) string {
	v, ok := m.Values[stat]
	if !ok {
		if t, has, err := d.Trend(name); err == nil && has {
			v, _ = t.Stat(stat)
		}
	}
	if stat == "count" {
		return fixedNoTrailingZeros(v, 6)
	}
	return humanizeValue(v, m, unit)
}

func nonTrendCells(m Metric, unit string) []string {
	v := m.Values
	switch m.Type {
	case TypeCounter:
		return []string{humanizeValue(v["count"], m, unit), humanizeValue(v["rate"], m, unit) + "/s"}
	case TypeGauge:
		return []string{humanizeValue(v["value"], m, unit), "min=" + humanizeValue(v["min"], m, unit), "max=" + humanizeValue(v["max"], m, unit)}
	case TypeRate:
		return []string{humanizeValue(v["rate"], m, unit), fmt.Sprintf("%d out of %d", int64(v["passes"]), int64(v["passes"]+v["fails"]))}
	}
	return []string{"[no data]"}
}

func pad(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// metricGroups renders ms as k6's CUSTOM/HTTP/EXECUTION/NETWORK blocks.
func metricGroups(d *Document, ms map[string]Metric, o SummaryOptions) []string {
	const indent = "    "
	var c cells
	c.fill(d, ms, o, len(indent))
	byGroup := map[string][]string{}
	for name := range ms {
		byGroup[groupOf(name)] = append(byGroup[groupOf(name)], name)
	}
	var out []string
	for _, g := range []string{"CUSTOM", "HTTP", "EXECUTION", "NETWORK"} {
		names := byGroup[g]
		if len(names) == 0 {
			continue
		}
		sortNames(names)
		out = append(out, indent+g)
		for _, name := range names {
			dn := displayName(name)
			dots := max(3, c.nameW-(len(indent)+utf8.RuneCountInString(dn))+3)
			line := indent + dn + strings.Repeat(".", dots) + ": "
			if cols, ok := c.trend[name]; ok {
				parts := make([]string, len(cols))
				for i, col := range cols {
					parts[i] = o.TrendStats[i] + "=" + pad(col, c.trendW[i])
				}
				line += strings.Join(parts, " ")
			} else {
				line += pad(c.main[name], c.mainW)
				ex := c.extras[name]
				if len(ex) == 1 {
					line += " " + ex[0]
				} else if len(ex) > 1 {
					parts := make([]string, len(ex))
					for i, x := range ex {
						parts[i] = pad(x, c.extrasW[i])
					}
					line += " " + strings.Join(parts, " ")
				}
			}
			out = append(out, line)
		}
		out = append(out, "")
	}
	return out
}

// thresholdLines renders k6's THRESHOLDS block: the metric, then one
// "✓ 'p(95)<500' p(95)=52.13ms" line per threshold.
func thresholdLines(d *Document, o SummaryOptions) []string {
	const indent = "    "
	var names []string
	for name, m := range d.Metrics {
		if len(m.Thresholds) > 0 {
			names = append(names, name)
		}
	}
	sortNames(names)
	var out []string
	for _, name := range names {
		m := d.Metrics[name]
		parent, _, isSub := strings.Cut(name, "{")
		in := indent
		label := name
		if _, parentToo := d.Metrics[parent]; isSub && parentToo && len(d.Metrics[parent].Thresholds) > 0 {
			in, label = indent+"  ", name[len(parent):]
		}
		out = append(out, in+label)
		var sources []string
		for s := range m.Thresholds {
			sources = append(sources, s)
		}
		sort.Strings(sources)
		for _, s := range sources {
			mark := "✓"
			if !m.Thresholds[s].OK {
				mark = "✗"
			}
			th, err := ParseThreshold(name, s)
			value := "n/a"
			if err == nil {
				if v, _, err := th.Eval(d); err == nil {
					value = thresholdValue(d, name, m, th.Agg, v, o.TimeUnit)
				}
			}
			out = append(out, in+mark+" '"+s+"' "+th.Agg+"="+value)
		}
		out = append(out, "")
	}
	return out
}

func thresholdValue(d *Document, name string, m Metric, agg string, v float64, unit string) string {
	switch m.Type {
	case TypeTrend:
		return trendCell(d, name, Metric{Type: m.Type, Contains: m.Contains, Values: map[string]float64{agg: v}}, agg, unit)
	case TypeCounter:
		if agg == "rate" {
			return humanizeValue(v, m, unit) + "/s"
		}
	}
	return humanizeValue(v, m, unit)
}

// statusLines lists status codes and error classes when any request failed.
func statusLines(d *Document) []string {
	failed := d.Metrics["http_req_failed"].Values["passes"] > 0
	if !failed && len(d.Errors) == 0 {
		return nil
	}
	const indent = "    "
	var out []string
	line := func(title string, m map[string]int64) {
		if len(m) == 0 {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%d", k, m[k])
		}
		out = append(out, indent+title+" "+strings.Join(parts, " "))
	}
	line("statuses:", d.Statuses)
	line("errors:", d.Errors)
	line("error codes:", d.ErrorCodes)
	return out
}

// stepLines is middlebench's table of a sweep: throughput and latency per step.
func stepLines(d *Document, o SummaryOptions) []string {
	const indent = "    "
	rows := [][]string{{"step", "target", "reqs/s", "p(95) duration", "p(95) waiting", "failed", "dropped", "generator cpu"}}
	for _, s := range d.Steps {
		target := fmt.Sprintf("%d VUs", s.VUs)
		if s.Rate > 0 || s.VUs == 0 {
			target = fixedNoTrailingZeros(s.Rate, 2) + "/s"
		}
		val := func(metric, stat string) float64 { return s.Metrics[metric].Values[stat] }
		cpu := NoValue
		if s.GeneratorCPU != nil {
			cpu = fmt.Sprintf("%.1f%%", s.GeneratorCPU.Percent)
		}
		rows = append(rows, []string{s.Name, target, fixedNoTrailingZeros(val("http_reqs", "rate"), 2),
			HumanizeDuration(val("http_req_duration", "p(95)"), o.TimeUnit), HumanizeDuration(val("http_req_waiting", "p(95)"), o.TimeUnit),
			humanizeValue(val("http_req_failed", "rate"), Metric{Type: TypeRate}, ""), fixedNoTrailingZeros(val("dropped_iterations", "count"), 0), cpu})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, c := range r {
			parts[i] = pad(c, widths[i])
		}
		out = append(out, strings.TrimRight(indent+strings.Join(parts, "  "), " "))
	}
	return out
}
