package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// k6Points writes a small k6 --out json stream the way k6 does: the
// request's points at the time the response ended, the iteration's
// (iteration_duration, iterations) at the time the iteration ended, vus
// once a second, dropped_iterations when an arrival found no VU. Metric
// declarations are left out (the reader does not need them).
type k6Points struct {
	t0  time.Time
	buf bytes.Buffer
}

func newK6Points() *k6Points {
	return &k6Points{t0: time.Date(2026, 11, 29, 20, 43, 7, 0, time.UTC)}
}

func (k *k6Points) point(metric string, at time.Duration, v float64, tags string) {
	fmt.Fprintf(&k.buf, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%g,"tags":%s}}`+"\n",
		metric, k.t0.Add(at).Format(time.RFC3339Nano), v, tags)
}

// k6Req is one request of an iteration, in ms.
type k6Req struct {
	sending, waiting, receiving float64
	blocked                     float64
	server, queue               float64 // Server-Timing app and queue; 0: not recorded
}

// iteration writes one iteration that starts at start and sends r: its
// request ends after sending+waiting+receiving, the iteration right after.
func (k *k6Points) iteration(start time.Duration, r k6Req) {
	dur := r.sending + r.waiting + r.receiving
	end := start + time.Duration(dur*float64(time.Millisecond))
	tags := `{"expected_response":"true","group":"","method":"GET","name":"http://127.0.0.1/","proto":"HTTP/1.1","scenario":"s","status":"200","url":"http://127.0.0.1/"}`
	for _, p := range []struct {
		m string
		v float64
	}{
		{"http_reqs", 1}, {"http_req_duration", dur}, {"http_req_blocked", r.blocked}, {"http_req_connecting", 0},
		{"http_req_tls_handshaking", 0}, {"http_req_sending", r.sending}, {"http_req_waiting", r.waiting},
		{"http_req_receiving", r.receiving}, {"http_req_failed", 0},
	} {
		k.point(p.m, end, p.v, tags)
	}
	it := `{"group":"","scenario":"s"}`
	if r.server > 0 {
		k.point("server_time", end, r.server, it)
	}
	if r.queue > 0 {
		k.point("server_queue", end, r.queue, it)
	}
	end += 50 * time.Microsecond
	k.point("iteration_duration", end, float64(end-start)/1e6, it)
	k.point("iterations", end, 1, it)
}

func (k *k6Points) vus(at time.Duration, n int) { k.point("vus", at, float64(n), "{}") }

func (k *k6Points) dropped(at time.Duration) {
	k.point("dropped_iterations", at, 1, `{"group":"","scenario":"s"}`)
}

func (k *k6Points) read(t *testing.T, rd Reader) *Observation {
	t.Helper()
	o, err := rd.Read(context.Background(), bytes.NewReader(k.buf.Bytes()), "points.json")
	if err != nil {
		t.Fatal(err)
	}
	return o
}
