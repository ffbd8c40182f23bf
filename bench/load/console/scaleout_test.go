package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
)

func TestApplySegmentIndex(t *testing.T) {
	idx := func(i int) *int { return &i }
	for _, c := range []struct {
		cfg   load.Config
		index *int
		want  string // the segment, or the error's words
		fails bool
	}{
		{load.Config{ExecutionSegmentSequence: "0,1/4,2/4,3/4,1"}, idx(2), "1/2:3/4", false},
		{load.Config{ExecutionSegmentSequence: "0,1/3,1"}, idx(1), "1/3:1", false},
		{load.Config{ExecutionSegment: "0:1/2"}, nil, "0:1/2", false},
		{load.Config{ExecutionSegmentSequence: "0,1/2,1", ExecutionSegment: "0:1/2"}, idx(0), "not both", true},
		{load.Config{}, idx(0), "needs executionSegmentSequence", true},
		{load.Config{ExecutionSegmentSequence: "0,1/2,1"}, idx(2), "segments 0..1", true},
	} {
		cfg := c.cfg
		err := applySegmentIndex(&cfg, c.index)
		if c.fails {
			if !errors.Is(err, load.ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%+v index %v: err %v, want ErrConfig saying %q", c.cfg, c.index, err, c.want)
			}
			continue
		}
		if err != nil || cfg.ExecutionSegment != c.want {
			t.Errorf("%+v index %v: segment %q, %v; want %q", c.cfg, c.index, cfg.ExecutionSegment, err, c.want)
		}
	}
}

// The document is PUT whole; a receiver answering 503 (not ready) is
// retried, a 400 (refused) is final and its reason reported.
func TestSendResults(t *testing.T) {
	doc := &metrics.Document{Run: &metrics.RunInfo{URL: "http://127.0.0.1:8080/", ExecutionSegment: "0:1/2"}}
	var calls atomic.Int32
	var got metrics.Document
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		if r.Method != http.MethodPut || r.URL.Path != "/results/0" {
			http.Error(w, "wrong", http.StatusMethodNotAllowed)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	if err := sendResults(context.Background(), Options{ResultsURL: srv.URL + "/results/0"}, doc); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || got.Run == nil || got.Run.ExecutionSegment != "0:1/2" {
		t.Errorf("%d calls, received run %+v; want a retry after the 503, then the document", calls.Load(), got.Run)
	}

	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "different tests: run.url", http.StatusBadRequest)
	}))
	defer refusing.Close()
	err := sendResults(context.Background(), Options{ResultsURL: refusing.URL + "/results/0"}, doc)
	if err == nil || !strings.Contains(err.Error(), "refused (400 Bad Request): different tests: run.url") {
		t.Errorf("err %v, want the refusal and its reason", err)
	}
	// merge's token, given as the URL's password, never reaches a message.
	withToken := strings.Replace(refusing.URL, "http://", "http://mb:s3cret@", 1) + "/results/0"
	err = sendResults(context.Background(), Options{ResultsURL: withToken}, doc)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "mb:xxxxx@") {
		t.Errorf("err %v, want the refusal with the token redacted", err)
	}
	if err := checkURL("--results-url", "ftp://mb:s3cret@x/y"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("checkURL: %v, want a refusal with the token redacted", err)
	}
	for _, bad := range []string{"merge:8080/results/0", "ftp://x/y", "http://"} {
		if checkURL("--results-url", bad) == nil {
			t.Errorf("--results-url %q accepted", bad)
		}
	}
}

// The run waits for the start gate: a 503 (not up) is retried, 200 starts,
// a 404 is final.
func TestWaitStart(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/start/0":
			http.Error(w, "index: want 0..0", http.StatusNotFound)
		case calls.Add(1) == 1:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte("go\n"))
		}
	}))
	defer srv.Close()
	if err := waitStart(context.Background(), Options{StartURL: srv.URL + "/start/0"}); err != nil || calls.Load() != 2 {
		t.Errorf("err %v after %d calls, want the start after a retry", err, calls.Load())
	}
	if err := waitStart(context.Background(), Options{StartURL: srv.URL + "/start/7"}); err == nil || !strings.Contains(err.Error(), "want 0..0") {
		t.Errorf("a refused start: err %v", err)
	}
}
