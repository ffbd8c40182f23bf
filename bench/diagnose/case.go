package diagnose

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"gopkg.in/yaml.v3"
)

// Case is one run with the codes its setup implies, for regression-testing
// the classifications: a folder holding the run in up to three k6 formats
// and a case.yaml (testdata/zoo/README.md). The codes come from what was
// configured (the path's toxics, the limiter's rate, the server's work),
// never from the analyzer's output.
//
//	what: toxiproxy latency 250 ms downstream before the fake server (250 ms), constant-vus 3 6 s
//	must: [server-slow, path-latency]
//	may: []
//	mustNot: [healthy]
//	formats:                      # per format, where a file cannot carry the evidence
//	  summary-export: {may: [rate-limited], why: "no status codes"}
//	analyze: {serverStats: server-stats.json, executor: constant-vus}
type Case struct {
	What    string              `yaml:"what"`
	Note    string              `yaml:"note"`
	Codes   CodeSet             `yaml:",inline"`
	Formats map[string]*CodeSet `yaml:"formats"` // summary-export, handle-summary, points, csv
	Analyze CaseOptions         `yaml:"analyze"`
	// How the run was made, for the reader (not judged).
	Setup   []string          `yaml:"setup"`
	Config  string            `yaml:"config"`
	Counter string            `yaml:"counters"` // the peers' own counters after the run (the check of what was injected)
	K6      map[string]string `yaml:"k6"`
	Date    string            `yaml:"date"`
	Machine string            `yaml:"machine"`
}

// CaseOptions is what a user would pass to analyze beside the file.
type CaseOptions struct {
	ServerStats string  `yaml:"serverStats"`
	Executor    string  `yaml:"executor"`
	CPU         float64 `yaml:"generatorCPU"`
}

// caseFormats names a format's per-format key in case.yaml.
var caseFormats = map[Format]string{
	FormatSummaryExport: "summary-export",
	FormatHandleSummary: "handle-summary",
	FormatNDJSON:        "points",
	FormatCSV:           "csv",
}

// CodeSet is what a run must name, may name, and must not name.
type CodeSet struct {
	Must    []string `yaml:"must"`
	May     []string `yaml:"may"`
	MustNot []string `yaml:"mustNot"`
	// Mention: codes the file cannot tell from the one it names; each must
	// be said, as a finding or as a finding's alternative (a summary without
	// status codes names a block or a limiter, and the other beside it).
	Mention []string `yaml:"mention"`
	Why     string   `yaml:"why"` // what this format cannot carry
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
	for k, s := range c.Formats {
		if !slices.Contains([]string{"summary-export", "handle-summary", "points", "csv"}, k) {
			return nil, fmt.Errorf("%s: formats: unknown format %q (known: summary-export, handle-summary, points, csv)", path, k)
		}
		sets = append(sets, s)
	}
	for _, s := range sets {
		for _, code := range slices.Concat(s.Must, s.May, s.MustNot, s.Mention) {
			if !knownCode(code) {
				return nil, fmt.Errorf("%s: unknown code %q (known: %s)", path, code, strings.Join(Codes(), ", "))
			}
		}
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// check refuses lists that cannot fail: a case must name at least one code
// (a control straight at the server is must: [healthy]); a case or a
// format whose file cannot separate causes may leave must empty only with
// the codes of which it must name one (may) and why (note, or the
// format's why); no code is in two lists.
func (c *Case) check() error {
	if len(c.Codes.Must) == 0 && (len(c.Codes.May) == 0 || c.Note == "") {
		return fmt.Errorf("must is empty: every case names what it must show (a control straight at the server: must: [healthy]), or the codes of which it must name one (may) and why (note)")
	}
	if err := disjoint("", c.Codes); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Formats)) {
		o := c.Formats[k]
		if o.Must != nil && len(o.Must) == 0 && (len(o.May) == 0 || o.Why == "") {
			return fmt.Errorf("formats: %s: must is empty: give the codes of which it must name one (may) and why", k)
		}
		if err := disjoint("formats: "+k+": ", *o); err != nil {
			return err
		}
	}
	for _, f := range []Format{FormatSummaryExport, FormatHandleSummary, FormatNDJSON, FormatCSV} {
		s := c.For(f)
		for _, code := range s.Mention {
			if !slices.Contains(s.Must, code) && !slices.Contains(s.May, code) {
				return fmt.Errorf("%s: mention %s is neither must nor may: a code the file must say is one it may name", caseFormats[f], code)
			}
		}
	}
	return nil
}

func disjoint(where string, s CodeSet) error {
	seen := map[string]string{}
	for _, l := range []struct {
		name  string
		codes []string
	}{{"must", s.Must}, {"may", s.May}, {"mustNot", s.MustNot}} {
		for _, code := range l.codes {
			if prev, ok := seen[code]; ok {
				return fmt.Errorf("%s%s is in both %s and %s", where, code, prev, l.name)
			}
			seen[code] = l.name
		}
	}
	return nil
}

// For returns the codes expected from a file of format f: the case's,
// with the format's own lists replacing them where given (as the zoo's
// README says); a code the format's may list names is dropped from the
// must it inherits. MustNot is every other judged code: a code a case
// neither requires nor allows is wrong, whether or not the file says so.
// An empty must (a format that cannot carry the evidence) means one of
// may must be named.
func (c *Case) For(f Format) CodeSet {
	s := c.Codes
	if o := c.Formats[caseFormats[f]]; o != nil {
		if o.Must != nil {
			s.Must = o.Must
		}
		if o.May != nil {
			s.May = o.May
		}
		if o.MustNot != nil {
			s.MustNot = o.MustNot
		}
		if o.Mention != nil {
			s.Mention = o.Mention
		}
		// A code the format may name is neither required nor refused by
		// the lists it inherits.
		s.Must = slices.DeleteFunc(slices.Clone(s.Must), func(c string) bool { return o.Must == nil && slices.Contains(o.May, c) })
	}
	// Every judged code that is neither must nor may must not be named,
	// whatever the file lists as mustNot (which it may leave out).
	s.MustNot = nil
	for _, code := range Codes() {
		if !slices.Contains(s.Must, code) && !slices.Contains(s.May, code) {
			s.MustNot = append(s.MustNot, code)
		}
	}
	return s
}

// Observations reads the case's files in dir, each with the case's extra
// knowledge applied (the server's stats, the executor, the CPU).
func (c *Case) Observations(ctx context.Context, dir string) ([]*Observation, error) {
	a := c.Analyze
	x := Extra{Executor: a.Executor, CPU: a.CPU}
	if a.ServerStats != "" {
		s, err := ReadServerStats(filepath.Join(dir, a.ServerStats))
		if err != nil {
			return nil, err
		}
		x.Server = s
	}
	var files []string
	{
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || n == "case.yaml" || n == a.ServerStats || strings.HasPrefix(n, "README") ||
				strings.HasPrefix(n, "server-stats") || strings.HasPrefix(n, "path-stats") ||
				strings.HasSuffix(n, ".js") || strings.HasSuffix(n, ".conf") || strings.HasSuffix(n, ".txt") && !strings.Contains(n, "summary") {
				continue
			}
			files = append(files, n)
		}
	}
	rd := x.hints(Reader{})
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
