package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/proxy"
	"gopkg.in/yaml.v3"
)

// Experiment is one experiment file: what the article claims, the server
// and the path, the runs, and what each run must show. Files live in
// experiments/ and are written for a teacher to read.
type Experiment struct {
	ID      string            `yaml:"id"`      // short and stable: e1, s003
	Title   string            `yaml:"title"`   // one line
	Claim   string            `yaml:"claim"`   // the article's claim, one sentence
	Differs string            `yaml:"differs"` // why our figures differ from the article's, one or two sentences
	Vars    map[string]string `yaml:"vars"`    // ${name} anywhere below is replaced by its value
	Quick   map[string]string `yaml:"quick"`   // vars to use instead with --quick
	Isolate *Isolation        `yaml:"isolate"` // run server and path in a child process, pinned apart
	Server  fakeserver.Config `yaml:"server"`
	Path    *proxy.PathConfig `yaml:"path"` // the path every run goes through unless it says otherwise
	Runs    []RunSpec         `yaml:"runs"`
	Article []Figure          `yaml:"article"` // the article's figures, for the side-by-side table
	Charts  []ChartSpec       `yaml:"charts"`

	File string `yaml:"-"` // where it was read from
}

// RunSpec is one run: a load against the server, through the path or not.
type RunSpec struct {
	Name   string             `yaml:"name"`
	Direct bool               `yaml:"direct"` // straight at the server (rule 11's baseline)
	Path   *proxy.PathConfig  `yaml:"path"`   // instead of the experiment's path
	Server *fakeserver.Config `yaml:"server"` // instead of the experiment's server
	Load   load.Config        `yaml:"load"`   // url may be relative: it is resolved against the path's entry
	Expect Expect             `yaml:"expect"`
	// Generators > 1 runs the load as that many child processes, each
	// segment i of as many even execution segments and pinned to its own
	// CPU (the i-th, round the CPUs), their documents merged exactly: the
	// fix for a saturated generator (E7). 0 or 1: one generator, this process.
	Generators int `yaml:"generators"`
}

// Isolation keeps the generator from stealing the server's CPU (E7): the
// server and the path run in a child process of the same binary, each side
// pinned to its own CPUs where the OS allows.
type Isolation struct {
	GeneratorCPUs []int `yaml:"generatorCPUs"` // default: the first half of the CPUs
	ServerCPUs    []int `yaml:"serverCPUs"`    // default: the rest
	// ServerProcs sets the serving process's GOMAXPROCS. Above its CPUs it
	// makes CPU-bound handlers share them the way a thread-per-request
	// server's threads do, sliced by the OS, instead of queueing in Go's
	// run queue before the handler's clock starts.
	ServerProcs int `yaml:"serverProcs"`
}

// Split gives the generator and the server their CPUs: as configured, or
// the first half and the rest.
func (iso *Isolation) Split(all []int) (gen, srv []int) {
	if len(iso.GeneratorCPUs) > 0 && len(iso.ServerCPUs) > 0 {
		return iso.GeneratorCPUs, iso.ServerCPUs
	}
	if len(all) < 2 {
		return nil, nil
	}
	half := len(all) / 2
	return all[:half], all[half:]
}

// Figure is one number of the article next to ours.
type Figure struct {
	Label   string `yaml:"label"`   // what it is, e.g. "blocked avg, delay + new connections"
	Article string `yaml:"article"` // as the article reports it: "316 ms"
	Run     string `yaml:"run"`     // which run of ours measures it
	Metric  string `yaml:"metric"`  // a metric reference (see bench/record/lookup.go), e.g. "http_req_blocked avg", or arithmetic over @{references}
	Unit    string `yaml:"unit"`    // how to print ours: ms (default for times), /s, %, count
}

// ChartSpec asks for one figure in RESULTS.md.
type ChartSpec struct {
	Kind  string   `yaml:"kind"`  // phases | sweep
	Title string   `yaml:"title"` // default: the experiment's title
	Runs  []string `yaml:"runs"`  // phases: which runs (default all); sweep: runs whose steps are drawn
	X     string   `yaml:"x"`     // sweep: vus | rate
	Lines []string `yaml:"lines"` // sweep: series (see bench/report/charts.go), e.g. ["tps", "http_req_receiving avg"]
	Panel []string `yaml:"panel"` // sweep: a second panel's series
	LogY  bool     `yaml:"logY"`
	LogX  bool     `yaml:"logX"` // doubling steps: 1, 2, 4, … VUs
	// Refs are dashed reference lines: what was configured, the article's figure.
	Refs []ChartRef `yaml:"refs"`
}

// ChartRef is one reference line of a chart: a phases chart's on its ms
// axis, a sweep's across the panel it names.
type ChartRef struct {
	Label string `yaml:"label"` // in the legend: "the cap: 10 MiB/s ÷ 256 KiB"
	Value string `yaml:"value"` // an expression as in bands: "${inspect} + ${work}", "${cap_kib} / ${size_kib}"
	Panel string `yaml:"panel"` // sweep: lines (default) or panel
}

// Chart kinds.
const (
	ChartPhases = "phases"
	ChartSweep  = "sweep"
)

// maxGenerators bounds a run's generator processes.
const maxGenerators = 64

// ErrSpec is wrapped by every experiment file error.
var ErrSpec = errors.New("experiment")

