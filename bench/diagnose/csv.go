package diagnose

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// readCSV aggregates k6's --out csv stream: a header
// (metric_name,timestamp,metric_value,<tags…>,extra_tags,metadata), then one
// sample per row. CSV has no metric types: built-in names are known, and the
// server-time trend is the one the Reader names.
func (r Reader) readCSV(ctx context.Context, br *bufio.Reader, name string) (*Observation, error) {
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"metric_name", "timestamp", "metric_value"} {
		if _, ok := col[need]; !ok {
			return nil, &InputError{Source: name, Line: 1, Msg: fmt.Sprintf("header has no %q column: expected k6 --out csv", need)}
		}
	}
	idx := func(c string) int {
		if i, ok := col[c]; ok {
			return i
		}
		return -1
	}
	iName, iTime, iValue := col["metric_name"], col["timestamp"], col["metric_value"]
	iStatus, iReqName, iURL, iExp, iErr := idx("status"), idx("name"), idx("url"), idx("expected_response"), idx("error_code")
	field := func(rec []string, i int) []byte {
		if i < 0 || i >= len(rec) {
			return nil
		}
		return []byte(rec[i])
	}
	st := newStream(r)
	var rows int64
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		rows++
		line, _ := cr.FieldPos(0)
		t, ok := parseCSVTime(rec[iTime])
		if !ok {
			return nil, &InputError{Source: name, Line: int64(line), Msg: fmt.Sprintf("timestamp %q: want unix seconds, ms, µs, ns or RFC 3339", rec[iTime])}
		}
		v, err := strconv.ParseFloat(rec[iValue], 64)
		if err != nil {
			return nil, &InputError{Source: name, Line: int64(line), Msg: fmt.Sprintf("metric_value %q is not a number", rec[iValue])}
		}
		tg := tags{status: field(rec, iStatus), name: field(rec, iReqName), url: field(rec, iURL),
			expected: field(rec, iExp), errorCode: field(rec, iErr)}
		if err := st.point([]byte(rec[iName]), t, v, &tg); err != nil {
			return nil, &InputError{Source: name, Line: int64(line), Msg: err.Error()}
		}
		if rows%4096 == 0 && ctx.Err() != nil {
			return st.interrupted(ctx, FormatCSV, rows, "rows")
		}
	}
	if st.points == 0 {
		return nil, &InputError{Source: name, Msg: fmt.Sprintf("no k6 metrics in %d rows: expected k6 --out csv output", rows)}
	}
	o := st.observation(FormatCSV)
	o.Notes = append(o.Notes, fmt.Sprintf("%d rows, %d used", rows, st.points))
	return o, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{Source: name, Line: int64(pe.Line), Msg: fmt.Sprintf("column %d: %v", pe.Column, pe.Err), Err: err}
	}
	return &InputError{Source: name, Msg: err.Error(), Err: err}
}

// parseCSVTime reads k6's CSV timestamps: unix seconds by default, or
// unix_milli / unix_micro / unix_nano / rfc3339(_nano) by timeFormat.
func parseCSVTime(s string) (int64, bool) {
	if strings.ContainsAny(s, "-T:") {
		t, err := time.Parse(time.RFC3339Nano, s)
		return t.UnixNano(), err == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	switch {
	case n < 1e11: // seconds until year 5138
		return n * 1e9, true
	case n < 1e14:
		return n * 1e6, true
	case n < 1e17:
		return n * 1e3, true
	}
	return n, true
}
