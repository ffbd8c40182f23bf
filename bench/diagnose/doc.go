// Package diagnose turns load-test results into named causes: the article's
// "when k6 shows this, suspect that first" (its rules 1–11 and
// the seeds' closed-model and ceiling lessons) made executable, with stable
// codes (listed under Codes below) that experiments and users can assert on.
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
// Every input is bounded (Reader.MaxBytes after decompression,
// Reader.MaxPoints for a stream) and every value checked for range: a
// negative time, a count past 1e15, a min above its max make the file
// unreadable, named by metric and field, never a verdict (ranges.go). A
// stream's open model is read from its data too: dropped iterations, VUs
// allocated mid-run, or a fixed arrival rate with most VUs idle (an
// --executor is a hint; a constant-* one keeps the stream one window).
//
// # Analysing
//
// Before any rule, evidence sanity (sanity.go): a server time above the
// waiting its client saw, beyond clock noise, or one figure repeated on
// every answer while the server counted far fewer requests, is not these
// requests' (a cache replaying a stored Server-Timing): said in a note,
// and the run judged without it. After the rules, a finding that names a
// cause of time must explain a material share of what a request costs
// (Config.Material): sub-millisecond requests are healthy whatever their
// ratios. A finding carries the causes the file cannot tell from it
// (Finding.Alternatives, "could also be:" in the text), each with the file
// or figure that would tell.
//
// Analyze walks one table of rules (rules.go): each row names a code, its
// doc line, its thresholds' defaults, the rule that judges one window, an
// optional sweep rule that judges across a sweep's steps, what the rule
// needs from the file, the budget lines it may claim, the findings that
// silence it and the report's concerns it answers. The sweep rules run
// first; then the window rules, in the table's order, on every step of a
// sweep and on the whole run. Findings hold where they fire and list the
// steps.
//
// The explanation budget (budget.go) is the average request's time line
// by line — outside the server (waiting − server time − queue), the
// server's, sending, receiving, connecting, TLS, the rest of blocked.
// Each cause claims, with its numbers, the part it explains: Little's law
// for a closed model's backlog (the wait outside the server's own work:
// its reported queue, and time outside beyond the path's floor — a sweep's
// quietest step, else the fastest request's time outside), a cap's first byte
// above the path's floor, the generator's time outside the server and
// its slow dials, an upload's drain, the accept queue's wait. A later rule
// judges only what is left, so path-latency names the residual no other
// cause explains, and several causes can each be named for their share
// (Finding.Explains lists the claims).
//
// Every format is judged on what it holds. A summary has no steps (no
// ceiling or knee: Unshown says which codes a file cannot show and which
// file would) and no status codes (a limiter's fast failures and a
// failing upstream are read off the totals, with lower confidence); the
// report's notes say so, and the phase table never shows a figure the
// file lacks (no negative time outside the server, VUs from the gauge's
// max or vus_max).
//
// # Codes
//
// In the order the rules run (Codes gives them sorted, healthy first);
// the list is drawn from the rules table (go test -update rewrites it).
//
//	healthy                nothing stands out
//	upstream-failing       failures without an HTTP status (reset, EOF, protocol, cut body, timeout) or
//	                       a proxy's 502/504 for its upstream; not a block
//	tool-blocked           nearly all requests rejected fast with a 4xx, the server saw few (rule 9)
//	rate-limited           429s or fast 503s, or a summary's fast failures (rule 8)
//	generator-saturated    phases grow without the server's time; dropped iterations (rule 10)
//	throughput-ceiling     throughput stops growing while latency climbs across steps (seed 002)
//	accept-queue           a listen backlog or accept-rate limit with a new connection per request: SYN
//	                       retries in connecting, the accept wait in waiting
//	upload-limited         sending high; waiting inflated by the upload's drain (rule 4)
//	download-limited       receiving high while waiting is flat; a cap's late first byte (rule 7)
//	closed-model-backlog   latency ≈ VUs ÷ throughput: a closed model's queue (seed 003)
//	server-slow            the server's own time is high and a material share of waiting (rule 5)
//	path-latency           waiting outside the server that no other cause explains (rule 6)
//	tls-handshake-slow     tls_handshaking high against the TCP connect (rule 2)
//	connect-slow           connecting high (rule 1)
//	connection-wait        blocked high while connecting and TLS are low (rule 3)
//	hidden-connection-cost connection setup that http_req_duration leaves out (consequence 1)
//
// # Writing a rule
//
// A rule is one file and one row. The file (rule_upload.go is a complete
// example) holds the code as an exported constant, the thresholds' type (a
// struct of its own with yaml tags) and the judgement: a func(*facts)
// *Finding that reads the window's facts and its thresholds
// (thresholdsOf[uploadThresholds](f.cfg)), returns nil or a finding with
// its evidence, summary, suspects and next steps, and claims the time it
// explains (Finding.claim). The row, in rules.go's table at the place it
// runs, gives the code, its doc line, the thresholds' defaults, the budget
// lines it may claim, what silences it and what it answers. Then
// "go test -run TestDocListsEveryCode -update ./bench/diagnose/" writes its
// lines into this doc, and make score shows what it changed on the zoo.
//
// Case and LoadCase read the zoo's case.yaml (testdata/zoo/README.md):
// the codes a run's setup implies, for regression-testing the
// classifications (make score).
//
// # Thresholds
//
// Config holds every threshold: the analyzer's own, then each rule's under
// its code with '_' for '-' (drawn from the rules table); ParseConfig and
// LoadConfig read YAML over DefaultConfig (unknown fields are refused with
// their line). The defaults:
//
//	floor: 20ms                 # no time below this is "high"
//	min_requests: 20            # smaller steps are not judged alone
//	evidence: {clock_noise: 1ms, clock_noise_share: 0.05, served: 0.5, repeat: 0.001}  # server time above waiting by more, or a server that counted fewer: not these requests'
//	materiality: {min: 1ms, share: 0.05}  # a cause of time explains at least this (of duration + connecting)
//	connection_tails: {explained: 0.5, host_stall: 0.25}  # a few slow connection phases left to a cause found before
//	upstream_failing: {share: 0.01, critical: 0.5, slower: 5ms}
//	tool_blocked: {failed: 0.95, server_share: 0.05, fast: 10ms, min_requests: 10, blocking: 0.5,
//	               fast_server: 0.25}
//	rate_limited: {share: 0.01, fast: 0.25, skipped: 0.8}
//	generator_saturated: {cpu: 80, dropped: 0.01, diverge: 2, server_flat: 1.3, own_min: 1ms,
//	                      own_share: 0.2, stall_median: 0.05, tail_median: 0.25, held: 0.9}
//	throughput_ceiling: {reach: 0.85, load: 1.3, growth: 1.1, latency: 1.5, absorb: 0.5, lag: 0.03,
//	                     flat: 1.3}
//	accept_queue: {share: 0.3, syn_retry: 1s}
//	upload_limited: {share: 0.3, body: 256KiB}
//	download_limited: {share: 0.3, growth: 3, flat: 1.5, link_use: 0.9}
//	closed_model_backlog: {little: 0.25, ratio: 3, queue_share: 0.5, busy: 0.5, min: 20ms}
//	server_slow: {slow: 200ms, share: 0.3, growth: 3}
//	path_latency: {share: 0.3}
//	tls_handshake_slow: {slow: 50ms, connect_ratio: 3}
//	connect_slow: {slow: 50ms}
//	connection_wait: {share: 0.5}
//	hidden_connection_cost: {share: 0.5}
//
// The package reads results only: it imports neither the load engine nor the
// proxies, so it works the same on k6's output.
package diagnose
