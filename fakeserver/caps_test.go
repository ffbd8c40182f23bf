package fakeserver

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/units"
)

// TestReadRateCap: E2's server reads uploads at 8 MiB/s in total.
func TestReadRateCap(t *testing.T) {
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{ReadRate: units.ByteRate(8 * units.MiB)})
		body := bytes.Repeat([]byte("x"), 8<<20)
		t0 := time.Now()
		resp, err := http.Post(srv.URL()+"/", "application/octet-stream", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		el := time.Since(t0).Seconds()
		r.Band("seconds for 8 MiB at 8 MiB/s", el, 0.97, 1.03)
		st := timing(t, resp.Header)
		r.Band("Server-Timing read (ms)", st["read"], 950, 1030)
		r.Band("Server-Timing app (ms)", st["app"], 0, 1) // the upload is not the app's time
		if in := srv.Stats().BytesIn; in != 8<<20 {
			t.Errorf("bytesIn %d, want %d", in, 8<<20)
		}
	})
}

// TestReadRateIsShared: two uploads of 2 MiB each through a 4 MiB/s cap
// take 1 s together, not 0.5 s each.
func TestReadRateIsShared(t *testing.T) {
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{ReadRate: units.ByteRate(4 * units.MiB)})
		var wg sync.WaitGroup
		t0 := time.Now()
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(srv.URL()+"/", "application/octet-stream", bytes.NewReader(make([]byte, 2<<20)))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}()
		}
		wg.Wait()
		r.Band("seconds for 2 × 2 MiB at 4 MiB/s shared", time.Since(t0).Seconds(), 0.97, 1.04)
	})
}

// TestWriteRateCap: E4's server sends 256 KiB responses at 10 MiB/s for all
// connections together: 40 of them (10 MiB) take 1 s.
func TestWriteRateCap(t *testing.T) {
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{Size: 256 * units.KiB, WriteRate: units.ByteRate(10 * units.MiB)})
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		var wg sync.WaitGroup
		jobs := make(chan struct{}, 40)
		for range 40 {
			jobs <- struct{}{}
		}
		close(jobs)
		t0 := time.Now()
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
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
		r.Band("seconds for 40 × 256 KiB at 10 MiB/s", time.Since(t0).Seconds(), 0.97, 1.03)
		waitRequests(t, srv, 40)
		if out := srv.Stats().BytesOut; out != 40*256*1024 {
			t.Errorf("bytesOut %d", out)
		}
	})
}
