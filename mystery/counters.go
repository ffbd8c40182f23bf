package mystery

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
)

// Counters is what the path's stages and the server say they did: the
// path's stats as its admin endpoint serves them, kept as JSON objects so
// that a counter moved between the stage's named fields and its "extra"
// map reads the same.
type Counters struct {
	Boxes  []map[string]any  `json:"boxes"`
	Server timing.ServerView `json:"server"`
}

// Snapshot reads the counters of a running path and server.
func Snapshot(p *proxy.Path, server timing.ServerView) (*Counters, error) {
	b, err := json.Marshal(p.Stats())
	if err != nil {
		return nil, fmt.Errorf("mystery: path stats: %w", err)
	}
	var c Counters
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("mystery: path stats: %w", err)
	}
	c.Server = server
	return &c, nil
}

func (c *Counters) box(name string) map[string]any {
	for _, b := range c.Boxes {
		if b["name"] == name {
			return b
		}
	}
	return nil
}

// stage returns the first stage of kind in box name (nil when absent).
func (c *Counters) stage(box, kind string) map[string]any {
	b := c.box(box)
	if b == nil {
		return nil
	}
	list, _ := b["stages"].([]any)
	for _, s := range list {
		if m, ok := s.(map[string]any); ok && m["kind"] == kind {
			return m
		}
	}
	return nil
}

// num reads a counter of a stage or box: a top-level field, else one of
// its "extra" map.
func num(m map[string]any, name string) float64 {
	if m == nil {
		return 0
	}
	if v, ok := m[name].(float64); ok {
		return v
	}
	if x, ok := m["extra"].(map[string]any); ok {
		if v, ok := x[name].(float64); ok {
			return v
		}
	}
	return 0
}

// stat reads one statistic (avg, count, max …) of a stage's timing
// ("delay", "queued"), in ms.
func stat(m map[string]any, timing, name string) float64 {
	if t, ok := m[timing].(map[string]any); ok {
		if v, ok := t[name].(float64); ok {
			return v
		}
	}
	return 0
}

// rejected reads how many requests a stage answered with status.
func rejected(m map[string]any, status int) float64 {
	if r, ok := m["rejected"].(map[string]any); ok {
		if v, ok := r[strconv.Itoa(status)].(float64); ok {
			return v
		}
	}
	return 0
}

// Requests is how many requests reached the edge: what the students sent,
// whatever happened to them after. An edge with no HTTP stage forwards
// bytes and counts none: then every request reached the server.
func (c *Counters) Requests() float64 {
	if n := num(c.box(whereEdge), "requests"); n > 0 {
		return n
	}
	return float64(c.Server.Requests)
}

// Connections is how many connections the path accepted.
func (c *Counters) Connections() float64 { return num(c.box(whereNet), "connectionsAccepted") }

// OpenConnections is how many are still open (a byte cap counts a
// connection's waits when it closes).
func (c *Counters) OpenConnections() float64 { return num(c.box(whereNet), "connectionsActive") }
