// Package mystery draws a path's faults from a catalogue with a seed, so
// that a class can practise the article's method: run a load, read the
// phases beside the server's own time, name the cause, and be told — from
// the stages' own counters — whether they were right.
//
// The same seed, level and class key give the same mystery on every
// machine: the draw uses a PCG generator seeded from them (the key through
// an HMAC, secret.go), indexes fixed lists, and never ranges over a map or
// reads the time. Without a key (a practice mystery) the seed alone draws
// it. Every answer is kept, one file each (answers.go); every mystery's
// edge keeps a load budget of its own, reported apart from the puzzle
// (budget.go).
package mystery

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy"
)

// Level is how hard a mystery is.
type Level string

// Levels.
const (
	LevelOne   Level = "one"   // one cause
	LevelTwo   Level = "two"   // two causes
	LevelDecoy Level = "decoy" // one cause and a device that looks like one but does nothing worth naming
)

// levels lists them, easiest first.
var levels = [...]Level{LevelOne, LevelTwo, LevelDecoy}

// Levels lists the levels, easiest first.
func Levels() []Level { return slices.Clone(levels[:]) }

// ErrLevel is returned for a level that is not one of Levels.
var ErrLevel = errors.New("level: want one, two or decoy")

// ParseLevel reads a level's name.
func ParseLevel(s string) (Level, error) {
	l := Level(strings.TrimSpace(s))
	if l == "" {
		return LevelOne, nil
	}
	if !slices.Contains(levels[:], l) {
		return "", fmt.Errorf("%w (got %q)", ErrLevel, s)
	}
	return l, nil
}

// salt keeps one seed's levels apart (level one of seed 7 is not the
// first cause of level two of seed 7).
func (l Level) salt() uint64 {
	return uint64(slices.Index(levels[:], l)+1) * 0x9E3779B97F4A7C15
}

// The path every mystery has, whatever was drawn: a bytes box ("net") in
// front of a box that terminates TLS and parses HTTP ("edge"), in front of
// a fake server doing baseWork per request and answering baseSize. A
// student cannot tell from the shape which devices act.
const (
	baseWorkMs = 20
	baseSize   = 16 << 10
)

// Part is one drawn cause (or decoy) of a mystery.
type Part struct {
	Cause string   `json:"cause"`
	Decoy bool     `json:"decoy,omitempty"`
	What  string   `json:"what"`
	Where string   `json:"where"`           // net, edge or server
	Stage string   `json:"stage,omitempty"` // the stage, in the proxy's shorthand
	Kind  string   `json:"kind,omitempty"`
	Rule  int      `json:"rule"`
	Codes []string `json:"codes"` // findings that name it
	// DrawnMs is the delay or work drawn (0 for a rate or a count).
	DrawnMs float64 `json:"drawnMs,omitempty"`
	d       drawn
}

// Mystery is a drawn exercise: the server's configuration and the path.
type Mystery struct {
	Seed   uint64
	Level  Level
	ID     string // what students call it: a practice mystery's seed and level, else a keyed hash
	Keyed  bool   // drawn with a class key: revealing it needs the key
	Parts  []Part
	Server fakeserver.Config
	Path   proxy.PathConfig
}

// Draw draws the practice mystery of seed at level: from the seed alone,
// so anyone who knows the seed can draw it (self-study, the README's
// examples). A class uses DrawKeyed.
func Draw(seed uint64, level Level) (*Mystery, error) {
	return DrawKeyed(seed, level, "")
}

