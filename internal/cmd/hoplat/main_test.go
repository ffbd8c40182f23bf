package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A hop that sleeps 2 ms per request adds at least 2 ms to the baseline's
// p50 (a one-sided hard bound; the upper one is generous: the machine may be
// shared), and every request is counted.
func TestMeasureAddsTheHopsDelay(t *testing.T) {
	base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer base.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	defer slow.Close()
	targets, err := measure(50, 5, "/", []string{"base=" + base.Listener.Addr().String(), "slow=" + slow.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if len(tg.times) != 50 {
			t.Errorf("%s: %d round trips kept, want 50", tg.name, len(tg.times))
		}
	}
	added := percentiles(targets[1].times)[0] - percentiles(targets[0].times)[0]
	t.Logf("added p50 %v", added)
	if added < 2*time.Millisecond || added > 50*time.Millisecond {
		t.Errorf("added p50 %v, want 2ms .. 50ms", added)
	}
}

func TestMeasureRefuses(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }))
	defer failing.Close()
	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Connection", "close") }))
	defer closing.Close()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no targets", nil, "at least one NAME=HOST:PORT"},
		{"no name", []string{"127.0.0.1:1"}, "want NAME=HOST:PORT"},
		{"status", []string{"f=" + failing.Listener.Addr().String()}, "f: request 1: status 403"},
		{"close", []string{"c=" + closing.Listener.Addr().String()}, "c: request 1: the server closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := measure(1, 0, "/", tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// Nearest rank: p50 of 1..10 is 5, p99 and p99.9 are 10.
func TestPercentiles(t *testing.T) {
	d := []time.Duration{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	if got, want := percentiles(d), [3]time.Duration{5, 10, 10}; got != want {
		t.Errorf("percentiles %v, want %v", got, want)
	}
}
