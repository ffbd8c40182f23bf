package diagnose

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	_, _ = w.Write(b)
	_ = w.Close()
	return out.Bytes()
}

// badCRC returns a copy of a gzip stream whose trailer's CRC-32 is wrong.
func badCRC(gz []byte) []byte {
	b := bytes.Clone(gz)
	b[len(b)-8] ^= 0xff
	return b
}

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/k6/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMalformedInputs(t *testing.T) {
	export := sample(t, "summary-export.json")
	hs := sample(t, "handle-summary.json")
	points := `{"type":"Metric","data":{"name":"http_req_waiting","type":"trend","contains":"time"},"metric":"http_req_waiting"}
{"metric":"http_req_waiting","type":"Point","data":{"time":"2026-11-29T17:38:26.1Z","value":51.2,"tags":{"status":"200"}}}
`
	realGz := sample(t, "points.ndjson.gz")
	tests := []struct {
		name string
		in   []byte
		want []string // substrings of the error
	}{
		{"empty", nil, []string{"empty: expected a middlebench results document"}},
		{"white space", []byte("  \n\t\n"), []string{"empty"}},
		{"truncated summary export", export[:len(export)/2], []string{"line ", "byte ", "truncated JSON"}},
		{"truncated handleSummary", hs[:1000], []string{"truncated JSON"}},
		{"JSON without metrics", []byte(`{"foo": 1, "bar": 2}`), []string{`no "metrics" key`, "[bar, foo]"}},
		{"JSON without HTTP metrics", []byte(`{"metrics": {"vus": {"value": 1, "min": 1, "max": 1}}}`), []string{"neither http_reqs nor any http_req_* metric"}},
		{"JSON array", []byte(`[1,2,3]`), []string{"found a JSON array"}},
		{"binary", []byte{0x00, 0x01, 0x02, 0xff, 0xfe}, []string{"binary data (first bytes 00 01 02 ff fe)"}},
		{"other text", []byte("hello world\nthis is not k6\n"), []string{`found text starting "hello world"`}},
		{"trend that is a counter (export)", []byte(`{"metrics":{"http_req_duration":{"count":3,"rate":1}}}`),
			[]string{"metric http_req_duration: expected a trend", "found a counter (count, rate)"}},
		{"trend that is a counter (handleSummary)", []byte(`{"metrics":{"http_req_waiting":{"type":"counter","contains":"default","values":{"count":3,"rate":1}}}}`),
			[]string{"metric http_req_waiting: expected a trend", "found a counter"}},
		{"value that is a string", []byte("{\"metrics\":{\n\"http_reqs\":{\"type\":\"counter\",\"values\":{\"count\":\"many\"}}}}"),
			[]string{"line 2", "metric http_reqs: values", "want float64, found a JSON string"}},
		{"export value that is a string", []byte(`{"metrics":{"http_reqs":{"count":"many","rate":1}}}`),
			[]string{"metric http_reqs: count: want a number, found \"many\""}},
		{"NDJSON bad line", []byte(points + `{"metric":"http_req_waiting","type":"Point","data":{"time":"2026-11-29T17:38:26.2Z","value":"x"}}` + "\n"),
			[]string{"line 3, byte ", "want a number, found '\"'"}},
		{"NDJSON line cut in the middle", []byte(points + `{"metric":"http_req_waiting","type":"Point","data":{"time":"2026-11-29T` + "\n" + points),
			[]string{"line 3, byte ", "control character '\\n' in a string"}},
		{"NDJSON wrong metric type", []byte(`{"type":"Metric","data":{"name":"http_req_duration","type":"counter","contains":"default"},"metric":"http_req_duration"}` + "\n"),
			[]string{"line 1", "metric http_req_duration is declared a counter; k6's http_req_duration is a trend"}},
		{"NDJSON unknown type", []byte(`{"type":"Sample","metric":"x","data":{}}` + "\n"), []string{`type "Sample": expected "Metric" or "Point"`}},
		{"NDJSON bad time", []byte(`{"metric":"http_reqs","type":"Point","data":{"time":"yesterday","value":1}}` + "\n"), []string{"line 1", `time "yesterday" is not an RFC 3339 time`}},
		{"NDJSON garbage after object", []byte(`{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:26Z","value":1}} x` + "\n"), []string{"unexpected 'x' after the JSON object"}},
		{"NDJSON only declarations", []byte(`{"type":"Metric","data":{"name":"vus","type":"gauge"},"metric":"vus"}` + "\n"), []string{"no Point lines in 1 lines"}},
		{"gzip with a wrong checksum", badCRC(realGz), []string{"gzip: invalid checksum"}},
		{"CSV bad value", []byte("metric_name,timestamp,metric_value\nhttp_reqs,1700000000,abc\n"), []string{"line 2", `metric_value "abc" is not a number`}},
		{"CSV wrong field count", []byte("metric_name,timestamp,metric_value\nhttp_reqs,1700000000\n"), []string{"line 2", "wrong number of fields"}},
		{"CSV without value column", []byte("metric_name,timestamp,value\n"), []string{`header has no "metric_value" column`}},
		{"text summary without metrics", []byte("execution: local\nscript: x.js\n"), []string{"no http_req metrics found"}},
		{"text summary bad duration", []byte("http_req_duration..........: avg=fast min=1ms\n"), []string{"line 1", "avg=fast: not a duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Reader{}.Read(context.Background(), bytes.NewReader(tt.in), "in.file")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrUnreadable) {
				t.Errorf("error %v does not wrap ErrUnreadable", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			t.Log(err)
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, ErrUnreadable) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	p := filepath.Join(t.TempDir(), "points.json.gz")
	if err := os.WriteFile(p, gz([]byte(`{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:26Z","value":1,"tags":{"status":"200"}}}`)), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := ReadFile(p)
	if err != nil || o.Format != FormatNDJSON || o.Requests != 1 || o.Source != "points.json.gz" {
		t.Errorf("gzipped one-line stream without newline: %+v, %v", o, err)
	}
}
