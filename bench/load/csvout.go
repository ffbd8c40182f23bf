package load

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// csvHeader is k6's --out csv header, column for column (k6 v1.8.1).
var csvHeader = [...]string{"metric_name", "timestamp", "metric_value", "check", "error", "error_code", "expected_response", "group",
	"method", "name", "proto", "scenario", "service", "status", "subproto", "tls_version", "url", "extra_tags", "metadata"}

// csvRow is a sample's columns after metric_name, timestamp and value.
type csvRow [len(csvHeader) - 3]string

// csvOutput writes k6's CSV: timestamps in Unix seconds, values with six
// decimals, the tags k6 has a column for in their column and the others
// (the run's own tags) as name=value&… in extra_tags.
type csvOutput struct {
	lw  *lineWriter
	w   *csv.Writer
	rec [len(csvHeader)]string
}

func newCSVOutput(w io.Writer) *csvOutput {
	lw := newLineWriter(w)
	o := &csvOutput{lw: lw, w: csv.NewWriter(lw)}
	_ = o.w.Write(csvHeader[:]) // errors surface in flush
	return o
}

func (o *csvOutput) write(name string, unix int64, value float64, row *csvRow) {
	o.rec[0], o.rec[1], o.rec[2] = name, strconv.FormatInt(unix, 10), strconv.FormatFloat(value, 'f', 6, 64)
	copy(o.rec[3:], row[:])
	_ = o.w.Write(o.rec[:])
}

// Column indexes in csvRow.
const (
	cCheck = iota
	cError
	cErrorCode
	cExpected
	cGroup
	cMethod
	cName
	cProto
	cScenario
	cService
	cStatus
	cSubproto
	cTLS
	cURL
	cExtra
	cMetadata
)

func (o *csvOutput) requestRow(row *csvRow, r *record, sc *scenTags) {
	if o == nil {
		return
	}
	*row = csvRow{}
	if r.code > 0 && r.status == 0 {
		row[cError] = errorMessage(r.code, r.class)
	}
	if r.code > 0 {
		row[cErrorCode] = strconv.Itoa(int(r.code))
	}
	row[cExpected] = strconv.FormatBool(!r.failed)
	for _, t := range sc.targets[r.target] {
		switch t.key {
		case "method":
			row[cMethod] = t.value
		case "name":
			row[cName] = t.value
		case "url":
			row[cURL] = t.value
		}
	}
	row[cProto] = protoName(r.proto)
	row[cScenario] = sc.name
	row[cStatus] = strconv.Itoa(int(r.status))
	row[cTLS] = tlsName(r.tlsVersion)
	row[cExtra] = extraTags(sc.extra)
}

func (o *csvOutput) iterRow(row *csvRow, sc *scenTags) {
	if o == nil {
		return
	}
	*row = csvRow{}
	row[cScenario] = sc.name
	row[cExtra] = extraTags(sc.extra)
}

func (o *csvOutput) gaugeRow(row *csvRow) {
	if o != nil {
		*row = csvRow{}
	}
}

func extraTags(ts []tagKV) string {
	if len(ts) == 0 {
		return ""
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.key + "=" + t.value
	}
	return strings.Join(parts, "&")
}

func (o *csvOutput) flush() error {
	o.w.Flush()
	if err := o.w.Error(); err != nil {
		return err
	}
	return o.lw.Flush()
}
