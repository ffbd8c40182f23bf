package fakeserver

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// The caps run on an injected fake clock: the expected times follow from
// the rate and the bucket (capBurst: 32 KiB at these rates, full at the
// start), and nothing waits in real time.

// clockStep is how far the driver moves the fake clock at a time: a
// transfer wakes at most one step late, and its bucket (3–4 ms deep here)
// keeps the tokens of that lateness, so only the last wake-up adds to a
// total.
const clockStep = 100 * time.Microsecond

// driveClock moves fc forward a step at a time while transfers are
// active, and only when every active transfer waits on it: fake time
// never runs ahead of a transfer busy in real time (reading a socket).
func driveClock(t *testing.T, fc *clock.Fake, active *atomic.Int64) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			default:
			}
			if n := int(active.Load()); n > 0 && fc.WaitPending(n, time.Millisecond) {
				fc.Advance(clockStep)
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func fakeClockServer(t *testing.T, cfg Config) (*Server, *clock.Fake) {
	fc := clock.NewFake(time.Unix(1_700_000_000, 0))
	cfg.Clock = fc
	return start(t, cfg), fc
}

// TestReadRateCap: E2's server reads uploads at 8 MiB/s in total: 8 MiB
// less the 32 KiB bucket takes 996.094 ms, and that is the read time the
// server reports, none of it the app's.
func TestReadRateCap(t *testing.T) {
	srv, fc := fakeClockServer(t, Config{ReadRate: units.ByteRate(8 * units.MiB)})
	var active atomic.Int64
	active.Store(1)
	defer driveClock(t, fc, &active)()
	t0 := fc.Now()
	resp, err := http.Post(srv.URL()+"/", "application/octet-stream", bytes.NewReader(bytes.Repeat([]byte("x"), 8<<20)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	active.Store(0)
	want := timing.Millis(time.Second - time.Duration(32<<10)*time.Second/(8<<20))
	assertWithin(t, "fake ms for 8 MiB at 8 MiB/s", timing.Millis(fc.Now().Sub(t0)), want, want+timing.Millis(clockStep))
	st := parseServerTiming(t, resp.Header)
	assertWithin(t, "Server-Timing read (ms)", st["read"], want-0.001, want+timing.Millis(clockStep))
	if st["app"] != 0 {
		t.Errorf("Server-Timing app %v ms, want 0: the upload is not the app's time", st["app"])
	}
	if in := srv.Stats().BytesIn; in != 8<<20 {
		t.Errorf("bytesIn %d, want %d", in, 8<<20)
	}
}

// TestReadRateIsShared: two uploads of 2 MiB each through a 4 MiB/s cap
// take 992.19 ms together (4 MiB less the bucket), not half that each.
func TestReadRateIsShared(t *testing.T) {
	srv, fc := fakeClockServer(t, Config{ReadRate: units.ByteRate(4 * units.MiB)})
	var active atomic.Int64
	active.Store(2)
	defer driveClock(t, fc, &active)()
	t0 := fc.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer active.Add(-1)
			resp, err := http.Post(srv.URL()+"/", "application/octet-stream", bytes.NewReader(make([]byte, 2<<20)))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	want := timing.Millis(time.Second - time.Duration(32<<10)*time.Second/(4<<20))
	assertWithin(t, "fake ms for 2 × 2 MiB at 4 MiB/s shared", timing.Millis(fc.Now().Sub(t0)), want, want+timing.Millis(clockStep))
}

// TestWriteRateCap: E4's server sends 256 KiB responses at 10 MiB/s for all
// connections together: 40 of them (10 MiB) over 8 connections take 10 MiB
// less the bucket, 996.875 ms.
func TestWriteRateCap(t *testing.T) {
	srv, fc := fakeClockServer(t, Config{Size: 256 * units.KiB, WriteRate: units.ByteRate(10 * units.MiB)})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	jobs := make(chan struct{}, 40)
	for range 40 {
		jobs <- struct{}{}
	}
	close(jobs)
	var active atomic.Int64
	active.Store(8)
	defer driveClock(t, fc, &active)()
	t0 := fc.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer active.Add(-1)
			for range jobs {
				resp, err := client.Get(srv.URL() + "/")
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != 256*1024 {
					t.Errorf("body %d bytes", n)
				}
			}
		}()
	}
	wg.Wait()
	want := timing.Millis(time.Second - time.Duration(32<<10)*time.Second/(10<<20))
	assertWithin(t, "fake ms for 40 × 256 KiB at 10 MiB/s", timing.Millis(fc.Now().Sub(t0)), want, want+timing.Millis(clockStep))
	waitRequests(t, srv, 40)
	if out := srv.Stats().BytesOut; out != 40*256*1024 {
		t.Errorf("bytesOut %d", out)
	}
}
