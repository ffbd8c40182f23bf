// Package metrics holds the measurement types every other package shares:
// Trend (an HDR histogram of durations with exact count, sum, min and max),
// Counter, Rate and Gauge, and the results document — JSON shaped like the
// data k6 hands to handleSummary, with middlebench's own keys beside
// "metrics" (steps, the server's view, stage counters, encoded histograms).
//
// It lives under bench/ but is the contract the fake server, the proxy, the
// engine, the analyzer and merge all speak: it imports none of them, so any
// of them may import it without pulling in the harness.
//
// Aggregators are not safe for concurrent use: each worker owns its own and
// they are merged at the end (Merge), so the request path takes no shared lock.
package metrics
