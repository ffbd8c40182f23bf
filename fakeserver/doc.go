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
// ?work=500ms&cpu=2ms&size=8KiB&status=429, within bounds (Config's MaxWork,
// MaxCPU, MaxSize): work's mean at most 60 s (each draw cut there), cpu at
// most 10 s, size at most 1 GiB, none negative, status 200–599; out of range
// is answered 400 naming the parameter. A request's work (sleep and CPU
// burn) ends when its client leaves and when Shutdown's grace is over.
//
// The admin paths (/_mb/stats, /_mb/health, /metrics) answer GETs on the
// served address; POST /_mb/reset works only on the admin listener
// (AdminListen), which a box's path never reaches.
package fakeserver
