// Package fakeserver is the origin of every experiment — the article's WAS —
// and its own view of what it served, the stand-in for an APM.
//
// Per request it waits for a worker slot (Little's law: 10 workers × 50 ms ≈
// 200/s), reads the request body (optionally capped in bytes/s for all
// connections together), works (a sleep drawn from a distribution and/or a
// real CPU burn), then answers a body of a given size (optionally gzipped,
// optionally capped in bytes/s for all connections together). Every response
// carries Server-Timing with the time each part took inside the server, so a
// client can tell "server busy" (queue) from "server slow" (app).
//
// Query parameters override the defaults per request:
// ?work=500ms&cpu=2ms&size=8KiB&status=429.
package fakeserver
