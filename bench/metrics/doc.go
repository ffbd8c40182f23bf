// Package metrics holds k6's side of the measurements: Counter, Rate and
// Gauge, the results document — JSON shaped like the data k6 hands to
// handleSummary, with middlebench's own keys beside "metrics" (steps, the
// server's view, stage counters, encoded histograms) — its summary printer
// and thresholds. Durations are internal/timing's Trend.
//
// The engine, the analyzer and merge speak it; it imports none of them. The
// programs under test (proxy, fakeserver, wire) do not import it: what they
// record is internal/timing.
//
// Aggregators are not safe for concurrent use: each worker owns its own and
// they are merged at the end (Merge), so the request path takes no shared lock.
package metrics
