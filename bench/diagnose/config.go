package diagnose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/units"
	"gopkg.in/yaml.v3"
)

// Config holds every rule's thresholds. They are relative where the
// article's reasoning is relative (a share of waiting, a growth across
// steps) and absolute only as a floor against noise. DefaultConfig gives
// the defaults; a YAML file overrides any of them (ParseConfig).
type Config struct {
	// Floor: no time below it is "high", whatever its share (default 20ms).
	Floor units.Duration `yaml:"floor"`
	// MinRequests: a step with fewer requests is not judged on its own.
	MinRequests int64 `yaml:"min_requests"`
	// Evidence: what counts as a figure the file cannot hold.
	Evidence EvidenceConfig `yaml:"evidence"`
	// Material: the least a cause of time must explain to be named.
	Material MaterialConfig `yaml:"materiality"`

	ServerSlow  ServerSlowConfig  `yaml:"server_slow"`
	PathLatency PathLatencyConfig `yaml:"path_latency"`
	TLS         TLSConfig         `yaml:"tls_handshake_slow"`
	Connect     ConnectConfig     `yaml:"connect_slow"`
	ConnWait    ShareConfig       `yaml:"connection_wait"`
	Hidden      ShareConfig       `yaml:"hidden_connection_cost"`
	Upload      UploadConfig      `yaml:"upload_limited"`
	Download    DownloadConfig    `yaml:"download_limited"`
	RateLimited RateLimitedConfig `yaml:"rate_limited"`
	ToolBlocked ToolBlockedConfig `yaml:"tool_blocked"`
	Generator   GeneratorConfig   `yaml:"generator_saturated"`
	Backlog     BacklogConfig     `yaml:"closed_model_backlog"`
	Ceiling     CeilingConfig     `yaml:"throughput_ceiling"`
	Upstream    UpstreamConfig    `yaml:"upstream_failing"`
	Accept      AcceptConfig      `yaml:"accept_queue"`
	ConnTails   ConnTailsConfig   `yaml:"connection_tails"`
}

// EvidenceConfig: the sanity checks before any rule.
type EvidenceConfig struct {
	// ClockNoise and ClockNoiseShare: the server's time may exceed the
	// client's waiting by the larger of these (two clocks, rounding)
	// before the figure is set aside as not these requests'.
	ClockNoise      units.Duration `yaml:"clock_noise"`
	ClockNoiseShare Ratio          `yaml:"clock_noise_share"`
	// Served: a server that counted fewer than this share of the requests
	// k6 saw answered did not answer the others, whatever Server-Timing
	// they carried.
	Served Ratio `yaml:"served"`
	// Repeat: a Server-Timing whose p95 exceeds its median by at most this
	// share of its average repeats one stored figure.
	Repeat Ratio `yaml:"repeat"`
}

// MaterialConfig: a finding that names a cause of time must explain at
// least Min and at least Share of what a request costs the user (its
// duration and its connecting): a ratio between sub-millisecond times is
// no cause.
type MaterialConfig struct {
	Min   units.Duration `yaml:"min"`
	Share Ratio          `yaml:"share"`
}

// ShareConfig is a rule with one threshold: a share (fraction).
type ShareConfig struct {
	Share Ratio `yaml:"share"`
}

// ServerSlowConfig: rule 5.
type ServerSlowConfig struct {
	Slow   units.Duration `yaml:"slow"`   // server time p95 at or above this is high
	Share  Ratio          `yaml:"share"`  // server time ≥ this share of waiting: a material share (the rest may be the path's)
	Growth Ratio          `yaml:"growth"` // or server p95 grows this much across steps
}

// PathLatencyConfig: rule 6.
type PathLatencyConfig struct {
	Share Ratio `yaml:"share"` // waiting − server time ≥ this share of waiting (and ≥ floor)
}

// TLSConfig: rule 2.
type TLSConfig struct {
	Slow         units.Duration `yaml:"slow"`          // a handshake this long is slow
	ConnectRatio Ratio          `yaml:"connect_ratio"` // and this many times the TCP connect (distance)
}

// ConnectConfig: rule 1.
type ConnectConfig struct {
	Slow units.Duration `yaml:"slow"`
}

// UploadConfig: rule 4.
type UploadConfig struct {
	Share Ratio      `yaml:"share"` // sending ≥ this share of duration
	Body  units.Size `yaml:"body"`  // or requests this large on average
}

