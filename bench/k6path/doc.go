// Package k6path runs a user's own k6 script, unchanged, with real k6,
// through an experiment's server and path: the script's requests to the
// host the path stands for are routed into the path's first box by k6's
// own `hosts` option (given in a --config file k6 reads, so the URLs, the
// Host header and the TLS name stay as the script wrote them); any other
// host the script names is refused before k6 starts, and k6's own
// `blacklistIPs` keeps every address but loopback out of reach at run
// time; any other name, built at run time, is mapped by `hosts` to an
// address that list refuses, so k6 never resolves it. Then k6's summary export and NDJSON stream, the server's own view
// and every stage's counters go to the analyzer.
//
// k6 stays outside the repository (AGPL): it is found on PATH or given,
// never built or vendored.
package k6path
