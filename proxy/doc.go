// Package proxy holds middlebench's middleboxes: stages that delay, shape,
// limit or reject traffic, composed into boxes, chained into a path between
// a load generator and a server.
//
// Two kinds of stage:
//
//   - connection stages wrap the box's net.Listener and its net.Conns: tls
//     (termination with a handshake delay and a handshake capacity), accept
//     (accept rate and listen backlog), link (one-way latency on bytes in
//     flight), bandwidth (byte-rate caps);
//   - HTTP stages are func(http.Handler) http.Handler middleware: waf
//     (inspection delay, capacity, block rules), ratelimit (429 with
//     Retry-After and the IETF RateLimit headers), uablock (User-Agent
//     blocking with an allow-list), fault (aborts, resets and delays with a
//     probability).
//
// A box is a listener, its stages in path order (the first stage is the one
// nearest the client) and a forwarder to the next hop: when all its stages
// are connection stages it forwards bytes without parsing HTTP (io.Copy,
// splice where the kernel can), otherwise it parses each request once and
// forwards it with httputil.ReverseProxy over keep-alive connections. A path
// is boxes chained client → box 1 → … → box n → upstream, each on its own
// 127.0.0.1 port with its own counters.
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
// themselves: in a network namespace, `tc qdisc add dev lo root netem delay
// 15ms` (one-way on loopback, so 30 ms RTT) — which then applies to every
// byte, and the link stage is not needed.
package proxy
