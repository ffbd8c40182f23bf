package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/record"
)

// spanObserver records the span of the engine's requests, and hands each
// one on to next (the dashboard), if any.
type spanObserver struct {
	next        load.Observer
	first, last atomic.Int64 // since the run's start, ns (MaxInt64, MinInt64 before any)
	n           atomic.Int64
	start       time.Time
}

func newSpanObserver(next load.Observer) *spanObserver {
	o := &spanObserver{next: next}
	o.first.Store(math.MaxInt64)
	o.last.Store(math.MinInt64)
	return o
}

func (o *spanObserver) Observe(vu int, r load.Observation) {
	at := int64(r.End - r.Duration)
	for cur := o.first.Load(); at < cur && !o.first.CompareAndSwap(cur, at); cur = o.first.Load() {
	}
	for cur := o.last.Load(); at > cur && !o.last.CompareAndSwap(cur, at); cur = o.last.Load() {
	}
	o.n.Add(1)
	if o.next != nil {
		o.next.Observe(vu, r)
	}
}

// ObserveResult learns the run's start (t=0 of the observations) and
// tells next, if it listens for results.
func (o *spanObserver) ObserveResult(res *load.Result) {
	o.start = res.Start
	if ro, ok := o.next.(load.ResultObserver); ok {
		ro.ObserveResult(res)
	}
}

// span is what was seen, once the run has ended.
func (o *spanObserver) span() (record.ArrivalSpan, error) {
	n := o.n.Load()
	if n == 0 || o.start.IsZero() {
		return record.ArrivalSpan{}, fmt.Errorf("the engine recorded no request")
	}
	return record.ArrivalSpan{First: o.start.Add(time.Duration(o.first.Load())), Last: o.start.Add(time.Duration(o.last.Load())),
		Requests: n, Source: "the engine's requests"}, nil
}

// k6Span reads the span of k6's requests off its NDJSON stream: each
// http_req_duration point is stamped with the request's end (k6's
// Trail.EndTime) and carries its duration in ms.
func k6Span(path string) (record.ArrivalSpan, error) {
	sp := record.ArrivalSpan{Source: "k6's NDJSON stream"}
	err := scanK6Points(path, "http_req_duration", func(end time.Time, ms float64) {
		at := end.Add(-time.Duration(ms * float64(time.Millisecond)))
		if sp.Requests == 0 || at.Before(sp.First) {
			sp.First = at
		}
		if sp.Requests == 0 || at.After(sp.Last) {
			sp.Last = at
		}
		sp.Requests++
	})
	if err != nil {
		return record.ArrivalSpan{}, err
	}
	if sp.Requests == 0 {
		return record.ArrivalSpan{}, fmt.Errorf("%s: no http_req_duration point", path)
	}
	return sp, nil
}

// scanK6Points calls fn with the time and value of each point of metric
// in a k6 NDJSON stream.
func scanK6Points(path, metric string, fn func(t time.Time, v float64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	wantMetric, wantType := []byte(`"metric":"`+metric+`"`), []byte(`"type":"Point"`)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if !bytes.Contains(b, wantMetric) || !bytes.Contains(b, wantType) {
			continue
		}
		var p struct {
			Data struct {
				Time  time.Time `json:"time"`
				Value float64   `json:"value"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		fn(p.Data.Time, p.Data.Value)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
