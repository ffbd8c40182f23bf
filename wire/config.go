package wire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/internal/units"
	"gopkg.in/yaml.v3"
)

// Config is a wire, as a path's YAML writes it:
//
//	wire: {latency: 75ms, jitter: 1ms, rate: 100Mbit/s, queue: 256KiB, loss: 0.1%, seed: 1}
//
// The fields apply to both directions; up (generator → server) and down
// (server → generator) override them one by one. noLatencyHold and
// noReplyRead switch off two things the line does to keep a crossing after
// a quiet moment as fast as a busy one (Options.NoLatencyHold,
// Options.NoReplyRead): for a comparison, or a machine whose idle CPUs
// must sleep; busyPoll turns on a third, with a price (Options.BusyPoll).
type Config struct {
	Link `yaml:",inline"`
	Up   Override `yaml:"up"`
	Down Override `yaml:"down"`
	Seed uint64   `yaml:"seed"` // seeds loss and jitter draws (up uses Seed, down Seed+1)
	MTU  int      `yaml:"mtu"`  // of both TUN devices; default 1500, as an Ethernet path
	// NoLatencyHold lets idle CPUs halt while packets flow.
	NoLatencyHold bool `yaml:"noLatencyHold"`
	// NoReplyRead leaves the far kernel's replies to the other direction's
	// reader.
	NoReplyRead bool `yaml:"noReplyRead"`
	// BusyPoll spins a thread at idle priority while packets flow.
	BusyPoll bool `yaml:"busyPoll"`
}

// Link is one direction's behaviour.
type Link struct {
	Latency units.Duration `yaml:"latency"` // one way
	Jitter  units.Duration `yaml:"jitter"`  // uniform ± around latency; order is kept
	Rate    units.ByteRate `yaml:"rate"`    // 0: no rate limit (and no queue)
	Queue   Queue          `yaml:"queue"`   // drop-tail, in front of the rate; default 1000 packets
	Loss    Percent        `yaml:"loss"`    // random loss, before the queue
}

// Override is a direction's own values; unset fields keep the wire's.
type Override struct {
	Latency *units.Duration `yaml:"latency"`
	Jitter  *units.Duration `yaml:"jitter"`
	Rate    *units.ByteRate `yaml:"rate"`
	Queue   *Queue          `yaml:"queue"`
	Loss    *Percent        `yaml:"loss"`
}

// DefaultQueuePackets is netem's and pfifo's default limit.
const DefaultQueuePackets = 1000

// DefaultMTU is an Ethernet path's.
const DefaultMTU = 1500

// UnmarshalYAML decodes strictly: an unknown key names its line.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	type plain Config
	var v plain
	if err := strictyaml.Decode(n, &v); err != nil {
		return err
	}
	out := Config(v)
	if err := out.Validate(); err != nil {
		return &strictyaml.Error{Line: n.Line, Msg: "wire: " + err.Error()}
	}
	*c = out
	return nil
}

// Validate checks the values a decoder cannot.
func (c Config) Validate() error {
	if c.MTU != 0 && (c.MTU < 576 || c.MTU > 65535) {
		return fmt.Errorf("mtu %d: want 576 to 65535", c.MTU)
	}
	for _, d := range []struct {
		name string
		l    Link
	}{{"up", c.UpLink()}, {"down", c.DownLink()}} {
		if d.l.Jitter > d.l.Latency {
			return fmt.Errorf("%s: jitter %v exceeds latency %v (a packet cannot leave before it arrived)", d.name, d.l.Jitter, d.l.Latency)
		}
		if !d.l.Queue.IsZero() && d.l.Rate == 0 {
			return fmt.Errorf("%s: queue %v without a rate: the queue is in front of the rate limit", d.name, d.l.Queue)
		}
	}
	return nil
}

// UpLink is the generator → server direction.
func (c Config) UpLink() Link { return c.Up.apply(c.Link) }

// DownLink is the server → generator direction.
func (c Config) DownLink() Link { return c.Down.apply(c.Link) }

// MTUOrDefault is the TUN devices' MTU.
func (c Config) MTUOrDefault() int {
	if c.MTU == 0 {
		return DefaultMTU
	}
	return c.MTU
}

func (o Override) apply(l Link) Link {
	if o.Latency != nil {
		l.Latency = *o.Latency
	}
	if o.Jitter != nil {
		l.Jitter = *o.Jitter
	}
	if o.Rate != nil {
		l.Rate = *o.Rate
	}
	if o.Queue != nil {
		l.Queue = *o.Queue
	}
	if o.Loss != nil {
		l.Loss = *o.Loss
	}
	return l
}

