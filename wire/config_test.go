package wire

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestConfigSwitchesYAML: noLatencyHold and noReplyRead decode strictly,
// and a bad value names the field and its line.
func TestConfigSwitchesYAML(t *testing.T) {
	for _, tt := range []struct {
		in            string
		hold, reply   bool
		poll          bool     // busyPoll
		errHas        []string // empty: decodes
		summarySuffix string
	}{
		{in: "latency: 1ms", summarySuffix: "latency 1ms"},
		{in: "latency: 1ms\nnoLatencyHold: true", hold: true, summarySuffix: "; noLatencyHold"},
		{in: "noReplyRead: true", reply: true, summarySuffix: "; noReplyRead"},
		{in: "noLatencyHold: false\nnoReplyRead: false", summarySuffix: "latency 0s"},
		{in: "latency: 1ms\nnoLatencyHold: maybe", errHas: []string{"noLatencyHold", "line 2"}},
		{in: "noReplyRead: 1ms", errHas: []string{"noReplyRead", "line 1"}},
		{in: "noLatencyHolds: true", errHas: []string{"noLatencyHolds", "line 1"}},
		{in: "latency: 1ms\nbusyPoll: true", poll: true, summarySuffix: "; busyPoll"},
		{in: "latency: 1ms\n\nbusyPoll: often", errHas: []string{"busyPoll", "line 3"}},
	} {
		var c Config
		err := yaml.Unmarshal([]byte(tt.in), &c)
		if len(tt.errHas) > 0 {
			if err == nil {
				t.Errorf("%q: decoded to %+v, want an error naming %v", tt.in, c, tt.errHas)
				continue
			}
			for _, want := range tt.errHas {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q: error %q does not say %q", tt.in, err, want)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if c.NoLatencyHold != tt.hold || c.NoReplyRead != tt.reply || c.BusyPoll != tt.poll {
			t.Errorf("%q: noLatencyHold %v, noReplyRead %v, busyPoll %v; want %v, %v, %v", tt.in, c.NoLatencyHold, c.NoReplyRead, c.BusyPoll, tt.hold, tt.reply, tt.poll)
		}
		if !strings.HasSuffix(c.String(), tt.summarySuffix) {
			t.Errorf("%q: summary %q, want it to end %q", tt.in, c.String(), tt.summarySuffix)
		}
	}
}

// TestShorthandSwitches: the command line's form takes the switches too,
// and a bad value names the field.
func TestShorthandSwitches(t *testing.T) {
	c, err := ParseShorthand("latency=1ms,noLatencyHold=true,noReplyRead=true,busyPoll=true")
	if err != nil || !c.NoLatencyHold || !c.NoReplyRead || !c.BusyPoll {
		t.Fatalf("got %+v, %v; want the three switches on", c, err)
	}
	if _, err := ParseShorthand("noLatencyHold=sometimes"); err == nil || !strings.Contains(err.Error(), "noLatencyHold") {
		t.Errorf("noLatencyHold=sometimes: error %v, want one naming noLatencyHold", err)
	}
}
