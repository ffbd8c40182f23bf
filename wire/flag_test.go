package wire

import (
	"strings"
	"testing"
	"time"
)

func TestParseShorthand(t *testing.T) {
	for _, tt := range []struct {
		in         string
		up, down   Link
		seed       uint64
		mtu        int
		wantErrHas string
	}{
		{in: "latency=75ms,rate=100Mbit/s,queue=256KiB,loss=0.1%",
			up:   Link{Latency: ms(75), Rate: mbit(100), Queue: Queue{Bytes: 256 << 10}, Loss: 0.1},
			down: Link{Latency: ms(75), Rate: mbit(100), Queue: Queue{Bytes: 256 << 10}, Loss: 0.1}},
		{in: "latency=20ms, jitter=2ms, seed=7, mtu=1400",
			up: Link{Latency: ms(20), Jitter: ms(2)}, down: Link{Latency: ms(20), Jitter: ms(2)}, seed: 7, mtu: 1400},
		{in: "latency=10ms,down.rate=10Mbit/s,down.queue=100 packets,up.loss=1%",
			up: Link{Latency: ms(10), Loss: 1}, down: Link{Latency: ms(10), Rate: mbit(10), Queue: Queue{Packets: 100}}},
		{in: "latency=10ms,lag=5ms", wantErrHas: "lag"},
		{in: "latency=soon", wantErrHas: "latency"},
		{in: "loss=150%", wantErrHas: "loss"},
		{in: "rate=fast", wantErrHas: "rate"},
		{in: "queue=1MiB", wantErrHas: "queue 1MiB without a rate"},
		{in: "latency=1ms,jitter=2ms", wantErrHas: "jitter"},
		{in: "sideways.latency=1ms", wantErrHas: "sideways.latency: a direction is up or down"},
		{in: "up.lag=1ms", wantErrHas: "lag"},
		{in: "latency=1ms,latency=2ms", wantErrHas: "latency given twice"},
		{in: "latency", wantErrHas: "want field=value"},
		{in: "", wantErrHas: "want field=value"},
		{in: "mtu=100", wantErrHas: "mtu 100"},
	} {
		c, err := ParseShorthand(tt.in)
		if tt.wantErrHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrHas) {
				t.Errorf("%q: error %v, want one naming %q", tt.in, err, tt.wantErrHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if c.UpLink() != tt.up || c.DownLink() != tt.down || c.Seed != tt.seed || c.MTU != tt.mtu {
			t.Errorf("%q: up %+v down %+v seed %d mtu %d; want up %+v down %+v seed %d mtu %d",
				tt.in, c.UpLink(), c.DownLink(), c.Seed, c.MTU, tt.up, tt.down, tt.seed, tt.mtu)
		}
	}
}

func TestFlagSetsConfig(t *testing.T) {
	var f Flag
	if f.Config != nil || f.String() != "" {
		t.Fatalf("unset flag: %+v %q", f.Config, f.String())
	}
	if err := f.Set("latency=5ms"); err != nil {
		t.Fatal(err)
	}
	if f.Config == nil || f.Config.UpLink().Latency.D() != 5*time.Millisecond {
		t.Fatalf("after Set: %+v", f.Config)
	}
	if err := f.Set("latency=5"); err == nil {
		t.Error("latency=5 (no unit) accepted")
	}
}
