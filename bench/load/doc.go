// Package load is middlebench's load engine: k6's executors (constant-vus,
// ramping-vus, per-vu-iterations, shared-iterations, constant-arrival-rate,
// ramping-arrival-rate) driving HTTP requests whose phases are measured
// exactly as k6 measures them (net/http/httptrace, the definitions of k6's
// lib/netext/httpext/tracer.go), with k6's metric names and tags.
//
// Every VU owns its transport (connection pool), tracer and prepared
// requests; finished requests go to one collector in batches of 64 (or
// once the oldest is a second old, so thresholds with abortOnFail see them
// in time), which keeps HDR-histogram trends per sweep step and merges
// them at the end, so the request path takes no shared lock and allocates
// nothing of its own.
// Plain-HTTP requests without a body (GET, HEAD, OPTIONS, TRACE to one
// address) go through the VU's lean HTTP/1.1 client (h1conn.go): one
// keep-alive connection written and read by the VU's goroutine (raw system
// calls: internal/rawio), the head rendered once with net/http's bytes,
// common response heads parsed in place and any other read by
// http.ReadResponse; the tracer's hooks are
// called at the moments net/http calls them, so the phases keep k6's
// definitions, and a request allocates nothing. HTTPS (HTTP/2 by ALPN),
// uploads, --http-debug and the rest go through net/http's transport.
//
// A harness runs it in process:
//
//	cfg := &load.Config{URL: srv.URL() + "/?work=50ms", VUs: 3, Duration: units.Duration(5 * time.Second)}
//	res, err := load.Run(ctx, cfg, load.Options{})
//	// res.Start: t=0 of the schedule; res.Requests, res.Statuses, res.Errors,
//	// res.Dropped, res.MaxDurationSkew; res.Trend("http_req_waiting")
//	doc := res.Document() // bench/metrics.Document: k6 handleSummary shape + middlebench keys
//	doc.Server = &view    // the caller adds the server's view and the boxes' counters
//
// Config is also what `middlebench load --config FILE` decodes
// (testdata/scenario.yaml shows every field), and it takes k6's options
// object as well, YAML or JSON (testdata/k6-inspect-scenarios.json is what
// `k6 inspect` printed for a two-scenario script): Scenarios run at once,
// each its own engine sending to the one collector, which keeps an
// aggregate per scenario beside the steps. Streams (--out json, csv) go
// through lineWriter: a reader of a killed run finds whole lines.
package load
