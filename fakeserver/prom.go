package fakeserver

import (
	"strconv"

	"github.com/middlebench/middlebench/internal/timing"

	"github.com/prometheus/client_golang/prometheus"
)

// collector exposes the server's view in Prometheus text. It reads the
// view at scrape time, so the request path never touches Prometheus.
type collector struct{ s *Server }

var (
	descRequests = prometheus.NewDesc("middlebench_server_requests_total", "Requests served, by status code.", []string{"code"}, nil)
	descInFlight = prometheus.NewDesc("middlebench_server_in_flight_requests", "Requests being served now.", nil, nil)
	descBytesIn  = prometheus.NewDesc("middlebench_server_received_body_bytes_total", "Request body bytes read.", nil, nil)
	descBytesOut = prometheus.NewDesc("middlebench_server_sent_body_bytes_total", "Response body bytes written (after gzip).", nil, nil)
	descTimes    = map[string]*prometheus.Desc{
		"server_time":  prometheus.NewDesc("middlebench_server_app_seconds", "Time spent working per request (Server-Timing app).", nil, nil),
		"queue_time":   prometheus.NewDesc("middlebench_server_queue_seconds", "Time waiting for a worker slot per request.", nil, nil),
		"read_time":    prometheus.NewDesc("middlebench_server_read_seconds", "Time reading the request body per request.", nil, nil),
		"handler_time": prometheus.NewDesc("middlebench_server_handler_seconds", "Whole time in the handler per request.", nil, nil),
	}
)

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descRequests
	ch <- descInFlight
	ch <- descBytesIn
	ch <- descBytesOut
	for _, d := range descTimes {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.stats
	for code := range st.status {
		if n := st.status[code].Load(); n > 0 {
			ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(n), strconv.Itoa(code))
		}
	}
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(st.inFlight.Load()))
	ch <- prometheus.MustNewConstMetric(descBytesIn, prometheus.CounterValue, float64(st.bytesIn.Load()))
	ch <- prometheus.MustNewConstMetric(descBytesOut, prometheus.CounterValue, float64(st.bytesOut.Load()))
	app, queue, read, handler := st.merged()
	for name, t := range map[string]*timing.Trend{"server_time": app, "queue_time": queue, "read_time": read, "handler_time": handler} {
		q := make(map[float64]float64, len(summaryQuantiles))
		for _, p := range summaryQuantiles {
			q[p] = t.Percentile(p * 100).Seconds()
		}
		ch <- prometheus.MustNewConstSummary(descTimes[name], uint64(t.Count()), t.Sum().Seconds(), q)
	}
}

var summaryQuantiles = []float64{0.5, 0.9, 0.95, 0.99}
