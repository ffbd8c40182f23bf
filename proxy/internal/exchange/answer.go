package exchange

import "net/http"

// answerWriter notes whether the box has begun an answer.
type answerWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *answerWriter) WriteHeader(code int) {
	w.wrote = w.wrote || code >= 200 || code == http.StatusSwitchingProtocols
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Serve runs the box's handler chain on one request. A request the
// chain gave up on because its client left — nothing written — is not
// answered at all: the connection is aborted (nginx's 499 is a log entry,
// not a response). Without this net/http would answer an empty 200, which
// a client that only half-closed its side would read as success.
func (ex *Exchange) Serve(h http.Handler, w http.ResponseWriter, r *http.Request) {
	aw := &ex.answer // in the exchange's allocation
	*aw = answerWriter{ResponseWriter: w}
	h.ServeHTTP(aw, r)
	if !aw.wrote && (ex.Abort || r.Context().Err() != nil) {
		panic(http.ErrAbortHandler)
	}
}

// Claim reports whether w is an exchange's own answer writer straight over
// under (no stage wrapped it); if so the answer counts as begun, and the
// caller writes it to under itself.
func Claim(w, under http.ResponseWriter) bool {
	aw, ok := w.(*answerWriter)
	if !ok || aw.ResponseWriter != under {
		return false
	}
	aw.wrote = true
	return true
}
