package proxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/hostiletest"
	"github.com/middlebench/middlebench/internal/realtimetest"
)

// TestBoxSlowlorisDoesNotSlowOthers: 1,000 connections sending their
// headers one byte a second to an HTTP box raise a well-behaved client's
// p99 through it by at most 10 ms, against a baseline p99 taken in the
// same round; each is measured over 2.5 s (two slowloris bytes).
func TestBoxSlowlorisDoesNotSlowOthers(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", origin(t).URL)
		c := &http.Client{Transport: &http.Transport{}}
		defer c.CloseIdleConnections()
		url := p.URL() + "/"
		addr := strings.TrimPrefix(p.URL(), "http://")
		realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
			base, nBase := hostiletest.P99(t, c, url, 2500*time.Millisecond)
			active := p.Stats().Boxes[0].Active
			stop := hostiletest.Slowloris(t, addr, 1000, time.Second)
			waitStats(t, p, func(s BoxStats) bool { return s.Active >= active+1000 })
			loaded, nLoaded := hostiletest.P99(t, c, url, 2500*time.Millisecond)
			stop()
			t.Logf("p99 %v alone (%d requests), %v beside 1,000 slowloris connections (%d requests)", base, nBase, loaded, nLoaded)
			r.Band("p99 rise beside 1,000 slowloris connections (ms)", float64(loaded-base)/1e6, -1e9, 10)
		})
	})
}

// TestClientThatNeverReadsHoldsBoundedMemory: 20 clients ask for 64 MiB
// each and never read. The heap grows by the buffers of those exchanges
// only, whatever the size asked for: per client the box holds its 32 KiB
// copy buffer, the upstream connection's 32 KiB read and 32 KiB write
// buffers and net/http's 4 KiB + 4 KiB for the client's connection
// (104 KiB), and the test's origin about 10 KiB of its own; the bound
// checked is 192 KiB a client (3.75 MiB for 20). The origin's writes block
// meanwhile: nothing of the 1.25 GiB asked for piles up in the box.
func TestClientThatNeverReadsHoldsBoundedMemory(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		chunk := make([]byte, 32<<10)
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(64<<20))
			for range (64 << 20) / len(chunk) { // streams, so that the origin's memory stays out of the count
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		defer up.Close()
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
		addr := strings.TrimPrefix(p.URL(), "http://")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		const clients = 20
		for range clients {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.(*net.TCPConn).SetReadBuffer(4096)
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		// Wait until the transfers stall: the box's bytes stop moving.
		waitStats(t, p, func(s BoxStats) bool { return s.Requests == clients })
		waitSteady(t, "the heap", func() int64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return int64(m.HeapAlloc)
		}, 100*time.Millisecond, 10*time.Second)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("heap %d B before, %d B with %d stalled 64 MiB downloads: %+d B (%d B a client)", before.HeapAlloc, after.HeapAlloc, clients, grew, grew/clients)
		if grew > clients*192<<10 {
			t.Errorf("the heap grew by %d B for %d clients that never read, above %d B", grew, clients, clients*192<<10)
		}
	})
}
