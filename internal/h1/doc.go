// Package h1 reads the bytes of HTTP/1.1 messages (RFC 9112, with the
// field syntax of RFC 9110): where a head ends, its lines, a start line, a
// field line, token lists, Content-Length and chunk-size lines. It is the
// one parser of those bytes for the lean paths of the load engine
// (bench/load) and the proxy, which both take the common shapes here and
// hand anything else to net/http.
//
// It is not a server, a client or a message reader: it does no I/O, keeps
// no state, imports nothing of net/http, and never allocates. Each
// function takes bytes (or a string, where a caller holds one) and answers
// with views into them. It refuses (ok false) what the RFCs let a
// recipient either accept or refuse — a bare LF, a bare CR, obs-fold, a
// Content-Length list — as well as what they forbid, such as white space
// before a field's colon or a signed Content-Length, so that a caller
// passes such a message to a full parser rather than guess at it.
//
// One file per element of the grammar:
//
//	token.go      token, tchar; ASCII case-insensitive comparison (RFC 9110 §5.6.2)
//	list.go       OWS; a comma-separated list holding a token (RFC 9110 §5.6.1, §5.6.3)
//	line.go       a CRLF line; where a head ends; a bare LF (RFC 9112 §2.1, §2.2)
//	field.go      a field line: name, value (RFC 9112 §5, RFC 9110 §5.5)
//	startline.go  a request line and a status line (RFC 9112 §3, §4)
//	length.go     Content-Length (RFC 9110 §8.6, RFC 9112 §6.3)
//	chunk.go      a chunk-size line (RFC 9112 §7.1)
//	host.go       the characters of a Host (RFC 9110 §7.2, RFC 3986 §3.2.2)
package h1
