package load

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// jsonOutput writes k6's --out json stream (NDJSON: a Metric line the
// first time a metric appears, then one Point line per sample) and/or its
// --out csv rows, with k6's tags (expected_response, group, method, name,
// proto, scenario, status, url, and error_code, error, tls_version when
// they apply) and the run's own tags (options.tags, --tag, a scenario's
// tags), in k6's sorted order. It runs on the collector's goroutine and
// appends the JSON by hand: no allocation per point. Every write hands the
// writer whole lines only (see lineWriter).
type jsonOutput struct {
	w      *lineWriter // nil: no JSON stream
	csv    *csvOutput  // nil: no CSV
	base   time.Time
	scens  []scenTags
	seen   map[string]bool
	subs   map[string]string // Metric line submetrics, by parent
	ths    map[string]string // Metric line thresholds (on the metric itself), by metric
	buf    []byte
	tagBuf []byte
}

// scenTags is what one scenario's samples carry.
type scenTags struct {
	name    string
	targets [][]tagKV // per target: the request's constant tags, sorted
	iter    []byte    // `{"group":"","scenario":…,…}` of iteration samples
	dropped []byte    // `{"scenario":…,…}` of dropped_iterations
	extra   []tagKV   // the run's and scenario's own tags, sorted
}

// tagKV is one tag, its JSON fragment `"key":"value"` ready.
type tagKV struct {
	key, value string
	json       []byte
}

func kv(k, v string) tagKV {
	return tagKV{key: k, value: v, json: []byte(strconv.Quote(k) + ":" + strconv.Quote(v))}
}

// systemTags are the tag names k6 itself sets on request samples; a
// user tag of the same name does not override them.
var systemTags = map[string]bool{"error": true, "error_code": true, "expected_response": true, "group": true, "method": true,
	"name": true, "proto": true, "scenario": true, "status": true, "tls_version": true, "url": true, "check": true}

func newJSONOutput(w, csv io.Writer, scs []*scenarioRun) *jsonOutput {
	o := &jsonOutput{seen: map[string]bool{}}
	if w != nil {
		o.w = newLineWriter(w)
	}
	if csv != nil {
		o.csv = newCSVOutput(csv)
	}
	for _, s := range scs {
		st := scenTags{name: s.cfg.scenario()}
		for k, v := range s.cfg.Tags {
			if !systemTags[k] {
				st.extra = append(st.extra, kv(k, v))
			}
		}
		sortTags(st.extra)
		for _, t := range s.mix.targets {
			ts := append([]tagKV{kv("group", ""), kv("method", t.method), kv("name", t.name), kv("scenario", st.name), kv("url", t.url)}, st.extra...)
			sortTags(ts)
			st.targets = append(st.targets, ts)
		}
		st.iter = renderTags(append([]tagKV{kv("group", ""), kv("scenario", st.name)}, st.extra...))
		st.dropped = renderTags(append([]tagKV{kv("scenario", st.name)}, st.extra...))
		o.scens = append(o.scens, st)
	}
	return o
}

func sortTags(ts []tagKV) { sort.Slice(ts, func(i, j int) bool { return ts[i].key < ts[j].key }) }

func renderTags(ts []tagKV) []byte {
	sortTags(ts)
	b := []byte{'{'}
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.json...)
	}
	return append(b, '}')
}

// withSubmetrics lists, in the Metric line of their parent, the submetrics
// the run keeps (k6 lists those its thresholds and summary use).
func (o *jsonOutput) withSubmetrics(subs []*submetric) {
	if o == nil {
		return
	}
	o.subs = map[string]string{}
	byParent := map[string][]string{}
	for i := len(subs) - 1; i >= 0; i-- {
		s := subs[i]
		suffix := strings.TrimSuffix(s.name[len(s.parent)+1:], "}")
		_, tags, _ := metrics.SplitSubmetric(s.name)
		var kvs []tagKV
		for _, t := range tags {
			kvs = append(kvs, kv(t[0], t[1]))
		}
		byParent[s.parent] = append(byParent[s.parent], fmt.Sprintf(`{"name":%q,"suffix":%q,"tags":%s}`, s.name, suffix, renderTags(kvs)))
	}
	for p, list := range byParent {
		o.subs[p] = "[" + strings.Join(list, ",") + "]"
	}
}

