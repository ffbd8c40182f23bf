package proxy

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/clock"
)

// ConnStage is a connection-level stage: it wraps the box's listener (and
// through it every accepted connection).
type ConnStage interface {
	WrapListener(net.Listener) net.Listener
}

// HTTPStage is a request-level stage: middleware around the next handler.
type HTTPStage interface {
	Wrap(http.Handler) http.Handler
}

// Stage is what every stage reports.
type Stage interface {
	Stats() StageStats
}

// StageSpec is the typed configuration of one stage kind (*WAFConfig,
// *TLSConfig, …): what a YAML stage decodes into, and what the harness may
// build directly.
type StageSpec interface {
	// Kind is the stage's YAML kind.
	Kind() string
	// validate checks the fields; errors are *fieldError naming the field.
	validate() error
	// build validates the configuration and makes the stage; the result
	// implements Stage and ConnStage or HTTPStage.
	build(env *stageEnv) (Stage, error)
}

// kinds maps each YAML kind to a constructor of its empty spec. Adding a
// stage adds one line here and one file.
var kinds = map[string]func() StageSpec{
	"tls":       func() StageSpec { return &TLSConfig{} },
	"accept":    func() StageSpec { return &AcceptConfig{} },
	"link":      func() StageSpec { return &LinkConfig{} },
	"bandwidth": func() StageSpec { return &BandwidthConfig{} },
	"waf":       func() StageSpec { return &WAFConfig{} },
	"ratelimit": func() StageSpec { return &RateLimitConfig{} },
	"uablock":   func() StageSpec { return &UABlockConfig{} },
	"fault":     func() StageSpec { return &FaultConfig{} },
}

// Kinds returns the valid stage kinds, sorted.
func Kinds() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func newSpec(kind string) (StageSpec, error) {
	mk, ok := kinds[kind]
	if !ok {
		return nil, fmt.Errorf("unknown stage kind %q; valid kinds: %s", kind, strings.Join(Kinds(), ", "))
	}
	return mk(), nil
}

// stageEnv is what a stage gets from its box.
type stageEnv struct {
	box    string
	index  int // 1-based position in the box
	clock  clock.Clock
	seed   uint64 // this stage's seed, derived from the path's
	ledger *ledger
	c      *counters
}

// rng returns a generator for one connection or request: a PCG seeded with
// the stage's seed and the id, so that the same run (same arrival order)
// draws the same numbers without a lock shared by concurrent requests.
type randSource = *rand.Rand

func (e *stageEnv) rng(id uint64) *rand.Rand {
	return rand.New(rand.NewPCG(e.seed, id))
}

// record writes a ledger entry stamped with the stage's place.
func (e *stageEnv) record(en LedgerEntry) {
	en.Box, en.Stage, en.Index = e.box, e.c.kind, e.index
	if en.Time.IsZero() {
		en.Time = e.clock.Now()
	}
	e.ledger.add(en)
}

// stageSeed derives a stage's seed from the path seed and its place, so
// adding a box does not change the draws of the others.
func stageSeed(seed uint64, box string, index int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d", seed, box, index)
	return h.Sum64()
}

// fieldError is a validation error about one field of a stage's config;
// the decoder adds the line of that field.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func errField(field, format string, a ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, a...)}
}