// String is the wire in the YAML's words, for summaries.
func (c Config) String() string {
	up, down := c.UpLink(), c.DownLink()
	s := up.String()
	if up != down {
		s = "up " + up.String() + "; down " + down.String()
	}
	if c.NoLatencyHold {
		s += "; noLatencyHold"
	}
	if c.NoReplyRead {
		s += "; noReplyRead"
	}
	if c.BusyPoll {
		s += "; busyPoll"
	}
	return s
}

func (l Link) String() string {
	parts := []string{"latency " + l.Latency.String()}
	if l.Jitter != 0 {
		parts = append(parts, "jitter "+l.Jitter.String())
	}
	if l.Rate != 0 {
		parts = append(parts, fmt.Sprintf("rate %s, queue %s", FormatBits(float64(l.Rate)*8), l.Queue.OrDefault()))
	}
	if l.Loss != 0 {
		parts = append(parts, "loss "+l.Loss.String())
	}
	return strings.Join(parts, ", ")
}

// FormatBits prints a line rate the way tc does: 10Mbit/s.
func FormatBits(bps float64) string {
	for _, u := range []struct {
		div  float64
		name string
	}{{1e9, "Gbit/s"}, {1e6, "Mbit/s"}, {1e3, "Kbit/s"}} {
		if bps >= u.div {
			return strconv.FormatFloat(bps/u.div, 'f', -1, 64) + u.name
		}
	}
	return strconv.FormatFloat(bps, 'f', -1, 64) + "bit/s"
}

// Queue is a drop-tail limit in bytes ("256KiB") or packets ("100 packets").
type Queue struct {
	Bytes   int64
	Packets int
}

// ParseQueue parses "256KiB", "1MiB", "4096" (bytes) or "100 packets", "100p".
func ParseQueue(s string) (Queue, error) {
	t := strings.TrimSpace(s)
	for _, suffix := range []string{"packets", "packet", "pkts", "p"} {
		if num, ok := strings.CutSuffix(t, suffix); ok {
			n, err := strconv.Atoi(strings.TrimSpace(num))
			if err != nil || n <= 0 {
				return Queue{}, fmt.Errorf("queue %q: want a positive number of packets such as 100 packets", s)
			}
			return Queue{Packets: n}, nil
		}
	}
	sz, err := units.ParseSize(t)
	if err != nil {
		return Queue{}, fmt.Errorf("queue %q: want a size such as 256KiB or a count such as 100 packets", s)
	}
	if sz <= 0 {
		return Queue{}, fmt.Errorf("queue %q: must be positive", s)
	}
	return Queue{Bytes: int64(sz)}, nil
}

// IsZero reports whether no queue was given.
func (q Queue) IsZero() bool { return q.Bytes == 0 && q.Packets == 0 }

// OrDefault is the queue, or DefaultQueuePackets when none was given.
func (q Queue) OrDefault() Queue {
	if q.IsZero() {
		return Queue{Packets: DefaultQueuePackets}
	}
	return q
}

func (q Queue) String() string {
	switch {
	case q.Packets > 0:
		return strconv.Itoa(q.Packets) + " packets"
	case q.Bytes > 0:
		return units.Size(q.Bytes).String()
	}
	return "default"
}

// Set implements pflag.Value.
func (q *Queue) Set(s string) error {
	v, err := ParseQueue(s)
	if err != nil {
		return err
	}
	*q = v
	return nil
}

// Type implements pflag.Value.
func (*Queue) Type() string { return "queue" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (q *Queue) UnmarshalYAML(n *yaml.Node) error { return setScalar(n, q) }

// MarshalText prints the queue as it is written.
func (q Queue) MarshalText() ([]byte, error) { return []byte(q.String()), nil }

// Percent is a probability written with its sign: "0.1%".
type Percent float64

// ParsePercent parses "1%", "0.1 %" (0 to 100).
func ParsePercent(s string) (Percent, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, fmt.Errorf("loss %q: want a percentage such as 0.1%%", s)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f < 0 || f > 100 {
		return 0, fmt.Errorf("loss %q: want 0%% to 100%%", s)
	}
	return Percent(f), nil
}

// Fraction is the probability as 0..1.
func (p Percent) Fraction() float64 { return float64(p) / 100 }

func (p Percent) String() string { return strconv.FormatFloat(float64(p), 'f', -1, 64) + "%" }

// Set implements pflag.Value.
func (p *Percent) Set(s string) error {
	v, err := ParsePercent(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Type implements pflag.Value.
func (*Percent) Type() string { return "percent" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error { return setScalar(n, p) }

// MarshalText prints the percentage as it is written.
func (p Percent) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

func setScalar(n *yaml.Node, v interface{ Set(string) error }) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a scalar")
	}
	return v.Set(n.Value)
}
