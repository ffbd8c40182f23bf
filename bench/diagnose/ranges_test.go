package diagnose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// ndjsonOf writes a k6-shaped stream of n requests whose http_req_duration
// and http_req_waiting are v (ms).
func ndjsonOf(n int, v string) []byte {
	var b bytes.Buffer
	for _, m := range []string{"http_req_duration", "http_req_waiting"} {
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":"trend","contains":"time"},"metric":%q}`+"\n", m, m)
	}
	fmt.Fprintln(&b, `{"type":"Metric","data":{"name":"http_reqs","type":"counter","contains":"default"},"metric":"http_reqs"}`)
	for i := range n {
		ts := fmt.Sprintf("2026-11-29T17:38:%02d.%03dZ", 26+i/1000, i%1000)
		for _, m := range []string{"http_req_duration", "http_req_waiting"} {
			fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%s,"tags":{"status":"200"}}}`+"\n", m, ts, v)
		}
		fmt.Fprintf(&b, `{"metric":"http_reqs","type":"Point","data":{"time":%q,"value":1,"tags":{"status":"200"}}}`+"\n", ts)
	}
	return b.Bytes()
}

// Values out of range are refused with the metric and field named, never
// judged (issue 36 item 6: negative durations were judged healthy [high];
// 1.7e308 printed "-9223372036854775808 requests").
func TestValuesOutOfRangeAreRefused(t *testing.T) {
	export := func(metrics string) []byte { return []byte(`{"metrics":{` + metrics + `}}`) }
	reqs := `"http_reqs":{"count":100,"rate":10}`
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"negative duration (stream)", ndjsonOf(30, "-5"), "http_req_duration value is negative"},
		{"1.7e308 duration (stream)", ndjsonOf(30, "1.7e308"), "more than 30 days"},
		{"1.7e308 count (stream)", bytes.Replace(ndjsonOf(30, "5"), []byte(`"value":1,`), []byte(`"value":1.7e308,`), 1), "more than 1e15"},
		{"negative avg (export)", export(reqs + `,"http_req_duration":{"avg":-3,"min":1,"med":2,"max":4,"p(90)":3,"p(95)":4}`), "http_req_duration avg is negative"},
		{"min above max (export)", export(reqs + `,"http_req_duration":{"avg":3,"min":9,"med":2,"max":4,"p(90)":3,"p(95)":4}`), "http_req_duration min 9 ms is above its max 4 ms"},
		{"overflowing count (export)", export(`"http_reqs":{"count":1.7e308,"rate":10},"http_req_duration":{"avg":3,"min":1,"med":2,"max":4,"p(90)":3,"p(95)":4}`), "http_reqs count is 1.7e+308"},
		{"failed rate above 1 (export)", export(reqs + `,"http_req_failed":{"passes":1,"fails":2,"value":3}`), "http_req_failed rate is 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Reader{}.Read(context.Background(), bytes.NewReader(tc.in), "f")
			if err == nil {
				r := Analyze(o, DefaultConfig())
				t.Fatalf("read without error; judged %v", codesOf(r))
			}
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want ErrUnreadable containing %q", err, tc.want)
			}
		})
	}
}

// The decompressed bytes and the points are bounded; the error names the
// flag that raises each bound, and raising it reads the file.
func TestInputBounds(t *testing.T) {
	plain := ndjsonOf(2000, "5") // 6,000 points, ~700 kB
	zipped := gz(plain)
	tests := []struct {
		name string
		rd   Reader
		in   []byte
		want string // "" : reads
	}{
		{"gzip past MaxBytes", Reader{MaxBytes: 64 << 10}, zipped, "more than 65536 bytes decompressed (--max-bytes raises the bound)"},
		{"plain past MaxBytes", Reader{MaxBytes: 1 << 20 >> 1}, plain, "--max-bytes"},
		{"exactly MaxBytes", Reader{MaxBytes: int64(len(plain))}, zipped, ""},
		{"past MaxPoints", Reader{MaxPoints: 5999}, zipped, "more than 5999 points (--max-points raises the bound)"},
		{"exactly MaxPoints", Reader{MaxPoints: 6000}, zipped, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.rd.Read(context.Background(), bytes.NewReader(tc.in), "f")
			if tc.want == "" {
				if err != nil || o.Requests != 2000 {
					t.Fatalf("err %v, want 2000 requests read", err)
				}
				return
			}
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrUnreadable containing %q", err, tc.want)
			}
		})
	}
}

func codesOf(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}
