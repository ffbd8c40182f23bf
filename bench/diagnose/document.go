package diagnose

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
)

// readJSONFile reads a whole-file JSON document: middlebench's results
// document, k6's handleSummary data (typed metrics: {"type", "values"}) or
// k6's --summary-export (flat metrics).
func (r Reader) readJSONFile(br *bufio.Reader, name string) (*Observation, error) {
	data, err := io.ReadAll(io.LimitReader(br, r.MaxJSON+1))
	if err != nil {
		return nil, &InputError{Source: name, Msg: "reading: " + err.Error(), Err: err}
	}
	if int64(len(data)) > r.MaxJSON {
		return nil, &InputError{Source: name, Msg: fmt.Sprintf("larger than %d MiB: not a summary document", r.MaxJSON>>20)}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(name, data, err)
	}
	raw, ok := top["metrics"]
	if !ok {
		return nil, &InputError{Source: name, Msg: fmt.Sprintf("no \"metrics\" key: expected %s; found a JSON object with keys %s", expected, keyList(top))}
	}
	var ms map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, jsonError(name, data, offsetInto(data, raw, err))
	}
	if !hasHTTP(ms) {
		return nil, &InputError{Source: name, Msg: "\"metrics\" has neither http_reqs nor any http_req_* metric: expected " + expected}
	}
	if typedMetrics(ms) {
		for _, m := range slices.Sorted(maps.Keys(ms)) { // per metric, so that errors name it
			var one metrics.Metric
			if err := json.Unmarshal(ms[m], &one); err != nil {
				e := jsonInputError(name, data, offsetInto(data, ms[m], err))
				e.Msg = "metric " + m + ": " + e.Msg
				return nil, e
			}
		}
		var doc metrics.Document
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, jsonError(name, data, err)
		}
		o, err := fromDocument(&doc, r.ServerMetric)
		if err != nil {
			return nil, &InputError{Source: name, Msg: err.Error(), Err: err}
		}
		return o, nil
	}
	o, err := r.fromSummaryExport(ms)
	if err != nil {
		return nil, &InputError{Source: name, Msg: err.Error(), Err: err}
	}
	return o, nil
}

// hasHTTP reports whether k6's HTTP metrics are there.
func hasHTTP[V any](ms map[string]V) bool {
	for k := range ms {
		if strings.HasPrefix(k, "http_req") {
			return true
		}
	}
	return false
}

// typedMetrics reports whether metrics carry k6's {"type", "values"}
// (handleSummary, middlebench) rather than the flat export shape.
func typedMetrics(ms map[string]json.RawMessage) bool {
	for _, raw := range ms {
		var probe map[string]json.RawMessage
		if json.Unmarshal(raw, &probe) == nil {
			_, hasValues := probe["values"]
			_, hasType := probe["type"]
			return hasValues || hasType
		}
	}
	return false
}

func keyList(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 8 {
		keys = append(keys[:8], "…")
	}
	return "[" + strings.Join(keys, ", ") + "]"
}

// offsetInto shifts a syntax/type error in a sub-document to its place in
// the whole file.
func offsetInto(data, sub []byte, err error) error {
	at := int64(bytes.Index(data, sub))
	if at < 0 {
		return err
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		se.Offset += at
	case errors.As(err, &te):
		te.Offset += at
	}
	return err
}

// jsonError names the line and byte of a JSON decoding error.
func jsonError(name string, data []byte, err error) error {
	return jsonInputError(name, data, err)
}

func jsonInputError(name string, data []byte, err error) *InputError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, b := lineCol(data, se.Offset)
		msg := se.Error()
		if se.Offset >= int64(len(data)) || strings.Contains(msg, "unexpected end") {
			msg = "truncated JSON (" + msg + ")"
		}
		return &InputError{Source: name, Line: line, Byte: b, Msg: msg, Err: err}
	case errors.As(err, &te):
		line, b := lineCol(data, te.Offset)
		field := te.Field
		if field == "" {
			field = "value"
		}
		return &InputError{Source: name, Line: line, Byte: b, Err: err,
			Msg: fmt.Sprintf("%s: want %s, found a JSON %s", field, te.Type, te.Value)}
	}
	return &InputError{Source: name, Msg: err.Error(), Err: err}
}

