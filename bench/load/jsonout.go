package load

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// OpenJSONOutput creates path for --out json: gzipped when the name ends in
// ".gz", as k6 does. Close flushes it.
func OpenJSONOutput(path string) (io.WriteCloser, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--out json: %w", err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	return &gzipFile{f: f, Writer: gzip.NewWriter(f)}, nil
}

type gzipFile struct {
	f *os.File
	*gzip.Writer
}

func (g *gzipFile) Close() error {
	err := g.Writer.Close()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// jsonOutput writes k6's NDJSON stream: a Metric line the first time a
// metric appears, then one Point line per sample, with k6's tags
// (expected_response, group, method, name, proto, scenario, status, url,
// and error_code, error, tls_version when they apply). It runs on the
// collector's goroutine and appends bytes by hand: no allocation per point.
type jsonOutput struct {
	w       *bufio.Writer
	base    time.Time
	scen    string   // JSON-quoted scenario
	targets []string // per target: `"method":…,"name":…` fragment
	urls    []string // per target: `"url":…` fragment
	seen    map[string]bool
	buf     []byte
	err     error
}

func newJSONOutput(w io.Writer, cfg *Config, m *mix) *jsonOutput {
	o := &jsonOutput{w: bufio.NewWriterSize(w, 256<<10), scen: strconv.Quote(cfg.scenario()), seen: map[string]bool{}}
	for _, t := range m.targets {
		o.targets = append(o.targets, `"method":`+strconv.Quote(t.method)+`,"name":`+strconv.Quote(t.name))
		o.urls = append(o.urls, `"url":`+strconv.Quote(t.url))
	}
	return o
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
	var sub string
	if name == mDuration {
		sub = `[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]`
	} else {
		sub = "null"
	}
	fmt.Fprintf(o.w, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q,"thresholds":[],"submetrics":%s},"metric":%q}`+"\n",
		name, typ, contains, sub, name)
}

func (o *jsonOutput) point(name string, when []byte, value float64, tags []byte) {
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
	if _, err := o.w.Write(b); err != nil && o.err == nil {
		o.err = err
	}
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

func (o *jsonOutput) write(recs []record) {
	var when, tags [256]byte
	for i := range recs {
		r := &recs[i]
		t := o.base.Add(time.Duration(r.end)).AppendFormat(when[:0], time.RFC3339Nano)
		switch r.kind {
		case kindRequest:
			tg := o.requestTags(tags[:0], r)
			o.point(mHTTPReqs, t, 1, tg)
			o.point(mDuration, t, ms(r.ph.dur), tg)
			o.point(mBlocked, t, ms(r.ph.blocked), tg)
			o.point(mConnecting, t, ms(r.ph.connecting), tg)
			o.point(mTLS, t, ms(r.ph.tls), tg)
			o.point(mSending, t, ms(r.ph.sending), tg)
			o.point(mWaiting, t, ms(r.ph.waiting), tg)
			o.point(mReceiving, t, ms(r.ph.receiving), tg)
			failed := 0.0
			if r.failed {
				failed = 1
			}
			o.point(mHTTPFailed, t, failed, tg)
			if r.hasServer {
				o.point(mServerTime, t, ms(r.server), o.iterTags(tags[:0], `"group":"","scenario":`))
			}
			if r.hasQueue {
				o.point(mServerQueue, t, ms(r.queue), o.iterTags(tags[:0], `"group":"","scenario":`))
			}
		case kindIteration:
			tg := o.iterTags(tags[:0], `"group":"","scenario":`)
			o.point(mDataSent, t, float64(r.sent), tg)
			o.point(mDataReceived, t, float64(r.recv), tg)
			if !r.interrupted {
				o.point(mIterDuration, t, ms(r.iterDur), tg)
				o.point(mIterations, t, 1, tg)
			}
		case kindDropped:
			o.point(mDropped, t, 1, o.iterTags(tags[:0], `"scenario":`))
		case kindGauge:
			o.point(mVUs, t, float64(r.vus), []byte("{}"))
			o.point(mVUsMax, t, float64(r.vusMax), []byte("{}"))
		}
	}
}

func (o *jsonOutput) iterTags(b []byte, prefix string) []byte {
	b = append(b, '{')
	b = append(b, prefix...)
	b = append(b, o.scen...)
	return append(b, '}')
}

// requestTags writes the tags in k6's (sorted) order.
func (o *jsonOutput) requestTags(b []byte, r *record) []byte {
	b = append(b, '{')
	if r.code > 0 && r.status == 0 {
		b = append(b, `"error":`...)
		b = strconv.AppendQuote(b, errorMessage(r.code, r.class))
		b = append(b, ',')
	}
	if r.code > 0 {
		b = append(b, `"error_code":"`...)
		b = strconv.AppendInt(b, int64(r.code), 10)
		b = append(b, `",`...)
	}
	b = append(b, `"expected_response":"`...)
	b = strconv.AppendBool(b, !r.failed)
	b = append(b, `","group":"",`...)
	b = append(b, o.targets[r.target]...)
	if r.proto > 0 {
		b = append(b, `,"proto":"`...)
		b = append(b, protoName(r.proto)...)
		b = append(b, '"')
	}
	b = append(b, `,"scenario":`...)
	b = append(b, o.scen...)
	b = append(b, `,"status":"`...)
	b = strconv.AppendInt(b, int64(r.status), 10)
	b = append(b, `",`...)
	if v := tlsName(r.tlsVersion); v != "" {
		b = append(b, `"tls_version":"`...)
		b = append(b, v...)
		b = append(b, `",`...)
	}
	b = append(b, o.urls[r.target]...)
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
	if err := o.w.Flush(); err != nil && o.err == nil {
		o.err = err
	}
	return o.err
}
