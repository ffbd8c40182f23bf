package experiment

import (
	"fmt"

	"github.com/middlebench/middlebench/proxy"
	"github.com/middlebench/middlebench/wire"
)

// SetWire puts the wire c in front of the first box of every path the
// experiment's runs go through (middlebench run --wire), replacing any the
// YAML gives. A run straight at the server keeps no wire; an experiment
// without any path has nowhere to put one.
func (e *Experiment) SetWire(c wire.Config) error {
	set := 0
	for _, p := range append([]*proxy.PathConfig{e.Path}, runPaths(e)...) {
		if p != nil {
			p.Wire = &c
			set++
		}
	}
	if set == 0 {
		return fmt.Errorf("--wire: %s has no path: a wire sits in front of a path's first box", e.File)
	}
	return nil
}

func runPaths(e *Experiment) []*proxy.PathConfig {
	var ps []*proxy.PathConfig
	for i := range e.Runs {
		ps = append(ps, e.Runs[i].Path)
	}
	return ps
}
