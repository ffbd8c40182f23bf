package proxy

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// AdminHandler serves the path's counters and ledger:
//
//	GET /stats    JSON (PathStats)
//	GET /metrics  Prometheus text (a registry of this path only)
//	GET /ledger   the answer key as JSON lines (?box=NAME for one box)
func (p *Path) AdminHandler() http.Handler { return p.adminHandler("") }

func (p *Path) adminHandler(only string) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{p: p, only: only})
	if p.wire != nil && only == "" {
		reg.MustRegister(wireCollector{p})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "middlebench proxy admin: /stats (JSON), /metrics (Prometheus), /ledger (JSON lines)")
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(p.filtered(only)) // a write error means the client left
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /ledger", func(w http.ResponseWriter, r *http.Request) {
		box := only
		if q := r.URL.Query().Get("box"); q != "" && only == "" {
			box = q
		}
		entries := p.Ledger()
		if box != "" {
			kept := entries[:0]
			for _, e := range entries {
				if e.Box == box {
					kept = append(kept, e)
				}
			}
			entries = kept
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		_ = WriteJSONL(w, entries) // a write error means the client left
	})
	return mux
}

func (p *Path) filtered(only string) PathStats {
	s := p.Stats()
	if only == "" {
		return s
	}
	kept := s.Boxes[:0]
	for _, b := range s.Boxes {
		if b.Name == only {
			kept = append(kept, b)
		}
	}
	s.Boxes = kept
	return s
}

// collector turns a Stats snapshot into Prometheus metrics at scrape time,
// so the counters are kept once.
type collector struct {
	p    *Path
	only string
}

var (
	boxLabels   = []string{"box"}
	stageLabels = []string{"box", "stage", "kind"}
	descs       = struct {
		accepted, active, requests, upstreamErr, aborts, bytesUp, bytesDown *prometheus.Desc
		seen, passed, rejected, bytes, extra, delay, queued                 *prometheus.Desc
	}{
		accepted:    prometheus.NewDesc("middlebench_box_connections_accepted_total", "Connections the box accepted.", boxLabels, nil),
		active:      prometheus.NewDesc("middlebench_box_connections_active", "Connections open now.", boxLabels, nil),
		requests:    prometheus.NewDesc("middlebench_box_requests_total", "Requests an HTTP box parsed.", boxLabels, nil),
		upstreamErr: prometheus.NewDesc("middlebench_box_upstream_errors_total", "502s answered or next-hop dials failed.", boxLabels, nil),
		aborts:      prometheus.NewDesc("middlebench_box_client_aborts_total", "Clients gone before their exchange finished.", boxLabels, nil),
		bytesUp:     prometheus.NewDesc("middlebench_box_bytes_up_total", "Bytes forwarded client to upstream (bytes mode).", boxLabels, nil),
		bytesDown:   prometheus.NewDesc("middlebench_box_bytes_down_total", "Bytes forwarded upstream to client (bytes mode).", boxLabels, nil),
		seen:        prometheus.NewDesc("middlebench_stage_seen_total", "Connections or requests that reached the stage.", stageLabels, nil),
		passed:      prometheus.NewDesc("middlebench_stage_passed_total", "Connections or requests the stage let through.", stageLabels, nil),
		rejected:    prometheus.NewDesc("middlebench_stage_rejected_total", "Rejections by status (reset: connection reset).", append(stageLabels, "status"), nil),
		bytes:       prometheus.NewDesc("middlebench_stage_bytes_total", "Bytes the stage shaped or delayed.", stageLabels, nil),
		extra:       prometheus.NewDesc("middlebench_stage_events_total", "Kind-specific counts (handshakes, resumed, resets …).", append(stageLabels, "event"), nil),
		delay:       prometheus.NewDesc("middlebench_stage_delay_seconds", "Time the stage added.", stageLabels, nil),
		queued:      prometheus.NewDesc("middlebench_stage_queued_seconds", "Time spent waiting for the stage's capacity.", stageLabels, nil),
	}
)

func (c *collector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, b := range c.p.filtered(c.only).Boxes {
		counter(descs.accepted, b.Accepted, b.Name)
		ch <- prometheus.MustNewConstMetric(descs.active, prometheus.GaugeValue, float64(b.Active), b.Name)
		counter(descs.requests, b.Requests, b.Name)
		counter(descs.upstreamErr, b.UpstreamErrors, b.Name)
		counter(descs.aborts, b.ClientAborts, b.Name)
		counter(descs.bytesUp, b.BytesUp, b.Name)
		counter(descs.bytesDown, b.BytesDown, b.Name)
		for _, s := range b.Stages {
			l := []string{b.Name, strconv.Itoa(s.Index), s.Kind}
			counter(descs.seen, s.Seen, l...)
			counter(descs.passed, s.Passed, l...)
			counter(descs.bytes, s.Bytes, l...)
			for _, k := range slices.Sorted(maps.Keys(s.Rejected)) {
				counter(descs.rejected, s.Rejected[k], append(l, k)...)
			}
			for _, k := range slices.Sorted(maps.Keys(s.Extra)) {
				counter(descs.extra, s.Extra[k], append(l, k)...)
			}
			summary(ch, descs.delay, s.Delay, l)
			summary(ch, descs.queued, s.Queued, l)
		}
	}
}

// summary renders a trend's stats (ms) as a Prometheus summary (seconds).
func summary(ch chan<- prometheus.Metric, d *prometheus.Desc, v map[string]float64, labels []string) {
	if v == nil {
		return
	}
	q := map[float64]float64{0.5: v["med"] / 1e3, 0.9: v["p(90)"] / 1e3, 0.95: v["p(95)"] / 1e3, 0.99: v["p(99)"] / 1e3}
	n := v["count"]
	ch <- prometheus.MustNewConstSummary(d, uint64(n), v["avg"]*n/1e3, q, labels...)
}
