package diagnose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/middlebench/middlebench/strictyaml"
	"gopkg.in/yaml.v3"
)

// Case is one run with the codes its setup implies, for regression-testing
// the classifications: a folder holding the run in one or more k6 formats
// and a case.yaml. The codes come from what was configured (the path's
// toxics, the limiter's rate, the server's work), never from the
// analyzer's output.
//
//	setup: toxiproxy latency 200ms ± 50ms downstream, nginx in front; k6 constant-vus 10 for 10s
//	executor: constant-vus        # what the user would pass to analyze
//	server_stats: server-stats.json.gz
//	must: [path-latency]
//	may: [hidden-connection-cost]
//	mustNot: [server-slow, healthy]
//	formats:                      # per format, where a file cannot carry the evidence
//	  k6-summary-export: {may: [rate-limited]}
type Case struct {
	Setup       string              `yaml:"setup"`
	Executor    string              `yaml:"executor"`
	ServerStats string              `yaml:"server_stats"`
	CPU         float64             `yaml:"generator_cpu"`
	Files       []string            `yaml:"files"` // the k6 files (default: every file but case.yaml, README* and the server stats)
	Codes       CodeSet             `yaml:",inline"`
	Formats     map[Format]*CodeSet `yaml:"formats"`
}

// CodeSet is what a run must name, may name, and must not name.
type CodeSet struct {
	Must    []string `yaml:"must"`
	May     []string `yaml:"may"`
	MustNot []string `yaml:"mustNot"`
}

// LoadCase reads a case.yaml strictly: an unknown field or code is an
// error with its line.
func LoadCase(path string) (*Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &Case{}
	if err := strictyaml.Decode(&root, c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sets := []*CodeSet{&c.Codes}
	for _, s := range c.Formats {
		sets = append(sets, s)
	}
	for _, s := range sets {
		for _, code := range append(append(append([]string{}, s.Must...), s.May...), s.MustNot...) {
			if !knownCode(code) {
				return nil, fmt.Errorf("%s: unknown code %q (known: %s)", path, code, strings.Join(Codes(), ", "))
			}
		}
	}
	return c, nil
}

// For returns the codes expected from a file of format f: the case's,
// with the format's own lists replacing them where given.
func (c *Case) For(f Format) CodeSet {
	s := c.Codes
	if o := c.Formats[f]; o != nil {
		if o.Must != nil {
			s.Must = o.Must
		}
		if o.May != nil {
			s.May = append(append([]string{}, s.May...), o.May...)
			s.Must = without(s.Must, o.May)
			s.MustNot = without(s.MustNot, o.May)
		}
		if o.MustNot != nil {
			s.MustNot = o.MustNot
		}
	}
	return s
}

func without(list, drop []string) []string {
	var out []string
	for _, x := range list {
		keep := true
		for _, d := range drop {
			keep = keep && x != d
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

// Observations reads the case's files in dir, each with the case's extra
// knowledge applied (the server's stats, the executor, the CPU).
func (c *Case) Observations(ctx context.Context, dir string) ([]*Observation, error) {
	x := Extra{Executor: c.Executor, CPU: c.CPU}
	if c.ServerStats != "" {
		s, err := ReadServerStats(filepath.Join(dir, c.ServerStats))
		if err != nil {
			return nil, err
		}
		x.Server = s
	}
	files := c.Files
	if len(files) == 0 {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || n == "case.yaml" || n == c.ServerStats || strings.HasPrefix(n, "README") ||
				strings.HasPrefix(n, "server-stats") || strings.HasPrefix(n, "path-stats") ||
				strings.HasSuffix(n, ".js") || strings.HasSuffix(n, ".conf") || strings.HasSuffix(n, ".txt") && !strings.Contains(n, "summary") {
				continue
			}
			files = append(files, n)
		}
	}
	rd := Reader{Open: x.model() == ModelOpen}
	var out []*Observation
	for _, n := range files {
		o, err := rd.ReadFile(ctx, filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		o.Apply(x)
		out = append(out, o)
	}
	return out, nil
}

func knownCode(code string) bool {
	for _, c := range Codes() {
		if c == code {
			return true
		}
	}
	return false
}