// withThresholds lists, in a metric's Metric line, the thresholds set on
// the metric itself, as k6 does (those on a submetric are not listed).
func (o *jsonOutput) withThresholds(ts []metrics.Threshold) {
	if o == nil {
		return
	}
	o.ths = map[string]string{}
	by := map[string][]string{}
	for _, t := range ts {
		by[t.Metric] = append(by[t.Metric], strconv.Quote(t.Source))
	}
	for m, list := range by {
		o.ths[m] = "[" + strings.Join(list, ",") + "]"
	}
}

func (o *jsonOutput) setBase(t time.Time) {
	if o != nil {
		o.base = t
	}
}

func (o *jsonOutput) metric(name string) {
	if o.seen[name] {
		return
	}
	o.seen[name] = true
	typ, contains, _ := metricType(name)
	sub, ok := o.subs[name]
	if !ok {
		sub = "null"
	}
	th, ok := o.ths[name]
	if !ok {
		th = "[]"
	}
	o.w.Write(fmt.Appendf(nil, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q,"thresholds":%s,"submetrics":%s},"metric":%q}`+"\n",
		name, typ, contains, th, sub, name))
}

func (o *jsonOutput) point(name string, when []byte, unix int64, value float64, tags []byte, row *csvRow) {
	if o.csv != nil {
		o.csv.write(name, unix, value, row)
	}
	if o.w == nil {
		return
	}
	o.metric(name)
	b := o.buf[:0]
	b = append(b, `{"metric":"`...)
	b = append(b, name...)
	b = append(b, `","type":"Point","data":{"time":"`...)
	b = append(b, when...)
	b = append(b, `","value":`...)
	b = strconv.AppendFloat(b, value, 'f', -1, 64)
	b = append(b, `,"tags":`...)
	b = append(b, tags...)
	b = append(b, "}}\n"...)
	o.buf = b
	o.w.Write(b)
}

func (o *jsonOutput) write(recs []record) {
	var when, tags [512]byte
	var row csvRow
	for i := range recs {
		r := &recs[i]
		at := o.base.Add(time.Duration(r.end))
		t := at.AppendFormat(when[:0], time.RFC3339Nano)
		unix := at.Unix()
		sc := &o.scens[r.scen]
		switch r.kind {
		case kindRequest:
			tg := o.requestTags(tags[:0], r)
			o.csv.requestRow(&row, r, sc)
			o.point(mHTTPReqs, t, unix, 1, tg, &row)
			o.point(mDuration, t, unix, timing.Millis(r.ph.dur), tg, &row)
			o.point(mBlocked, t, unix, timing.Millis(r.ph.blocked), tg, &row)
			o.point(mConnecting, t, unix, timing.Millis(r.ph.connecting), tg, &row)
			o.point(mTLS, t, unix, timing.Millis(r.ph.tls), tg, &row)
			o.point(mSending, t, unix, timing.Millis(r.ph.sending), tg, &row)
			o.point(mWaiting, t, unix, timing.Millis(r.ph.waiting), tg, &row)
			o.point(mReceiving, t, unix, timing.Millis(r.ph.receiving), tg, &row)
			failed := 0.0
			if r.failed {
				failed = 1
			}
			o.point(mHTTPFailed, t, unix, failed, tg, &row)
			o.csv.iterRow(&row, sc)
			if r.hasServer {
				o.point(mServerTime, t, unix, timing.Millis(r.server), sc.iter, &row)
			}
			if r.hasQueue {
				o.point(mServerQueue, t, unix, timing.Millis(r.queue), sc.iter, &row)
			}
		case kindIteration:
			o.csv.iterRow(&row, sc)
			o.point(mDataSent, t, unix, float64(r.sent), sc.iter, &row)
			o.point(mDataReceived, t, unix, float64(r.recv), sc.iter, &row)
			if !r.interrupted {
				o.point(mIterDuration, t, unix, timing.Millis(r.iterDur), sc.iter, &row)
				o.point(mIterations, t, unix, 1, sc.iter, &row)
			}
		case kindDropped:
			o.csv.iterRow(&row, sc)
			o.point(mDropped, t, unix, 1, sc.dropped, &row)
		case kindGauge:
			o.csv.gaugeRow(&row)
			o.point(mVUs, t, unix, float64(r.vus), []byte("{}"), &row)
			o.point(mVUsMax, t, unix, float64(r.vusMax), []byte("{}"), &row)
		}
	}
}

// requestTags writes a request's tags in k6's (sorted) order: the
// target's constant tags merged with the ones this response sets.
func (o *jsonOutput) requestTags(b []byte, r *record) []byte {
	var dyn [6]tagKV
	n := 0
	add := func(k string, v []byte) {
		dyn[n] = tagKV{key: k, json: v}
		n++
	}
	b = append(b, '{')
	start := len(b)
	// The response's tags, rendered into b's tail scratch first would
	// allocate; they are few, so each is built in o.tagBuf.
	tb := o.tagBuf[:0]
	mark := func() int { return len(tb) }
	if r.code > 0 && r.status == 0 {
		m := mark()
		tb = append(tb, `"error":`...)
		tb = strconv.AppendQuote(tb, errorMessage(r.code, r.class))
		add("error", tb[m:])
	}
	if r.code > 0 {
		m := mark()
		tb = append(tb, `"error_code":"`...)
		tb = strconv.AppendInt(tb, int64(r.code), 10)
		tb = append(tb, '"')
		add("error_code", tb[m:])
	}
	m := mark()
	tb = append(tb, `"expected_response":"`...)
	tb = strconv.AppendBool(tb, !r.failed)
	tb = append(tb, '"')
	add("expected_response", tb[m:])
	if r.proto > 0 {
		m := mark()
		tb = append(tb, `"proto":"`...)
		tb = append(tb, protoName(r.proto)...)
		tb = append(tb, '"')
		add("proto", tb[m:])
	}
	m = mark()
	tb = append(tb, `"status":"`...)
	tb = strconv.AppendInt(tb, int64(r.status), 10)
	tb = append(tb, '"')
	add("status", tb[m:])
	if v := tlsName(r.tlsVersion); v != "" {
		m := mark()
		tb = append(tb, `"tls_version":"`...)
		tb = append(tb, v...)
		tb = append(tb, '"')
		add("tls_version", tb[m:])
	}
	o.tagBuf = tb
	static := o.scens[r.scen].targets[r.target]
	i, j := 0, 0
	for i < len(static) || j < n {
		if len(b) > start {
			b = append(b, ',')
		}
		if j >= n || (i < len(static) && static[i].key < dyn[j].key) {
			b = append(b, static[i].json...)
			i++
		} else {
			b = append(b, dyn[j].json...)
			j++
		}
	}
	return append(b, '}')
}

// errorMessage is k6's message for a code, or the class for k6's generic 1000.
func errorMessage(code uint16, class errClass) string {
	switch code {
	case codeDialRefused:
		return "dial: connection refused"
	case codeDialTimeout:
		return "dial: i/o timeout"
	case codeReset:
		return "read: connection reset by peer"
	case codeBrokenPipe:
		return "write: broken pipe"
	case codeDNSNoSuchHost:
		return "lookup: no such host"
	case codeRequestTimeout:
		return "request timeout"
	case codeX509Authority:
		return "x509: unknown authority"
	case codeX509Hostname:
		return "x509: certificate doesn't match hostname"
	}
	return class.String()
}

func (o *jsonOutput) close() error {
	var err error
	if o.w != nil {
		err = o.w.Flush()
	}
	if o.csv != nil {
		if cerr := o.csv.flush(); err == nil {
			err = cerr
		}
	}
	return err
}
