//go:build linux

package proxy

import (
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"golang.org/x/sys/unix"
)

// TestEventSetFollow: a set that may block starts out of the runtime's
// poller, goes in and comes out again as its gauge says, its duplicate
// descriptor closed on the way out; events come out of both waits. A set
// that may not block is in the poller from the start.
func TestEventSetFollow(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	before := leaktest.OpenFDs(t)
	s, err := newEventSet("test", true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	withSet := leaktest.OpenFDs(t)
	events := make([]unix.EpollEvent, 4)
	woken := func(how string) {
		t.Helper()
		if err := s.signal(); err != nil {
			t.Fatal(err)
		}
		n, err := s.waitOnce(events)
		if err != nil || n != 1 || events[0].Pad != wakePad {
			t.Fatalf("%s: %d events (%v), want the wake-up", how, n, err)
		}
		s.drainWake()
	}
	if !s.block || s.epf != nil {
		t.Fatalf("a set that may block: block %v, in the poller %v; want true, false", s.block, s.epf != nil)
	}
	woken("blocked")
	s.follow(true)
	if s.epc == nil || leaktest.OpenFDs(t) != withSet+1 {
		t.Fatalf("after follow(true): in the poller %v with %d descriptors, want true with %d", s.epc != nil, leaktest.OpenFDs(t), withSet+1)
	}
	woken("in the poller")
	s.follow(false)
	if s.epf != nil || s.epc != nil || leaktest.OpenFDs(t) != withSet {
		t.Fatalf("after follow(false): in the poller %v with %d descriptors, want false with %d", s.epc != nil, leaktest.OpenFDs(t), withSet)
	}
	woken("blocked again")
	s.close()
	if got := leaktest.OpenFDs(t); got != before {
		t.Fatalf("%d descriptors after close, want %d", got, before)
	}

	p, err := newEventSet("test", false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if p.block || p.epc == nil {
		t.Fatalf("a set that may not block: block %v, in the poller %v; want false, true", p.block, p.epc != nil)
	}
}

// TestLoopWaitFollowsLoad: a box of a process of its own, with two Ps,
// starts blocking in epoll_wait; requests 3 ms apart leave its loop idle
// well over three quarters of its time, so it turns to the poller.
func TestLoopWaitFollowsLoad(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	origin := "http://" + cannedOrigin(t)
	for _, tt := range []struct {
		name string
		yaml string
		set  func(*Box) *eventSet
	}{
		{"HTTP loop", "boxes: [{stages: [{kind: waf}]}]", func(b *Box) *eventSet {
			b.loop.mu.Lock()
			defer b.loop.mu.Unlock()
			return b.loop.set
		}},
		{"relay", "boxes: [{name: plain}]", func(b *Box) *eventSet {
			b.relay.mu.Lock()
			defer b.relay.mu.Unlock()
			return b.relay.set
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startYAMLWith(t, tt.yaml, origin, func(c *PathConfig) { c.OwnProcess = true })
			client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			defer client.CloseIdleConnections()
			const requests = 30
			for range requests {
				resp, err := client.Get(p.URL() + "/a/plain")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				time.Sleep(3 * time.Millisecond)
			}
			set := tt.set(p.Boxes()[0])
			if set == nil {
				t.Fatal("the box's loop never ran")
			}
			p.Close() // the loop has ended: its gauge is ours to read
			if !set.block || !set.gauge.polling || set.gauge.switches < 1 {
				t.Errorf("after %d requests 3 ms apart: may block %v, polling %v after %d switches; want true, true, at least 1", requests, set.block, set.gauge.polling, set.gauge.switches)
			}
		})
	}
}
