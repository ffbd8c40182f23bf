package diagnose

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxLine bounds one NDJSON or CSV line.
const maxLine = 1 << 20

// readNDJSON aggregates k6's --out json stream: "Metric" lines declare a
// metric's type, "Point" lines carry one sample (time metrics in ms; the
// point's time is when the request ended).
func (r Reader) readNDJSON(ctx context.Context, br *bufio.Reader, name string) (*Observation, error) {
	st := newStream(r)
	p := ndjsonLine{st: st}
	var lineNo, offset int64
	var long []byte
	var torn string // a note when the stream ends inside a line
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		// A gzip stream that ends early (a killed k6 writing .gz) ends
		// the way a plain file does: its last line may be cut.
		cutGzip := errors.Is(err, io.ErrUnexpectedEOF)
		if errors.Is(err, errTooLarge) {
			return nil, &InputError{Source: name, Line: lineNo + 1, Byte: offset + 1, Msg: err.Error(), Err: err}
		}
		if err != nil && !errors.Is(err, io.EOF) && !cutGzip && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, &InputError{Source: name, Line: lineNo + 1, Byte: offset + 1,
				Msg: fmt.Sprintf("reading after %d lines: %v (a truncated gzip stream?)", lineNo, err), Err: err}
		}
		if len(line) > 0 {
			lineNo++
			if len(line) > maxLine {
				return nil, &InputError{Source: name, Line: lineNo, Byte: offset + 1, Msg: "line longer than 1 MiB: not k6 NDJSON"}
			}
			points := p.points
			if at, msg := p.parse(line); msg != "" {
				if err == nil { // a whole line (it ends in \n) that is wrong
					return nil, &InputError{Source: name, Line: lineNo, Byte: offset + int64(at) + 1, Msg: msg}
				}
				// The stream ends inside this line: what a killed k6 leaves.
				// Every complete line before it counts; the cut one goes.
				p.points = points
				torn = fmt.Sprintf("the last line (%d) was cut: its %d bytes from byte %d on were dropped (what a killed run leaves); the %d lines before it were read",
					lineNo, len(line), offset+1, lineNo-1)
				lineNo--
			}
			offset += int64(len(line))
		}
		if err != nil { // io.EOF or a cut gzip stream: the other errors returned above
			if cutGzip && torn == "" {
				torn = fmt.Sprintf("the gzip stream ends early after %d lines (a killed run?); they were read", lineNo)
			}
			break
		}
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return st.interrupted(ctx, FormatNDJSON, lineNo, "lines")
		}
	}
	if p.points == 0 {
		return nil, &InputError{Source: name, Msg: fmt.Sprintf("no Point lines in %d lines: expected k6 --out json output", lineNo)}
	}
	o := st.observation(FormatNDJSON)
	o.Notes = append(o.Notes, fmt.Sprintf("%d lines: %d metric declarations, %d points", lineNo, p.metrics, p.points))
	if torn != "" {
		o.Notes = append(o.Notes, torn)
	}
	return o, nil
}

// ndjsonLine parses the lines of one stream.
type ndjsonLine struct {
	st      *stream
	scratch []byte
	metrics int64
	points  int64
}

