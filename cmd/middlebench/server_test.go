package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/tcptest"
)

func TestServerFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"server", "--work", "soon"}, `--work`},
		{[]string{"server", "--size", "8K"}, `ambiguous`},
		{[]string{"server", "--read-rate", "8MiB"}, `--read-rate`},
		{[]string{"server", "--workers", "-2"}, `workers`},
		{[]string{"server", "--status", "42"}, `status`},
		{[]string{"server", "--bogus"}, `unknown flag: --bogus`},
		{[]string{"server", "extra"}, `unknown command "extra"`},
		{[]string{"server", "--listen", "0.0.0.0:0"}, `listen: "0.0.0.0:0" listens on every interface`},
		{[]string{"server", "--listen", ":0"}, `listen: ":0" listens on every interface`},
		{[]string{"server", "--listen", "192.168.1.20:0"}, `not a loopback address`},
		{[]string{"server", "--read-timeout", "soon"}, `--read-timeout`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := newRootCmd()
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestServerCommandServesAndSummarises runs the command as a user would:
// it serves, and on cancel (Ctrl-C) prints one line of what it served.
func TestServerCommandServesAndSummarises(t *testing.T) {
	addr := tcptest.FreeAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	var out bytes.Buffer
	cmd := newRootCmd()
	cmd.SetArgs([]string{"server", "--listen", addr, "--work", "20ms", "--size", "1KiB"})
	cmd.SetOut(&out)
	done := make(chan error)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	// Up once it accepts a connection (no request: each round's is measured
	// after its wait for a quiet moment).
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var c net.Conn
		if c, err = net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	served := 0
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		served++
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		st := resp.Header.Get("Server-Timing")
		var app float64
		if _, err := fmt.Sscanf(st, "app;dur=%g,", &app); len(body) != 1024 || err != nil {
			t.Errorf("body %d bytes, Server-Timing %q", len(body), st)
		}
		r.Band("app;dur= for --work 20ms (ms)", app, 20, 21)
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("served %d requests (200×%d)", served, served)) {
		t.Errorf("summary missing: %q", out.String())
	}
}
