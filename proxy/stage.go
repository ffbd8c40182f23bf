package proxy

import (
	"crypto/x509"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/internal/clock"
)

// Stage is one compiled stage: it embeds bound (which implements this
// interface, so that no stage can miss its environment), and implements
// ConnStage, ListenerStage or HTTPStage: what it works on.
type Stage interface {
	// setEnv gives the stage its place in the box (clock, seed, ledger and
	// the counters the box made for it) before the box serves.
	setEnv(env *stageEnv)
}

// starter is a stage with work to do once it has its environment and
// before the box serves (bandwidth's shapers run on the box's clock; tls
// loads its certificate).
type starter interface {
	start() error
}

// ConnStage is a connection-level stage: it wraps each connection the box
// accepts (returning c itself when it has nothing to do, which keeps the
// socket and splice(2)). The connection it gets is the one the stage
// before it returned: stage 1 wraps the socket.
type ConnStage interface {
	WrapConn(c net.Conn) net.Conn
}

// ListenerStage is a connection-level stage that needs the listener
// itself, because it decides when accept(2) is called.
type ListenerStage interface {
	WrapListener(net.Listener) net.Listener
}

// HTTPStage is a request-level stage: middleware around the next handler.
type HTTPStage interface {
	Wrap(http.Handler) http.Handler
}

// instantStage is an HTTP stage that can tell, without doing anything,
// that its handler will decide r at once: answer it, or pass it on,
// without waiting for anything (no delay, no queue, no body to read, no
// hijack). The HTTP loop (internal/h1loop) runs the handler chain on
// its own goroutine for a request every stage decides at once, and hands
// the connection to a goroutine of its own otherwise; a stage without
// this ability always gets the latter.
type instantStage interface {
	instant(r *http.Request) bool
}

// The abilities a stage may have towards its box, checked once when the box
// is built. A box holds at most one stage of each ability.

// CertOwner is a stage that terminates TLS: the box's clients must trust
// its certificates (CertPool), and the box speaks TLS again to an https
// next hop.
type CertOwner interface {
	CertPool() *x509.CertPool
}

// BacklogSetter is a stage that sets the listen(2) backlog of the box's
// listener (0: the system's default).
type BacklogSetter interface {
	Backlog() int
}

// FixedFirst is a stage whose place is fixed: stage 1, nearest the client.
// FirstBecause says why, for the error that refuses another place.
type FixedFirst interface {
	FirstBecause() string
}

// extraCounter is a stage with counters of its own (handshakes, resets …),
// reported under StageStats.Extra.
type extraCounter interface {
	extraCounts() map[string]int64
}

// StageSpec is the typed configuration of one stage kind (*WAFConfig,
// *TLSConfig, …): what a YAML stage decodes into, and what the harness may
// build directly.
type StageSpec interface {
	// Kind is the stage's YAML kind.
	Kind() string
	// compile checks the fields and turns them into a stage, not yet bound
	// to a box: the one step behind both validation (which drops the
	// result) and building. Errors are *fieldError naming the field.
	compile() (Stage, error)
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
	"reset":     func() StageSpec { return &ResetConfig{} },
	"slowclose": func() StageSpec { return &SlowCloseConfig{} },
	"budget":    func() StageSpec { return &BudgetConfig{} },
	"header":    func() StageSpec { return &HeaderConfig{} },
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
	c      *counters // made by the box from the stage's kind
}

// bound is embedded by every stage: its environment and counters, set by
// the box.
type bound struct {
	env *stageEnv
	c   *counters
}

func (b *bound) setEnv(env *stageEnv) { b.env, b.c = env, env.c }

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
