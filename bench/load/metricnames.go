package load

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/middlebench/middlebench/bench/metrics"
)

// k6's built-in metric names, and server_time.
const (
	mHTTPReqs        = "http_reqs"
	mHTTPFailed      = "http_req_failed"
	mBlocked         = "http_req_blocked"
	mConnecting      = "http_req_connecting"
	mTLS             = "http_req_tls_handshaking"
	mSending         = "http_req_sending"
	mWaiting         = "http_req_waiting"
	mReceiving       = "http_req_receiving"
	mDuration        = "http_req_duration"
	mIterations      = "iterations"
	mIterDuration    = "iteration_duration"
	mDataSent        = "data_sent"
	mDataReceived    = "data_received"
	mVUs             = "vus"
	mVUsMax          = "vus_max"
	mDropped         = "dropped_iterations"
	mServerTime      = "server_time"
	mServerQueue     = "server_queue" // Server-Timing queue;dur=: the wait for a worker the server reports
	expectedDuration = "http_req_duration{expected_response:true}"
)

// The trends every step keeps, in record order.
const (
	tBlocked = iota
	tConnecting
	tTLS
	tSending
	tWaiting
	tReceiving
	tDuration
	tIteration
	tServer
	tServerQueue
	numTrends
)

// trendName maps a trend index to its metric name.
func trendName(i int) string {
	return [numTrends]string{mBlocked, mConnecting, mTLS, mSending, mWaiting, mReceiving, mDuration, mIterDuration, mServerTime, mServerQueue}[i]
}

// requestTrend returns a request phase of r by trend index.
func requestTrend(r *record, i int) int64 {
	switch i {
	case tBlocked:
		return r.ph.blocked
	case tConnecting:
		return r.ph.connecting
	case tTLS:
		return r.ph.tls
	case tSending:
		return r.ph.sending
	case tWaiting:
		return r.ph.waiting
	case tReceiving:
		return r.ph.receiving
	case tDuration:
		return r.ph.dur
	}
	return 0
}

// metricType returns the k6 type and contents of a built-in metric.
func metricType(name string) (typ, contains string, ok bool) {
	switch name {
	case mHTTPReqs, mIterations, mDropped:
		return metrics.TypeCounter, metrics.ContainsDefault, true
	case mDataSent, mDataReceived:
		return metrics.TypeCounter, metrics.ContainsData, true
	case mHTTPFailed:
		return metrics.TypeRate, metrics.ContainsDefault, true
	case mVUs, mVUsMax:
		return metrics.TypeGauge, metrics.ContainsDefault, true
	case mBlocked, mConnecting, mTLS, mSending, mWaiting, mReceiving, mDuration, mIterDuration, mServerTime, mServerQueue:
		return metrics.TypeTrend, metrics.ContainsTime, true
	}
	return "", "", false
}

// isRequestMetric says whether a submetric of name can be filtered by the
// request's tags.
func isRequestMetric(name string) bool {
	switch name {
	case mHTTPReqs, mHTTPFailed, mBlocked, mConnecting, mTLS, mSending, mWaiting, mReceiving, mDuration:
		return true
	}
	return false
}

// submetric is a request metric restricted to requests whose tags match.
type submetric struct {
	name   string // as the document keys it: http_req_duration{name:login}
	parent string
	trend  int // trend index for trend parents, -1 otherwise
	match  func(r *record) bool
}

