package metrics

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// ErrThreshold is wrapped by every threshold syntax error.
var ErrThreshold = errors.New("invalid threshold")

// Threshold is one k6 threshold expression on one metric or submetric:
// "p(95)<500" on "http_req_duration", "rate<0.01" on "http_req_failed".
// Trend values are in milliseconds, as in k6.
type Threshold struct {
	Metric string  // metric name, with a submetric's {tag:value,…} if any
	Source string  // the expression as written
	Agg    string  // avg, min, max, med, p(N), count, rate, value
	Op     string  // <, <=, >, >=, ==, ===, !=
	Value  float64 // right-hand side
	// AbortOnFail ends the run as soon as the threshold fails, once
	// DelayAbortEval has passed (k6's object form).
	AbortOnFail    bool
	DelayAbortEval time.Duration
}

// ParseThresholdFlag reads "METRIC:EXPR" (the --threshold flag), e.g.
// "http_req_failed:rate<0.01" or "http_req_duration{name:login}:p(95)<500".
func ParseThresholdFlag(s string) (Threshold, error) {
	split := strings.IndexByte(s, ':')
	if i := strings.IndexByte(s, '{'); i >= 0 && i < split {
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return Threshold{}, fmt.Errorf("%w %q: unclosed '{' in the metric name", ErrThreshold, s)
		}
		split = strings.IndexByte(s[j:], ':')
		if split >= 0 {
			split += j
		}
	}
	if split <= 0 {
		return Threshold{}, fmt.Errorf("%w %q: want METRIC:EXPRESSION such as http_req_failed:rate<0.01", ErrThreshold, s)
	}
	return ParseThreshold(strings.TrimSpace(s[:split]), s[split+1:])
}

// ParseThreshold reads one k6 expression "AGG OP VALUE" for metric.
func ParseThreshold(metric, source string) (Threshold, error) {
	t := Threshold{Metric: metric, Source: strings.TrimSpace(source)}
	bad := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("%w %s: %q: %s", ErrThreshold, metric, source, fmt.Sprintf(format, a...))
	}
	if _, _, err := SplitSubmetric(metric); err != nil {
		return Threshold{}, err
	}
	s := t.Source
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return bad("no operator: want e.g. p(95)<500, rate<0.01, count<10")
	}
	t.Agg = strings.TrimSpace(s[:i])
	rest := s[i:]
	for _, op := range []string{"===", "<=", ">=", "==", "!=", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			t.Op, rest = op, rest[len(op):]
			break
		}
	}
	if t.Op == "" {
		return bad("unknown operator in %q", rest)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return bad("%q is not a number", strings.TrimSpace(rest))
	}
	t.Value = v
	switch t.Agg {
	case "avg", "min", "max", "med", "count", "rate", "value":
	default:
		if _, err := timing.ParsePercentile(t.Agg); err != nil {
			return bad("unknown aggregation %q: want avg, min, max, med, p(N), count, rate or value", t.Agg)
		}
	}
	return t, nil
}

// CheckType refuses an aggregation the metric type does not have, as k6
// does before a run starts.
func (t Threshold) CheckType(metricType string) error {
	ok := false
	switch metricType {
	case TypeTrend:
		ok = t.Agg == "avg" || t.Agg == "min" || t.Agg == "max" || t.Agg == "med" || strings.HasPrefix(t.Agg, "p(")
	case TypeCounter:
		ok = t.Agg == "count" || t.Agg == "rate"
	case TypeRate:
		ok = t.Agg == "rate"
	case TypeGauge:
		ok = t.Agg == "value"
	}
	if !ok {
		return fmt.Errorf("%w %s: %q: a %s metric has no %q aggregation", ErrThreshold, t.Metric, t.Source, metricType, t.Agg)
	}
	return nil
}

