package proxy

import "fmt"

// layout is a box's stages compiled and sorted by what they work on, with
// the abilities the box needs from them found once.
type layout struct {
	stages    []Stage
	listeners []ListenerStage // in path order
	conns     []ConnStage     // in path order: stage 1 wraps the socket
	https     []HTTPStage     // in path order: stage 1 sees the request first
	certs     CertOwner       // nil: the box does not terminate TLS
	backlog   int             // listen(2) backlog (0: the system's default)
}

// compileStages compiles a box's stages and checks their order: listener
// stages, then connection stages, then HTTP stages (a box parses HTTP after
// its connection stages); each ability at most once; a FixedFirst stage
// first. Validation and the box's start both call it.
func compileStages(cfg []StageConfig) (*layout, error) {
	l := &layout{}
	firstHTTP, firstConn := 0, 0
	owner := map[string]int{} // ability → the stage that has it
	for i, sc := range cfg {
		n := i + 1
		if sc.Spec == nil {
			return nil, errField("stages", "stage %d has no configuration", n)
		}
		kind := sc.Spec.Kind()
		st, err := sc.Spec.compile()
		if err != nil {
			return nil, fmt.Errorf("stage %d (%s): %w", n, kind, err)
		}
		l.stages = append(l.stages, st)
		for _, a := range abilities(st) {
			if prev, dup := owner[a]; dup {
				if k := cfg[prev-1].Spec.Kind(); k != kind {
					return nil, errField("stages", "stage %d (%s) and stage %d (%s) both %s: a box has one", n, kind, prev, k, a)
				}
				return nil, errField("stages", "stage %d: a box has at most one %s stage (stage %d is one)", n, kind, prev)
			}
			owner[a] = n
		}
		if c, ok := st.(CertOwner); ok {
			l.certs = c
		}
		if b, ok := st.(BacklogSetter); ok {
			l.backlog = b.Backlog()
		}
		if f, ok := st.(FixedFirst); ok && n > 1 {
			return nil, errField("stages", "the %s stage %s and must be stage 1 (it is stage %d)", kind, f.FirstBecause(), n)
		}
		switch s := st.(type) {
		case HTTPStage:
			l.https = append(l.https, s)
			if firstHTTP == 0 {
				firstHTTP = n
			}
			continue
		case ListenerStage:
			l.listeners = append(l.listeners, s)
			if firstConn != 0 {
				return nil, errField("stages", "stage %d (%s) works on the listener and must come before the connection stages (stage %d, %s)",
					n, kind, firstConn, cfg[firstConn-1].Spec.Kind())
			}
		case ConnStage:
			l.conns = append(l.conns, s)
			if firstConn == 0 {
				firstConn = n
			}
		default:
			return nil, fmt.Errorf("stage %d (%s) works on neither connections nor requests", n, kind)
		}
		if firstHTTP != 0 {
			return nil, errField("stages", "stage %d (%s) works on connections and must come before the HTTP stages (stage %d, %s): a box parses HTTP after its connection stages",
				n, kind, firstHTTP, cfg[firstHTTP-1].Spec.Kind())
		}
	}
	return l, nil
}

// abilities names what a stage does for its whole box; a box has one stage
// of each at most.
func abilities(st Stage) []string {
	var out []string
	if _, ok := st.(CertOwner); ok {
		out = append(out, "own the listener's certificates")
	}
	if _, ok := st.(BacklogSetter); ok {
		out = append(out, "set the listen backlog")
	}
	if _, ok := st.(FixedFirst); ok {
		out = append(out, "must be stage 1")
	}
	return out
}
