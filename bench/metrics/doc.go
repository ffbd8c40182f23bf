// Package metrics holds the measurement types every other package shares:
// Trend (an HDR histogram of durations with exact count, sum, min and max),
// Counter, Rate and Gauge, and the results document — JSON shaped like the
// data k6 hands to handleSummary, with middlebench's own keys beside
// "metrics" (steps, the server's view, stage counters, encoded histograms).
//
// Aggregators are not safe for concurrent use: each worker owns its own and
// they are merged at the end (Merge), so the request path takes no shared lock.
package metrics