// DownloadConfig: rule 7.
type DownloadConfig struct {
	Share   Ratio `yaml:"share"`    // receiving ≥ this share of duration
	Growth  Ratio `yaml:"growth"`   // sweep: receiving grows this much …
	Flat    Ratio `yaml:"flat"`     // … while waiting grows less than this
	LinkUse Ratio `yaml:"link_use"` // data received ≥ this share of the downlink
}

// ToolBlockedConfig: rule 9.
type ToolBlockedConfig struct {
	Failed      Ratio          `yaml:"failed"`       // at least this share failed
	ServerShare Ratio          `yaml:"server_share"` // the server saw at most this share
	Fast        units.Duration `yaml:"fast"`         // failures answered faster than this
	MinRequests int64          `yaml:"min_requests"` // fewer requests are not judged
	Blocking    Ratio          `yaml:"blocking"`     // with statuses: at least this share of the failures are 401/403/406/451
	FastServer  Ratio          `yaml:"fast_server"`  // or failures faster than this share of the server's time
}

// RateLimitedConfig: rule 8.
type RateLimitedConfig struct {
	Share Ratio `yaml:"share"` // at least this share rejected (429, a fast 503)
	// Fast: without statuses, failures faster than this share of the
	// served requests' duration are a limiter's answers (and a 503 that
	// fast is nginx's limit_req).
	Fast Ratio `yaml:"fast"`
	// Skipped: or short of the served requests by this share of the
	// server's time (rejected on a path that adds latency before the
	// limiter: the rejections pay the path, not the server).
	Skipped Ratio `yaml:"skipped"`
}

// UpstreamConfig: transport failures.
type UpstreamConfig struct {
	Share    Ratio          `yaml:"share"`    // at least this share failed without a status (or 502/504)
	Critical Ratio          `yaml:"critical"` // this share or more is critical
	Slower   units.Duration `yaml:"slower"`   // without statuses: failures slower than the answers by this are timeouts
}

// AcceptConfig: a listen backlog or an accept-rate limit.
type AcceptConfig struct {
	Share Ratio `yaml:"share"` // the time outside the server ≥ this share of waiting
	// SynRetry is the kernel's initial SYN retransmission timeout (Linux:
	// 1 s, RFC 6298): a connect that took it waited for room in a backlog.
	SynRetry units.Duration `yaml:"syn_retry"`
}

// ConnTailsConfig: when the few slow connection phases of a run are
// another cause's.
type ConnTailsConfig struct {
	// Explained: a connection phase is explained when less than this
	// share of it is left unclaimed by the causes found before.
	Explained Ratio `yaml:"explained"`
	// HostStall: a few slow dials are the host's stall when the server's
	// own time has a tail (max − median) of this share of their peak.
	HostStall Ratio `yaml:"host_stall"`
}

// GeneratorConfig: rule 10.
type GeneratorConfig struct {
	CPU        Ratio `yaml:"cpu"`         // generator CPU percent at or above this is saturated (k6: keep under 80)
	Dropped    Ratio `yaml:"dropped"`     // dropped iterations ≥ this share of the iterations asked for
	Diverge    Ratio `yaml:"diverge"`     // sweep: k6 p95 / server p95 grows this much …
	ServerFlat Ratio `yaml:"server_flat"` // … while server p95 grows less than this
	// OwnMin and OwnShare: the generator's own time (sending + receiving
	// on small bodies, or script time per iteration) is a sign when at
	// least OwnMin and OwnShare of the time outside the server.
	OwnMin   units.Duration `yaml:"own_min"`
	OwnShare Ratio          `yaml:"own_share"`
	// StallMedian: sending and receiving stall when their medians are at
	// most this share of their average.
	StallMedian Ratio `yaml:"stall_median"`
	// TailMedian: the time outside the server is in the tail when its
	// median is at most this share of its average.
	TailMedian Ratio `yaml:"tail_median"`
	// Held: iterations dropped while at least this share of the VUs
	// allocated were busy were held by latency (a queue in front of the
	// server keeps VUs waiting), not the generator's: a generator behind
	// its schedule drops them with VUs idle.
	Held Ratio `yaml:"held"`
}

// BacklogConfig: seed 003's closed-model backlog.
type BacklogConfig struct {
	Little     Ratio `yaml:"little"`      // |latency − VUs/throughput| ≤ this share (Little's law holds)
	Ratio      Ratio `yaml:"ratio"`       // latency ≥ this many times the unloaded latency
	QueueShare Ratio `yaml:"queue_share"` // with the server's time: the queue (its own, and outside it) ≥ this share of latency
	// Busy: the requests take at least this share of an iteration (else
	// think time, not the queue, sets the loop's pace).
	Busy Ratio `yaml:"busy"`
	// Min: a queue shorter than this (or the floor) is no backlog.
	Min units.Duration `yaml:"min"`
}