// FromDocument turns middlebench's results document (or k6's handleSummary
// data decoded into one) into an Observation. Where the document carries
// encoded histograms, the phases come from them (exact merges, all
// percentiles).
func FromDocument(doc *metrics.Document) (*Observation, error) {
	if doc == nil {
		return nil, fmt.Errorf("diagnose: nil document: %w", ErrUnreadable)
	}
	o, err := fromDocument(doc, "server_time")
	if err != nil {
		return nil, err
	}
	o.inferModel()
	return o, nil
}

func fromDocument(doc *metrics.Document, serverMetric string) (*Observation, error) {
	w, err := windowFromMetrics(doc.Metrics, doc.Histograms, serverMetric)
	if err != nil {
		return nil, err
	}
	o := &Observation{Format: FormatHandleSummary, Window: w}
	if doc.Run != nil || doc.Server != nil || len(doc.Steps) > 0 || len(doc.Histograms) > 0 || doc.Statuses != nil {
		o.Format = FormatMiddlebench
	}
	if doc.State.TestRunDurationMs > 0 {
		o.Seconds = doc.State.TestRunDurationMs / 1000
	}
	if run := doc.Run; run != nil {
		o.Run = RunInfo{Tool: run.Tool, Executor: run.Executor, Model: ModelOf(run.Executor), VUs: run.VUs, MaxVUs: run.MaxVUs, Rate: run.Rate}
		if o.Seconds == 0 && run.DurationMs > 0 {
			o.Seconds = run.DurationMs / 1000
		}
		if run.VUs > 0 {
			o.VUs = float64(run.VUs)
		}
		o.Window.Rate = run.Rate
		if run.Interrupted {
			o.Notes = append(o.Notes, "the run was interrupted: these are the results up to then")
		}
	}
	if o.Run.VUs == 0 {
		o.Run.VUs = int(o.VUs)
	}
	if doc.GeneratorCPU != nil {
		o.CPU = doc.GeneratorCPU.Percent
		o.CPUOthers = doc.GeneratorCPU.OthersPercent + doc.GeneratorCPU.StolenPercent
	}
	if doc.Statuses != nil {
		o.Statuses = doc.Statuses
	}
	o.Errors = doc.Errors
	o.Server = ServerFromView(doc.Server, "results document")
	o.Thresholds = thresholds(doc.Metrics)
	for i, s := range doc.Steps {
		sw, err := windowFromMetrics(s.Metrics, s.Histograms, serverMetric)
		if err != nil {
			return nil, fmt.Errorf("steps[%d] (%s): %w", i, s.Name, err)
		}
		sw.Seconds = (s.EndMs - s.StartMs) / 1000
		if s.VUs > 0 {
			sw.VUs = float64(s.VUs)
		}
		sw.Rate = s.Rate
		if s.Statuses != nil {
			sw.Statuses = s.Statuses
		}
		sw.Server = ServerFromView(s.Server, "results document")
		if s.GeneratorCPU != nil {
			sw.CPU = s.GeneratorCPU.Percent
			sw.CPUOthers = s.GeneratorCPU.OthersPercent + s.GeneratorCPU.StolenPercent
		}
		o.Steps = append(o.Steps, Step{Name: s.Name, StartMs: s.StartMs, EndMs: s.EndMs, Window: sw})
	}
	return o, nil
}

func thresholds(ms map[string]metrics.Metric) []Threshold {
	var out []Threshold
	for name, m := range ms {
		for src, v := range m.Thresholds {
			out = append(out, Threshold{Metric: name, Source: src, Failed: !v.OK})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Metric != out[j].Metric {
			return out[i].Metric < out[j].Metric
		}
		return out[i].Source < out[j].Source
	})
	return out
}