// Load reads an experiment file. With quick, vars come from its
// quick block where it has one. Errors name the file and the line.
func Load(file string, quick bool) (*Experiment, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	e, err := Parse(src, quick)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	e.File = file
	if e.ID == "" {
		e.ID = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	return e, nil
}

// Parse decodes an experiment strictly: an unknown key is an
// error naming its line and the valid keys.
func Parse(src []byte, quick bool) (*Experiment, error) {
	expanded, err := expandVars(src, quick)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(expanded, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrSpec)
	}
	var e Experiment
	if err := strictyaml.Decode(&doc, &e); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	return &e, nil
}

func (e *Experiment) validate() error {
	if e.Title == "" {
		return fmt.Errorf("title is required")
	}
	if len(e.Runs) == 0 {
		return fmt.Errorf("runs: at least one run is required")
	}
	if err := e.Server.Validate(); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	names := map[string]bool{}
	for i := range e.Runs {
		r := &e.Runs[i]
		where := fmt.Sprintf("runs[%d]", i)
		if r.Name == "" {
			return fmt.Errorf("%s: name is required", where)
		}
		where = fmt.Sprintf("run %q", r.Name)
		if names[r.Name] {
			return fmt.Errorf("%s: two runs have this name", where)
		}
		names[r.Name] = true
		if r.Direct && r.Path != nil {
			return fmt.Errorf("%s: direct and path are alternatives", where)
		}
		if r.Server != nil {
			if err := r.Server.Validate(); err != nil {
				return fmt.Errorf("%s: server: %w", where, err)
			}
		}
		if r.Generators < 0 || r.Generators > maxGenerators {
			return fmt.Errorf("%s: generators %d: want 1 to %d processes", where, r.Generators, maxGenerators)
		}
		if r.Generators > 1 && (r.Load.ExecutionSegment != "" || r.Load.ExecutionSegmentSequence != "") {
			return fmt.Errorf("%s: generators %d: the generators are the segments; give no executionSegment", where, r.Generators)
		}
		if r.Load.URL == "" && len(r.Load.Requests) == 0 {
			r.Load.URL = "/"
		}
		for _, b := range r.Expect.Bands {
			if err := b.Validate(); err != nil {
				return fmt.Errorf("%s: expect: %w", where, err)
			}
			if b.Near != "" && !slices.ContainsFunc(e.Runs, func(o RunSpec) bool { return o.Name == b.Near }) {
				return fmt.Errorf("%s: expect: band on %s: near %q is not a run of this experiment", where, b.Metric, b.Near)
			}
		}
	}
	for i, f := range e.Article {
		if f.Run != "" && !names[f.Run] {
			return fmt.Errorf("article[%d] (%s): run %q is not a run of this experiment", i, f.Label, f.Run)
		}
		if f.Run != "" && f.Metric == "" {
			return fmt.Errorf("article[%d] (%s): a figure with a run needs the metric that measures it", i, f.Label)
		}
	}
	for i, c := range e.Charts {
		if c.Kind != ChartPhases && c.Kind != ChartSweep {
			return fmt.Errorf("charts[%d]: kind %q: want %s or %s", i, c.Kind, ChartPhases, ChartSweep)
		}
		for _, r := range c.Runs {
			if !names[r] {
				return fmt.Errorf("charts[%d]: run %q is not a run of this experiment", i, r)
			}
		}
		if c.Kind == ChartSweep && (c.X != "vus" && c.X != "rate" || len(c.Lines) == 0) {
			return fmt.Errorf("charts[%d]: a sweep chart needs x (vus or rate) and lines", i)
		}
		for j, r := range c.Refs {
			if r.Label == "" {
				return fmt.Errorf("charts[%d].refs[%d]: a reference line needs a label", i, j)
			}
			if _, err := EvalExpr(r.Value); err != nil {
				return fmt.Errorf("charts[%d].refs[%d] (%s): %v", i, j, r.Label, err)
			}
			switch {
			case r.Panel != "" && c.Kind == ChartPhases:
				return fmt.Errorf("charts[%d].refs[%d] (%s): panel is for sweep charts", i, j, r.Label)
			case r.Panel != "" && r.Panel != "lines" && r.Panel != "panel", r.Panel == "panel" && len(c.Panel) == 0:
				return fmt.Errorf("charts[%d].refs[%d] (%s): panel %q: want lines or panel (a panel the chart has)", i, j, r.Label, r.Panel)
			}
		}
	}
	return nil
}

// PathFor is the path a run goes through, or nil for straight at the server.
func (e *Experiment) PathFor(r *RunSpec) *proxy.PathConfig {
	switch {
	case r.Direct:
		return nil
	case r.Path != nil:
		return r.Path
	}
	return e.Path
}

// ServerFor is the server a run is served by.
func (e *Experiment) ServerFor(r *RunSpec) fakeserver.Config {
	if r.Server != nil {
		return *r.Server
	}
	return e.Server
}

// RunNamed returns the run with that name.
func (e *Experiment) RunNamed(name string) (*RunSpec, error) {
	for i := range e.Runs {
		if e.Runs[i].Name == name {
			return &e.Runs[i], nil
		}
	}
	var names []string
	for _, r := range e.Runs {
		names = append(names, fmt.Sprintf("%q", r.Name))
	}
	return nil, fmt.Errorf("%s has no run %q (runs: %s)", e.ID, name, strings.Join(names, ", "))
}