// CeilingConfig: seed 002's throughput ceiling.
type CeilingConfig struct {
	Reach   Ratio `yaml:"reach"`   // a step within this share of the top TPS has reached the ceiling
	Load    Ratio `yaml:"load"`    // a later step offered this much more load …
	Growth  Ratio `yaml:"growth"`  // … but TPS grew less than this …
	Latency Ratio `yaml:"latency"` // … while p95 grew at least this much
	// Absorb: with arrival-rate steps, a later step served at most this
	// share of the arrivals added since the ceiling step.
	Absorb Ratio `yaml:"absorb"`
	// Lag: or an arrival-rate step served this share less than it was
	// offered (its queue grew while it ran).
	Lag Ratio `yaml:"lag"`
	// Flat: at one rate, the server's own p95 grew less than this over the
	// run (else its work, not a queue, climbed).
	Flat Ratio `yaml:"flat"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	ms := func(n int) units.Duration { return units.Duration(time.Duration(n) * time.Millisecond) }
	return Config{
		Floor:       ms(20),
		MinRequests: 20,
		Evidence:    EvidenceConfig{ClockNoise: ms(1), ClockNoiseShare: 0.05, Served: 0.5, Repeat: 0.001},
		Material:    MaterialConfig{Min: ms(1), Share: 0.05},
		ServerSlow:  ServerSlowConfig{Slow: ms(200), Share: 0.3, Growth: 3},
		PathLatency: PathLatencyConfig{Share: 0.3},
		TLS:         TLSConfig{Slow: ms(50), ConnectRatio: 3},
		Connect:     ConnectConfig{Slow: ms(50)},
		ConnWait:    ShareConfig{Share: 0.5},
		Hidden:      ShareConfig{Share: 0.5},
		Upload:      UploadConfig{Share: 0.3, Body: 256 * units.KiB},
		Download:    DownloadConfig{Share: 0.3, Growth: 3, Flat: 1.5, LinkUse: 0.9},
		RateLimited: RateLimitedConfig{Share: 0.01, Fast: 0.25, Skipped: 0.8},
		ToolBlocked: ToolBlockedConfig{Failed: 0.95, ServerShare: 0.05, Fast: ms(10), MinRequests: 10, Blocking: 0.5, FastServer: 0.25},
		Generator: GeneratorConfig{CPU: 80, Dropped: 0.01, Diverge: 2, ServerFlat: 1.3,
			OwnMin: ms(1), OwnShare: 0.2, StallMedian: 0.05, TailMedian: 0.25, Held: 0.9},
		Backlog:   BacklogConfig{Little: 0.25, Ratio: 3, QueueShare: 0.5, Busy: 0.5, Min: ms(20)},
		Ceiling:   CeilingConfig{Reach: 0.85, Load: 1.3, Growth: 1.1, Latency: 1.5, Absorb: 0.5, Lag: 0.03, Flat: 1.3},
		Upstream:  UpstreamConfig{Share: 0.01, Critical: 0.5, Slower: units.Duration(5 * time.Millisecond)},
		Accept:    AcceptConfig{Share: 0.3, SynRetry: units.Duration(time.Second)},
		ConnTails: ConnTailsConfig{Explained: 0.5, HostStall: 0.25},
	}
}

// Ratio is a non-negative number in a YAML file (a share, a factor, a
// percentage).
type Ratio float64

// UnmarshalYAML implements yaml.Unmarshaler; errors name the line.
func (r *Ratio) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number", n.Line)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(n.Value, "%"), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("line %d: %q: want a number ≥ 0", n.Line, n.Value)
	}
	*r = Ratio(v)
	return nil
}

// LoadConfig reads a YAML rules file over the defaults.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("rules config: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads YAML over the defaults: fields left out keep their
// default; unknown fields are refused with their line and the known ones
// (strictyaml).
func ParseConfig(b []byte) (Config, error) {
	c := DefaultConfig()
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		return c, fmt.Errorf("rules config: %w", err)
	}
	if len(root.Content) == 0 {
		return c, nil
	}
	if err := strictyaml.Decode(&root, &c); err != nil {
		return c, fmt.Errorf("rules config: %w", err)
	}
	return c, nil
}
