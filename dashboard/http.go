package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/loopback"
)

// ErrNotLoopback refuses a dashboard address beyond 127.0.0.1 / ::1 unless
// the caller allows it: the page shows a run's details to whoever reaches it.
var ErrNotLoopback = errors.New("dashboard: address is not loopback (--dashboard-allow-remote serves a class on the LAN)")

// CheckAddr refuses a non-loopback host unless allowRemote, with the one
// check every listener of middlebench makes (internal/loopback).
func CheckAddr(addr string, allowRemote bool) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("dashboard: %q: want HOST:PORT such as 127.0.0.1:26000: %w", addr, err)
	}
	if err := loopback.CheckListen(addr, allowRemote); err != nil {
		return fmt.Errorf("%w: %w", ErrNotLoopback, err)
	}
	return nil
}

// Handler serves the page (/), its feed (/events), its state (/state.json),
// the report (/report) and, for a mystery, the answer form (POST /answer).
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := render(w, nil); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /report", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="middlebench-report.html"`)
		s := d.Snapshot()
		if err := render(w, &s); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /state.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		s := d.Snapshot()
		_ = writeJSON(w, &s)
	})
	mux.HandleFunc("GET /events", d.serveEvents)
	mux.HandleFunc("POST /answer", d.serveAnswer)
	return mux
}

func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch, first := d.subscribe()
	defer d.unsubscribe(ch)
	if _, err := w.Write(first); err != nil {
		return
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg := <-ch:
			if _, err := w.Write(msg); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// AnswerError refuses an answer with an HTTP status (409: the name is
// another's); any other error from Sources.Answer is a 400.
type AnswerError struct {
	Status int
	Err    error
}

func (e *AnswerError) Error() string { return e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

func (d *Dashboard) serveAnswer(w http.ResponseWriter, r *http.Request) {
	if d.src.Answer == nil {
		http.Error(w, "this dashboard takes no answers (only `middlebench mystery` does)", http.StatusNotFound)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	if name == "" || len(name) > 64 {
		http.Error(w, "name: give 1 to 64 characters", http.StatusBadRequest)
		return
	}
	token, err := d.src.Answer(name, r.PostFormValue("codes"), r.PostFormValue("token"))
	if err != nil {
		status := http.StatusBadRequest
		var ae *AnswerError
		if errors.As(err, &ae) {
			status = ae.Status
		}
		http.Error(w, err.Error(), status)
		return
	}
	d.addAnswer()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "answer recorded for %s\n", name)
	if token != "" {
		// The page keeps it (localStorage) and sends it with a revision;
		// by hand: curl -d token=… with the next answer.
		fmt.Fprintf(w, "token: %s (your next answer under this name needs it; nobody else can answer as %s)\n", token, name)
	}
}

// Serve serves d on addr until ctx ends; it returns once listening, with
// the page's URL.
func (d *Dashboard) Serve(ctx context.Context, addr string, allowRemote bool) (string, error) {
	if err := CheckAddr(addr, allowRemote); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("dashboard: %w", err)
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed on Close
	context.AfterFunc(ctx, func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/", nil
}