// DrawKeyed draws the mystery of seed at level under a class key: the
// generator's state mixes an HMAC of the seed and level under the key, so
// without the key the seed says nothing about the devices. key "" is the
// practice draw.
func DrawKeyed(seed uint64, level Level, key ClassKey) (*Mystery, error) {
	if !slices.Contains(levels[:], level) {
		return nil, fmt.Errorf("%w (got %q)", ErrLevel, level)
	}
	a, b := seed, level.salt()
	if key != "" {
		x, y := key.drawSeeds(seed, level)
		a, b = a^x, b^y
	}
	r := rand.New(rand.NewPCG(a, b))
	m := &Mystery{Seed: seed, Level: level, ID: MysteryID(seed, level, key), Keyed: key != ""}
	first := drawCause(r, nil, func(c *cause) bool { return level == LevelOne || !slices.Contains(c.excludes, "*") })
	m.Parts = append(m.Parts, partOf(first, first.real(r), false))
	switch level {
	case LevelTwo:
		second := drawCause(r, first, func(c *cause) bool { return true })
		m.Parts = append(m.Parts, partOf(second, second.real(r), false))
	case LevelDecoy:
		decoy := drawCause(r, first, func(c *cause) bool { return c.decoy != nil })
		m.Parts = append(m.Parts, partOf(decoy, decoy.decoy(r), true))
	}
	if err := m.build(); err != nil {
		return nil, err
	}
	if key != "" { // the path's own draws (which requests a fault holds) follow the key too
		x, _ := key.drawSeeds(seed, level)
		m.Path.Seed ^= x
		m.Server.Seed ^= x
	}
	return m, nil
}

// drawCause draws a catalogue row that ok accepts and that can share a
// mystery with other (nil: none yet).
func drawCause(r *rand.Rand, other *cause, ok func(*cause) bool) *cause {
	var fit []*cause
	for i := range catalogue {
		c := &catalogue[i]
		if !ok(c) || other != nil && !compatible(c, other) {
			continue
		}
		fit = append(fit, c)
	}
	return fit[r.IntN(len(fit))]
}

func compatible(a, b *cause) bool {
	if a.id == b.id {
		return false
	}
	for _, x := range [][2]*cause{{a, b}, {b, a}} {
		if slices.Contains(x[0].excludes, "*") || slices.Contains(x[0].excludes, x[1].id) {
			return false
		}
	}
	return true
}

func partOf(c *cause, d drawn, decoy bool) Part {
	return Part{Cause: c.id, Decoy: decoy, What: d.what, Where: c.where, Stage: d.stage, Kind: c.kind,
		Rule: c.rule, Codes: slices.Clone(c.codes), DrawnMs: d.ms, d: d}
}

// edgeOrder and netOrder are the stages' places in their box, nearest the
// client first.
var (
	netOrder  = []string{"accept", "budget", "link", "bandwidth"}
	edgeOrder = []string{"tls", "budget", "uablock", "ratelimit", "waf", "fault"}
)

// build turns the parts into the server's config and the path.
func (m *Mystery) build() error {
	m.Server = fakeserver.Config{Listen: "127.0.0.1:0", Work: fixedDist(baseWorkMs), Size: units.Size(baseSize), Seed: m.Seed}
	// kind → shorthand; the edge always terminates TLS; both boxes keep
	// the exercise's load budget (budget.go), on connections and requests
	stages := map[string]string{"tls": "tls"}
	budgets := map[string]string{whereNet: budgetConnStage(), whereEdge: budgetStage()}
	for _, p := range m.Parts {
		if p.d.server != nil {
			p.d.server(&m.Server)
		}
		if p.Stage != "" {
			stages[p.Kind] = p.Stage
		}
	}
	box := func(name string, order []string) (proxy.BoxConfig, error) {
		b := proxy.BoxConfig{Name: name, Listen: "127.0.0.1:0"}
		for _, kind := range order {
			s, ok := stages[kind]
			if kind == "budget" {
				s, ok = budgets[name], true
			}
			if !ok {
				continue
			}
			sc, err := proxy.ParseStage(s)
			if err != nil {
				return b, fmt.Errorf("mystery: stage %q: %w", s, err)
			}
			b.Stages = append(b.Stages, sc)
		}
		return b, nil
	}
	net, err := box(whereNet, netOrder)
	if err != nil {
		return err
	}
	edge, err := box(whereEdge, edgeOrder)
	if err != nil {
		return err
	}
	m.Path = proxy.PathConfig{Seed: m.Seed, Boxes: []proxy.BoxConfig{net, edge}}
	return nil
}

// Real returns the parts that are causes (not decoys).
func (m *Mystery) Real() []Part {
	var out []Part
	for _, p := range m.Parts {
		if !p.Decoy {
			out = append(out, p)
		}
	}
	return out
}
