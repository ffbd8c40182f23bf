// Package timing holds the two measurement types the programs under test
// (proxy, fakeserver, wire) share with the harness that reads them: Trend,
// an HDR histogram of durations with exact count, sum, min and max, and
// ServerView, what the origin reports at /_mb/stats.
//
// It sits on the ground floor and imports nothing of middlebench, so the
// proxy, the fake server and the wire can record timings without pulling in
// bench/ (k6's document, its summary printer, thresholds).
//
// A Trend is not safe for concurrent use: each worker owns its own and they
// are merged at the end (Merge), so the request path takes no shared lock.
package timing