// SplitSubmetric splits "http_req_duration{name:login,status:200}" into the
// parent name and its tag filters (sorted by key).
func SplitSubmetric(name string) (parent string, tags [][2]string, err error) {
	i := strings.IndexByte(name, '{')
	if i < 0 {
		if name == "" || strings.ContainsAny(name, "} :") {
			return "", nil, fmt.Errorf("%w: %q is not a metric name", ErrThreshold, name)
		}
		return name, nil, nil
	}
	if !strings.HasSuffix(name, "}") || i == 0 {
		return "", nil, fmt.Errorf("%w: submetric %q: want metric{tag:value}", ErrThreshold, name)
	}
	parent = name[:i]
	for _, kv := range strings.Split(name[i+1:len(name)-1], ",") {
		k, v, ok := strings.Cut(kv, ":")
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
		if !ok || k == "" {
			return "", nil, fmt.Errorf("%w: submetric %q: tag %q: want tag:value", ErrThreshold, name, kv)
		}
		tags = append(tags, [2]string{k, v})
	}
	sort.Slice(tags, func(a, b int) bool { return tags[a][0] < tags[b][0] })
	return parent, tags, nil
}

// Eval computes the threshold's aggregation from the document (a p(N) the
// values lack is read from the metric's histogram) and whether it holds.
func (t Threshold) Eval(d *Document) (value float64, ok bool, err error) {
	m, found := d.Metrics[t.Metric]
	if !found {
		return 0, false, fmt.Errorf("threshold %s: %q: the run has no metric %q", t.Metric, t.Source, t.Metric)
	}
	value, found = m.Values[t.Agg]
	if !found {
		tr, has, err := d.Trend(t.Metric)
		if err != nil || !has {
			return 0, false, fmt.Errorf("threshold %s: %q: no %s value and no histogram to compute it", t.Metric, t.Source, t.Agg)
		}
		if value, err = tr.Stat(t.Agg); err != nil {
			return 0, false, err
		}
	}
	return value, compare(value, t.Op, t.Value), nil
}

func compare(a float64, op string, b float64) bool {
	switch op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "==", "===":
		return a == b
	case "!=":
		return a != b
	}
	return false
}

// ApplyThresholds evaluates ts on d, writes each verdict into the metric's
// Thresholds (keyed by source, as handleSummary does) and returns how many
// failed. A submetric no sample matched is k6's empty submetric: its
// parent's type with every value 0, judged on those zeros and exported
// (http_req_duration{status:500}: p(95)=0, so p(95)<500 passes). A
// threshold on a metric the run never produced at all fails.
func ApplyThresholds(d *Document, ts []Threshold) (failed int) {
	for _, t := range ts {
		addEmptySubmetric(d, t)
		_, ok, err := t.Eval(d)
		if err != nil {
			ok = false
		}
		m, found := d.Metrics[t.Metric]
		if !found {
			m = Metric{Type: TypeCounter, Contains: ContainsDefault, Values: map[string]float64{}}
		}
		if m.Thresholds == nil {
			m.Thresholds = map[string]Verdict{}
		}
		m.Thresholds[t.Source] = Verdict{OK: ok}
		d.Metrics[t.Metric] = m
		if !ok {
			failed++
		}
	}
	return failed
}

// emptyTrendStats are the values of an empty trend submetric, as k6
// exports them (zeros), whatever the summary's trend stats.
var emptyTrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"}

// addEmptySubmetric puts t's submetric into d with zero values when the
// run matched no sample to it and its parent is in d.
func addEmptySubmetric(d *Document, t Threshold) {
	if _, found := d.Metrics[t.Metric]; found {
		return
	}
	parent, tags, err := SplitSubmetric(t.Metric)
	if err != nil || len(tags) == 0 {
		return
	}
	pm, found := d.Metrics[parent]
	if !found {
		return
	}
	m := Metric{Type: pm.Type, Contains: pm.Contains, Values: map[string]float64{}}
	switch pm.Type {
	case TypeTrend:
		for _, k := range emptyTrendStats {
			m.Values[k] = 0
		}
		m.Values[t.Agg] = 0 // a p(N) of the threshold's own
	case TypeCounter:
		m.Values["count"], m.Values["rate"] = 0, 0
	case TypeRate:
		m.Values["rate"], m.Values["passes"], m.Values["fails"] = 0, 0, 0
	case TypeGauge:
		m.Values["value"], m.Values["min"], m.Values["max"] = 0, 0, 0
	}
	d.Metrics[t.Metric] = m
}