// newSubmetric compiles "metric{tag:value,…}" against the run's scenarios.
func newSubmetric(name string, scs []*scenarioRun) (*submetric, error) {
	parent, tags, err := metrics.SplitSubmetric(name)
	if err != nil {
		return nil, err
	}
	if !isRequestMetric(parent) {
		return nil, fmt.Errorf("%w: submetric %q: only the http_req_* metrics and http_reqs can be filtered by tags", metrics.ErrThreshold, name)
	}
	s := &submetric{name: name, parent: parent, trend: -1}
	for i := tBlocked; i <= tDuration; i++ {
		if trendName(i) == parent {
			s.trend = i
		}
	}
	// perScenario is a predicate known per scenario (its name or own tags).
	perScenario := func(ok func(c *Config) bool) func(*record) bool {
		set := make([]bool, len(scs))
		for i, sc := range scs {
			set[i] = ok(sc.cfg)
		}
		return func(r *record) bool { return set[r.scen] }
	}
	var preds []func(*record) bool
	for _, kv := range tags {
		k, v := kv[0], kv[1]
		switch k {
		case "name", "url", "method":
			set := make([][]bool, len(scs))
			for i, sc := range scs {
				set[i] = make([]bool, len(sc.mix.targets))
				for _, t := range sc.mix.targets {
					set[i][t.idx] = (k == "name" && t.name == v) || (k == "url" && t.url == v) || (k == "method" && t.method == v)
				}
			}
			preds = append(preds, func(r *record) bool { return set[r.scen][r.target] })
		case "status":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%w: submetric %q: status %q is not a number", metrics.ErrThreshold, name, v)
			}
			preds = append(preds, func(r *record) bool { return int(r.status) == n })
		case "expected_response":
			want := v == "true"
			if v != "true" && v != "false" {
				return nil, fmt.Errorf("%w: submetric %q: expected_response is true or false", metrics.ErrThreshold, name)
			}
			preds = append(preds, func(r *record) bool { return !r.failed == want })
		case "error_code":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%w: submetric %q: error_code %q is not a number", metrics.ErrThreshold, name, v)
			}
			preds = append(preds, func(r *record) bool { return int(r.code) == n })
		case "proto":
			preds = append(preds, func(r *record) bool { return protoName(r.proto) == v })
		case "tls_version":
			preds = append(preds, func(r *record) bool { return tlsName(r.tlsVersion) == v })
		case "scenario":
			preds = append(preds, perScenario(func(c *Config) bool { return c.scenario() == v }))
		case "group":
			if v != "" {
				return nil, fmt.Errorf("%w: submetric %q: group %q: groups are the script's group() calls, and the engine runs no script (its requests are in no group)", ErrConfig, name, v)
			}
			preds = append(preds, func(*record) bool { return true })
		default:
			// A tag of the run's own (options.tags, --tag, a scenario's tags).
			known := false
			for _, sc := range scs {
				_, has := sc.cfg.Tags[k]
				known = known || has
			}
			if !known {
				return nil, fmt.Errorf("%w: submetric %q: unknown tag %q (want name, url, method, status, expected_response, error_code, proto, tls_version, scenario, group or a tag the run sets)", metrics.ErrThreshold, name, k)
			}
			preds = append(preds, perScenario(func(c *Config) bool { return c.Tags[k] == v }))
		}
	}
	s.match = func(r *record) bool {
		for _, p := range preds {
			if !p(r) {
				return false
			}
		}
		return true
	}
	return s, nil
}

// compileThresholds parses the config's thresholds and checks each against
// its metric's type.
func compileThresholds(c *Config) ([]metrics.Threshold, error) {
	var out []metrics.Threshold
	var unproduced []string
	for name := range c.Thresholds {
		if parent, _, err := metrics.SplitSubmetric(name); err == nil {
			if _, _, known := metricType(parent); !known && !slices.Contains(unproduced, parent) {
				unproduced = append(unproduced, parent)
			}
		}
	}
	if err := unproducedThresholds(unproduced); err != nil {
		return nil, err
	}
	for name, exprs := range c.Thresholds {
		parent, _, err := metrics.SplitSubmetric(name)
		if err != nil {
			return nil, fmt.Errorf("thresholds: %w", err)
		}
		typ, _, _ := metricType(parent)
		for _, e := range exprs {
			t, err := metrics.ParseThreshold(name, e.Threshold)
			if err != nil {
				return nil, fmt.Errorf("thresholds: %w", err)
			}
			if e.DelayAbortEval < 0 {
				return nil, configErr("thresholds."+name+".delayAbortEval", "must not be negative")
			}
			t.AbortOnFail, t.DelayAbortEval = e.AbortOnFail, e.DelayAbortEval.D()
			if err := t.CheckType(typ); err != nil {
				return nil, fmt.Errorf("thresholds: %w", err)
			}
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out, nil
}

func protoName(p uint8) string {
	switch p {
	case 10:
		return "HTTP/1.0"
	case 11:
		return "HTTP/1.1"
	case 20:
		return "HTTP/2.0"
	case 0:
		return ""
	}
	return fmt.Sprintf("HTTP/%d.%d", p/10, p%10)
}

func tlsName(v uint16) string {
	switch v {
	case 0x0301:
		return "tls1.0"
	case 0x0302:
		return "tls1.1"
	case 0x0303:
		return "tls1.2"
	case 0x0304:
		return "tls1.3"
	}
	return ""
}
