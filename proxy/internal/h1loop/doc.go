// Package h1loop is a plain-HTTP box's forwarding engine: the loops that
// read its clients' HTTP/1.1 requests, run the box's handler chain on them
// (Config.Handle: the stages, counted) and forward them, and the forwarder
// at the end of that chain. The box (proxy) builds an Engine from a Config
// — its next hop and limits, its chain, its counting and recording — and
// gives it each accepted connection (Serve); it knows nothing else of
// what is here, and a stage never needs to.
//
//	accepted conn ─Serve→ event loop (Linux, every stage Instant; httploop_linux.go, loop*_linux.go)
//	                        │ one epoll set: heads read, the chain run on the loop,
//	                        │ the request and its answer copied read by read
//	                        ├─ a body, a stage that waits, an answer it does not copy ─┐
//	                        └→ otherwise: the lean loop (lean.go), a goroutine per conn ←┘ (loophandoff_linux.go)
//	                              │ head parsed (internal/h1, leanparse.go), the chain run,
//	                              │ the lean forwarder (leanforward.go) writes the request,
//	                              │ copies the answer (leanresponse.go, leanwriter.go)
//	                              └→ what it does not parse: net/http's server, on Start's
//	                                 listener, ending in Forwarder → ReverseProxy (upstream)
//
// A request waiting on the next hop has its client watched from one
// ticking goroutine (leanwait.go); its context is a leanCtx (leanconn.go),
// or on the event loop a reused loopCtx (loopscratch_linux.go). Failures
// are answered through Config.ProxyError and counted through Config.Cut,
// BadRequest and ClientGone: the counters and the ledger are the box's.
package h1loop
