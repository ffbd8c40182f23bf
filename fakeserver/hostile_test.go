package fakeserver

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/hostiletest"
	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/timing"
)

// TestSlowlorisDoesNotSlowOthers: 1,000 connections sending their headers
// one byte a second raise a well-behaved client's p99 by at most 10 ms,
// against a baseline p99 taken in the same round; each is measured over
// 2.5 s, so that the slowloris bytes arrive twice meanwhile.
func TestSlowlorisDoesNotSlowOthers(t *testing.T) {
	srv := start(t, Config{})
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	url := srv.URL() + "/"
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		base, nBase := hostiletest.P99(t, c, url, 2500*time.Millisecond)
		accepted := srv.conns.Load()
		stop := hostiletest.Slowloris(t, srv.Addr().String(), 1000, time.Second)
		waitFor(t, 30*time.Second, func() string {
			if n := srv.conns.Load() - accepted; n < 1000 {
				return fmt.Sprintf("%d of 1,000 slowloris connections accepted", n)
			}
			return ""
		})
		loaded, nLoaded := hostiletest.P99(t, c, url, 2500*time.Millisecond)
		stop()
		t.Logf("p99 %v alone (%d requests), %v beside 1,000 slowloris connections (%d requests)", base, nBase, loaded, nLoaded)
		r.Band("p99 rise beside 1,000 slowloris connections (ms)", timing.Millis(loaded-base), -1e9, 10)
	})
}
