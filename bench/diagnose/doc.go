// Package diagnose turns load-test results into named causes: the article's
// "when k6 shows this, suspect that first" (shared/ARTICLE.md, rules 1–11 and
// the seeds' closed-model and ceiling lessons) made executable, with stable
// codes (DESIGN.md) that experiments and users can assert on.
//
// # Reading
//
// Every supported file becomes one Observation: middlebench's results
// document (FromDocument; exact phases from its encoded histograms), k6's
// handleSummary data, k6's --summary-export (flat values; a Rate's rate is
// "value"; a threshold marked true FAILED), k6's --out json NDJSON (plain or
// gzipped, aggregated in one pass with HDR histograms in bounded memory, with
// k6's interpolated percentiles, per-status and per-name breakdowns, and time
// buckets cut into steps where the VUs or the arrival rate change), k6's
// --out csv and k6's printed end-of-test summary. A stream does not say its
// executor: it is cut by arrivals (counted when iterations start) when it
// dropped iterations or Reader.Open says so, else by VUs; the drain after
// its last stage is in the totals but in no step. ReadFile detects the
// format; an unreadable input gets an InputError (wrapping ErrUnreadable)
// that says what was expected and what was found, with line and byte.
//
// What the file lacks can be added with Observation.Apply: the server's own
// view (ReadServerStats for /_mb/stats, or figures off an APM screen), the
// generator's CPU, the executor and load, the links' capacities.
//
// # Analysing
//
// Analyze applies the rules, one per file (rule_*.go, each documented with
// the article's reasoning), to every step of a sweep and to the whole run,
// then the sweep rules across the steps (throughput ceiling, receiving
// growing while waiting stays flat, k6's p95 leaving the server's behind,
// server time growing with load). Rules run in an order that lets a cause
// silence the symptoms it explains. The Report holds the findings ordered by
// the time they explain (Finding.ExplainsMs), the phase table with the
// server's own time and the time outside it, the steps, and notes on what
// no rule explains.
//
//	obs, err := diagnose.ReadFile("points.json.gz")
//	obs.Apply(diagnose.Extra{Server: &diagnose.ServerSide{Requests: 36, Time: diagnose.Stat{Avg: 51.27, P95: 51.6}}})
//	r := diagnose.Analyze(obs, diagnose.DefaultConfig())
//	r.Codes()          // ["path-latency"]
//	r.WriteText(os.Stdout)
//
// # Thresholds
//
// Config holds every threshold; ParseConfig and LoadConfig read YAML over
// DefaultConfig (unknown fields are refused with their line). The defaults:
//
//	floor: 20ms                 # no time below this is "high"
//	min_requests: 20            # smaller steps are not judged alone
//	server_slow: {slow: 200ms, share: 0.3, growth: 3}
//	path_latency: {share: 0.3}  # waiting − server time ≥ 30 % of waiting
//	tls_handshake_slow: {slow: 50ms, connect_ratio: 3}
//	connect_slow: {slow: 50ms}
//	connection_wait: {share: 0.5}
//	hidden_connection_cost: {share: 0.5}
//	upload_limited: {share: 0.3, body: 256KiB}
//	download_limited: {share: 0.3, growth: 3, flat: 1.5, link_use: 0.9}
//	rate_limited: {share: 0.01}
//	tool_blocked: {failed: 0.95, server_share: 0.05, fast: 10ms}
//	generator_saturated: {cpu: 80, dropped: 0.001, diverge: 2, server_flat: 1.3}
//	closed_model_backlog: {little: 0.25, ratio: 3, queue_share: 0.5}
//	throughput_ceiling: {reach: 0.85, load: 1.3, growth: 1.1, latency: 1.5, absorb: 0.5}
//
// The package reads results only: it imports neither the load engine nor the
// proxies, so it works the same on k6's output.
package diagnose