// parse handles one line; on error it returns the byte of the line at
// fault and a message.
func (p *ndjsonLine) parse(line []byte) (int, string) {
	s := jscan{b: line}
	s.ws()
	if s.i == len(line) {
		return 0, "" // blank line
	}
	var typ, metric []byte
	var metricEsc bool
	dataAt, dataEnd := -1, -1
	err := s.object(func(k []byte, _ bool) error {
		var err error
		switch string(k) {
		case "type":
			typ, _, err = s.str()
		case "metric":
			metric, metricEsc, err = s.str()
		case "data":
			dataAt = s.i
			err = s.skip(0)
			dataEnd = s.i
		default:
			err = s.skip(0)
		}
		return err
	})
	if err == nil {
		s.ws()
		if s.i != len(line) {
			err = s.fail("unexpected %s after the JSON object", s.found())
		}
	}
	if err != nil {
		return errAt(err), err.Error()
	}
	if metricEsc {
		if p.scratch, err = unescape(p.scratch[:0], metric); err != nil {
			return 0, "metric: " + err.Error()
		}
		metric = p.scratch
	}
	switch string(typ) {
	case "Point":
		if dataAt < 0 {
			return 0, "Point line without \"data\""
		}
		if len(metric) == 0 {
			return 0, "Point line without \"metric\""
		}
		p.points++
		return p.point(metric, line[dataAt:dataEnd], dataAt)
	case "Metric":
		p.metrics++
		var d struct {
			Name string `json:"name"`
			Type string `json:"type"`
		}
		if dataAt < 0 {
			return 0, "Metric line without \"data\""
		}
		if err := json.Unmarshal(line[dataAt:dataEnd], &d); err != nil {
			return dataAt, "Metric data: " + err.Error()
		}
		name := d.Name
		if len(metric) > 0 {
			name = string(metric)
		}
		if err := p.st.declare(name, d.Type); err != nil {
			return dataAt, err.Error()
		}
		return 0, ""
	case "":
		return 0, `no "type": expected k6 NDJSON lines of type "Metric" or "Point"`
	}
	return 0, fmt.Sprintf("type %q: expected \"Metric\" or \"Point\"", typ)
}

func errAt(err error) int {
	var se *scanError
	if errors.As(err, &se) {
		return se.at
	}
	return 0
}

// point parses a Point's data object: {"time", "value", "tags"}.
func (p *ndjsonLine) point(metric, data []byte, base int) (int, string) {
	s := jscan{b: data}
	var tg tags
	var t int64
	var v float64
	var haveT, haveV bool
	err := s.object(func(k []byte, _ bool) error {
		switch string(k) {
		case "time":
			at := s.i
			raw, _, err := s.str()
			if err != nil {
				return err
			}
			if t, haveT = parseTime(raw); !haveT {
				s.i = at
				return s.fail("time %q is not an RFC 3339 time", raw)
			}
		case "value":
			var err error
			if v, err = s.float(); err != nil {
				return err
			}
			haveV = true
		case "tags":
			if s.null() {
				return nil
			}
			return s.object(func(k []byte, _ bool) error {
				if s.null() {
					return nil
				}
				val, esc, err := s.str()
				if err != nil {
					return err
				}
				if esc {
					// Rare (k6 escapes <, > and & in URLs): decode into a
					// fresh slice so that tags stay distinct.
					if val, err = unescape(nil, val); err != nil {
						return s.fail("tag %s: %v", k, err)
					}
				}
				switch string(k) {
				case "status":
					tg.status = val
				case "name":
					tg.name = val
				case "url":
					tg.url = val
				case "expected_response":
					tg.expected = val
				case "error_code":
					tg.errorCode = val
				}
				return nil
			})
		default:
			return s.skip(0)
		}
		return nil
	})
	if err != nil {
		return base + errAt(err), "data: " + err.Error()
	}
	if !haveT || !haveV {
		return base, `Point data needs "time" and "value"`
	}
	if err := p.st.point(metric, t, v, &tg); err != nil {
		return base, err.Error()
	}
	return 0, ""
}

// parseTime reads k6's RFC 3339 times ("2026-11-29T17:38:26.134822352Z",
// "…+02:00") into unix ns without allocating in the common case.
func parseTime(b []byte) (int64, bool) {
	if len(b) >= 20 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' {
		num := func(x []byte) int {
			n := 0
			for _, c := range x {
				if c < '0' || c > '9' {
					return -1
				}
				n = n*10 + int(c-'0')
			}
			return n
		}
		y, mo, d, h, mi, sec := num(b[0:4]), num(b[5:7]), num(b[8:10]), num(b[11:13]), num(b[14:16]), num(b[17:19])
		i, frac, scale := 19, 0, 1_000_000_000
		if i < len(b) && b[i] == '.' {
			i++
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				if scale > 1 {
					scale /= 10
					frac += int(b[i]-'0') * scale
				}
				i++
			}
		}
		ok := y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && sec >= 0 && sec < 61
		if ok && i == len(b)-1 && b[i] == 'Z' {
			return time.Date(y, time.Month(mo), d, h, mi, sec, frac, time.UTC).UnixNano(), true
		}
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, false
	}
	return t.UnixNano(), true
}
