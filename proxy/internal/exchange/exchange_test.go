package exchange

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestServeAbortsOnlyAnUnanswered: a chain that wrote nothing for a
// client that left is not answered (http.ErrAbortHandler); one that wrote,
// or whose client is still there, is.
func TestServeAbortsOnlyAnUnanswered(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name      string
		write     bool
		abort     bool
		ctx       context.Context
		wantPanic bool
	}{
		{"answered", true, false, context.Background(), false},
		{"answered, then the client left", true, true, gone, false},
		{"nothing written, client there", false, false, context.Background(), false},
		{"nothing written, client left (Abort)", false, true, context.Background(), true},
		{"nothing written, context ended", false, false, gone, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ex := &Exchange{Abort: tt.abort}
			r := httptest.NewRequest("GET", "/", nil).WithContext(tt.ctx)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.write {
					w.WriteHeader(http.StatusTeapot)
				}
			})
			var got any
			func() {
				defer func() { got = recover() }()
				ex.Serve(h, httptest.NewRecorder(), r)
			}()
			if tt.wantPanic && got != http.ErrAbortHandler || !tt.wantPanic && got != nil {
				t.Errorf("recovered %v, want abort %v", got, tt.wantPanic)
			}
		})
	}
}

// TestClaim: only the exchange's own writer straight over the given one
// is claimed, and a claimed answer counts as begun (Serve then answers).
func TestClaim(t *testing.T) {
	under := httptest.NewRecorder()
	ex := &Exchange{Abort: true}
	var claimed, wrapped bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wrapped = Claim(struct{ http.ResponseWriter }{w}, under)
		claimed = Claim(w, under)
	})
	ex.Serve(h, under, httptest.NewRequest("GET", "/", nil)) // panics if the claim did not count
	if !claimed || wrapped {
		t.Errorf("claimed %v, wrapped writer claimed %v: want true, false", claimed, wrapped)
	}
	if Claim(under, under) {
		t.Error("a writer that is not an exchange's was claimed")
	}
}

type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (failingBody) Close() error               { return nil }

// TestBodyErr: the first error reading the client's body, a framing field
// in its trailer, nothing for a body read to its end or none.
func TestBodyErr(t *testing.T) {
	broken := errors.New("broken chunk size")
	for _, tt := range []struct {
		name    string
		body    io.ReadCloser
		trailer http.Header
		want    string // "" for no error
	}{
		{"no body", nil, nil, ""},
		{"read to its end", io.NopCloser(strings.NewReader("abc")), nil, ""},
		{"a read failed", failingBody{broken}, nil, broken.Error()},
		{"a harmless trailer", io.NopCloser(strings.NewReader("abc")), http.Header{"X-Sum": {"1"}}, ""},
		{"a trailer naming Content-Length", io.NopCloser(strings.NewReader("abc")), http.Header{"Content-Length": {"3"}}, "a trailer field named Content-Length"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			r.Body, r.Trailer = tt.body, tt.trailer
			if tt.body == nil {
				r.Body = http.NoBody
			}
			ex := &Exchange{}
			ex.WatchBody(r)
			_, _ = io.Copy(io.Discard, r.Body)
			got := ""
			if err := ex.BodyErr(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("BodyErr %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTimingWriter: the stages' entries follow the upstream's own in its
// last Server-Timing line, each described as the box.
func TestTimingWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Add("Server-Timing", "app;dur=1.0")
	ex := &Exchange{}
	ex.AddTiming("waf", 2500*time.Microsecond)
	ex.AddTiming("fault", 10*time.Millisecond)
	w := &TimingWriter{ResponseWriter: rec, Ex: ex, Desc: "edge"}
	_, _ = w.Write([]byte("x"))
	want := `app;dur=1.0, waf;dur=2.5;desc="edge", fault;dur=10.0;desc="edge"`
	if got := rec.Header().Get("Server-Timing"); got != want {
		t.Errorf("Server-Timing %q, want %q", got, want)
	}
}

// TestConnID: the id of a tracked connection under the stages' wrappers;
// 0 for one the box did not track.
func TestConnID(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tc := &Tracked{Conn: a, ID: 42}
	wrapped := wrapper{wrapper{tc}}
	if got := ConnID(wrapped); got != 42 {
		t.Errorf("through two wrappers: %d, want 42", got)
	}
	if got := ConnID(b); got != 0 {
		t.Errorf("untracked: %d, want 0", got)
	}
}

type wrapper struct{ net.Conn }

func (w wrapper) NetConn() net.Conn { return w.Conn }
