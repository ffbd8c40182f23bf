// Package proxy holds middlebench's middleboxes: stages that delay, shape,
// limit or reject traffic, composed into boxes, chained into a path between
// a load generator and a server.
//
// Two layers of stage:
//
//   - connection stages wrap each connection the box accepts
//     (ConnStage.WrapConn): tls (termination with a handshake delay and a
//     handshake capacity), link (one-way latency on bytes in flight),
//     bandwidth (byte-rate caps), reset (resets a seeded share of
//     connections after a byte budget), slowclose (holds each
//     connection's FIN and close); accept (accept rate and listen
//     backlog) is the one that needs the listener itself
//     (ListenerStage.WrapListener);
//   - HTTP stages are func(http.Handler) http.Handler middleware
//     (HTTPStage.Wrap): waf (inspection delay, capacity, block rules),
//     ratelimit (429 with Retry-After and the IETF RateLimit headers),
//     uablock (User-Agent blocking with an allow-list), fault (aborts,
//     resets and delays with a probability), header (a response header
//     on every answer, as a CDN's X-Cache);
//   - budget is a box's own load budget, not a device of the path it
//     models: it paces requests (or, with connRate, accepts) so that a load
//     rejected as fast as it comes costs a bounded rate (a mystery adds one
//     and reports it apart from the puzzle).
//
// A box is a listener, its stages in path order (the first stage is the one
// nearest the client) and a forwarding engine to the next hop. A path is
// boxes chained client → box 1 → … → box n → upstream, each on its own
// 127.0.0.1 port with its own counters.
//
// The engine is not a stage author's business; its pieces live in packages
// of their own under proxy/internal, each drawing its path in its doc.go.
// When all a box's stages are connection stages it forwards bytes without
// parsing HTTP (forward: on Linux a plain pair moves through one epoll
// loop, relay; else two copy goroutines, splice where the kernel can).
// Otherwise it parses each request once and forwards it over keep-alive
// connections (upstream). On plain HTTP that is h1loop: on Linux the HTTP
// loop, one epoll loop for every connection, which runs the stages on its
// own goroutine for a request each decides at once (instantStage) and hands
// a connection it does not take whole (a body, a delay, an answer to
// re-frame) to the lean HTTP/1.1 loop, a goroutine per connection, which in
// turn hands what it does not parse in full to net/http's server and
// httputil.ReverseProxy (upstream.Proxy), the path of TLS boxes. The loops
// block in epoll_wait only in a process of their own
// (PathConfig.OwnProcess: the proxy command); beside a load engine they
// wait in Go's poller (epoll). Below them: deadline (a loop's deadlines
// without a timer each), socket (backlog, peek, dup), copybuf (the copy
// buffers every path shares) and exchange (one request's ids, timings and
// body, which the box, its stages and the loops share). The box hands
// h1loop what it needs of it (h1loop.Config: its next hop, limits, handler
// chain, counting and recording) in engine.go.
//
// Every stage counts what it did (seen, passed, rejected by status, delay
// histograms, bytes shaped, handshakes queued …) and writes an answer key,
// the ledger: what it did to which connection or request, asked and
// applied. Every random choice derives from the path's one seed.
//
// What the link stage can and cannot move in k6's phases: it delays the
// bytes a userspace proxy sees, after the kernel has accepted the TCP
// connection. Each TLS round trip (1 for TLS 1.3, 2 for TLS 1.2), the
// request and its response pay the round trip, so tls_handshaking, waiting
// and (for bodies larger than what is in flight) sending/receiving move.
// http_req_connecting cannot move: the SYN / SYN-ACK exchange happens in
// the kernel before accept(2) returns. To move it too, delay the packets
// themselves: a path's wire (package wire: a delay line between two network
// namespaces, `run --serve-only --wire latency=15ms`), where TCP's own
// handshake pays the round trip and the link stage is not needed.
//
// # Writing a stage
//
// A stage is one file and one line in the kinds registry (stage.go); the
// box, the YAML decoder, the command line's shorthand, --help, the
// counters, the admin endpoint and the ledger need nothing else. reset.go
// is a small complete example. The file holds:
//
//  1. The config: an exported struct with yaml tags, its Kind() and a
//     comment that says what device it models. Field types from units
//     (Duration, Dist, Size, Rate, ByteRate) parse "450ms", "normal:50ms,5ms",
//     "64KiB", "100/s" and name the field and line when they do not.
//  2. compile(): check every field (errField("field", …) names it) and
//     return the stage, its expressions compiled and defaults applied.
//     Validation and the box's start both call it, so a check is written
//     once; it must not start goroutines or touch the network.
//  3. The stage: a struct that embeds bound, which the box fills with its
//     environment (env: clock, seed, ledger) and c, the counters the box
//     made from the kind (seen, passed, reject(status), bytes, addDelay,
//     addQueued). Counts of its own are named atomic fields reported by
//     extraCounts. A start() error method does work that needs the
//     environment before the box serves (bandwidth's shapers on the box's
//     clock, tls's certificate).
//  4. What it works on — one of:
//     ConnStage: WrapConn(net.Conn) net.Conn, called once per accepted
//     connection; return c itself when there is nothing to do (the socket
//     then keeps splice(2)); a wrapper exposes the inner conn with
//     NetConn() so that exchange.ConnID and abortConn find the socket, and
//     passes the connection's ends on — CloseWrite, CloseRead, Abort — in
//     order with its bytes and after its delay (connend.go): a wrapper without
//     CloseWrite keeps a close-delimited answer's client waiting.
//     ListenerStage: WrapListener(net.Listener) net.Listener, only for a
//     stage that decides when accept(2) happens.
//     HTTPStage: Wrap(http.Handler) http.Handler; exchange.From(ctx) gives
//     the connection and request ids, ex.AddTiming a Server-Timing entry, and
//     reply or a rejection answers without the upstream. A stage whose
//     handler can decide some requests without waiting for anything (no
//     delay, queue, body or hijack) says which with instant(r), from its
//     config and r alone: the HTTP loop then runs it on the loop's own
//     goroutine, where a wait would stall every connection; without it,
//     every request of the box goes to a goroutine of its own.
//  5. Abilities towards the whole box, when it has them, as optional
//     interfaces found once by compileStages: CertOwner (it terminates TLS:
//     clients trust its pool, the box speaks TLS to an https next hop),
//     BacklogSetter (the listen backlog), FixedFirst (it must be stage 1).
//     A box holds one stage of each ability; io.Closer is called when the
//     box closes.
//
// Randomness comes from env.rng(id) — a generator per connection or request
// seeded from the path's seed and the stage's place — so that the same run
// makes the same choices; time comes from env.clock (and env.wait), never
// from time.Now or time.Sleep, so that tests can run the stage on a fake
// clock. Every act worth explaining afterwards is a ledger entry
// (env.record) with the asked and applied values.
//
// Test it in a table in <kind>_test.go: a path from YAML (startYAML) on
// port 0 in front of an httptest or tcptest origin, expectations written
// from the configuration (bytes, counts, statuses exact; times as bands
// measured in realtimetest.Rounds), and its field errors through
// ParseStage.
package proxy
