// Package load is middlebench's load engine: k6's executors (constant-vus,
// ramping-vus, per-vu-iterations, shared-iterations, constant-arrival-rate,
// ramping-arrival-rate) driving HTTP requests whose phases are measured
// exactly as k6 measures them (net/http/httptrace, k6's
// lib/netext/httpext/tracer.go definitions), with k6's metric names.
//
// Every VU owns its transport, tracer and request objects; finished
// requests go to the collector in batches, which keeps HDR-histogram trends
// per sweep step and merges them at the end, so the request path takes no
// shared lock. Run returns a Result whose Document is the results document
// of bench/metrics (k6 handleSummary shape plus middlebench's keys).
package load
