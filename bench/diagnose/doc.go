// Package diagnose turns load-test results into named causes: the article's
// "when k6 shows this, suspect that first" (shared/ARTICLE.md, rules 1–11 and
// the seeds' closed-model and ceiling lessons) made executable, with stable
// codes (DESIGN.md) that experiments and users can assert on.
//
// Readers turn every supported file into one Observation: middlebench's
// results document (FromDocument), k6's --summary-export, k6's handleSummary
// data, k6's --out json NDJSON (plain or gzipped, aggregated in one pass with
// HDR histograms in bounded memory, with per-status, per-name and per-time-
// bucket breakdowns), k6's --out csv and k6's end-of-test text summary.
// ReadFile detects the format.
//
// Analyze applies the rules, one per file (rule_*.go), to the whole run and
// to every step of a sweep, then the sweep rules across the steps, and
// returns a Report: findings ordered by the time they explain, and the phase
// table with the server's own time and the time spent outside it.
//
// The package reads results only: it imports neither the load engine nor the
// proxies, so it works the same on k6's output.
package diagnose
