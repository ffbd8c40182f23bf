package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/merge"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// A run with generators: N (the fix for E7's saturated generator) is run
// by N child processes of this binary, each the segment i of N even
// execution segments, each pinned to its own CPU; their results documents
// are merged exactly (bench/merge) and the merge is diagnosed and checked
// as one run's document would be.

// generatorEnv carries a generator child's orders, as childEnv a serving
// child's (ServeChild answers both).
const generatorEnv = "MIDDLEBENCH_HARNESS_GENERATOR"

type generatorSpec struct {
	File     string `json:"file"`
	Run      string `json:"run"`
	Quick    bool   `json:"quick"`
	Entry    string `json:"entry"`    // the path's entry (or the server) the load aims at
	Segment  string `json:"segment"`  // k6's form: 0:1/2
	Sequence string `json:"sequence"` // 0,1/2,1
}

// runGeneratorChild makes this process a generator when it was started as
// one: it prepares the run's load for its segment, says "ready", starts on
// the first line of stdin, stops early when stdin closes, and writes its
// results document to stdout.
func runGeneratorChild(ctx context.Context, stdin io.Reader, stdout io.Writer) (bool, error) {
	raw, ok := os.LookupEnv(generatorEnv)
	if !ok {
		return false, nil
	}
	var s generatorSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return true, fmt.Errorf("%s: %w", generatorEnv, err)
	}
	e, err := experiment.Load(s.File, s.Quick)
	if err != nil {
		return true, err
	}
	i := -1
	for k := range e.Runs {
		if e.Runs[k].Name == s.Run {
			i = k
		}
	}
	if i < 0 {
		return true, fmt.Errorf("generator: %s has no run %q", s.File, s.Run)
	}
	cfg, err := e.Runs[i].Load.Aim(s.Entry)
	if err != nil {
		return true, err
	}
	cfg.ExecutionSegment, cfg.ExecutionSegmentSequence = s.Segment, s.Sequence
	in := bufio.NewReader(stdin)
	fmt.Fprintln(stdout, "ready")
	if _, err := in.ReadString('\n'); err != nil {
		return true, fmt.Errorf("generator: no start order: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, in); cancel() }()
	defer load.TuneGC()() // the collector of the engine in the harness's own process
	// A generator pinned to one CPU says how that CPU's time went.
	cpus := allCPUs()
	s0, ok := sampleShare(cpus[0])
	ok = ok && len(cpus) == 1
	res, err := load.Run(ctx, cfg, load.Options{})
	s1, ok1 := sampleShare(cpus[0])
	if err != nil {
		return true, err
	}
	doc := res.Document()
	share := shareBetween(s0, s1)
	ok = ok && ok1
	if ok && doc.GeneratorCPU != nil {
		// What others took of its CPU, for the analyzer: a generator
		// starved by them is saturated with its own share at half.
		doc.GeneratorCPU.OthersPercent, doc.GeneratorCPU.StolenPercent = share.percents()
	}
	if err := doc.Write(stdout); err != nil {
		return true, err
	}
	if !ok {
		return true, nil
	}
	// After the document: how its CPU's time went (see cpuShare).
	return true, json.NewEncoder(stdout).Encode(share)
}

// generator is one running generator child.
type generator struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *bufio.Reader
	stderr  bytes.Buffer
	segment string
	cpu     []int
}

// evenSequence is N even segments: 0,1/N,…,1.
func evenSequence(n int) string {
	parts := []string{"0"}
	for i := 1; i < n; i++ {
		parts = append(parts, fmt.Sprintf("%d/%d", i, n))
	}
	return strings.Join(append(parts, "1"), ",")
}

func startGenerator(spec generatorSpec, cpu []int) (*generator, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(spec) // strings and a bool
	g := &generator{cmd: exec.Command(exe), segment: spec.Segment, cpu: cpu}
	g.cmd.Env = append(os.Environ(), generatorEnv+"="+string(b))
	g.cmd.Stderr = &g.stderr
	if g.stdin, err = g.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := g.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	g.stdout = bufio.NewReader(out)
	if err := startPinned(g.cmd, cpu); err != nil {
		return nil, err
	}
	return g, nil
}

// stop ends a generator that failed or was left behind by an error.
func (g *generator) stop() {
	_ = g.stdin.Close()
	_ = g.cmd.Process.Kill()
	_ = g.cmd.Wait()
}

func (g *generator) errorf(format string, a ...any) error {
	return fmt.Errorf("generator %s: %s (%s)", g.segment, fmt.Sprintf(format, a...), strings.TrimSpace(g.stderr.String()))
}

// generate runs the load of rs as rs.Generators pinned child processes
// against the entry and returns their merged document.
func (rn *Runner) generate(ctx context.Context, e *experiment.Experiment, rs *experiment.RunSpec, entry string) (*metrics.Document, string, error) {
	n := rs.Generators
	seq := evenSequence(n)
	cpus := allCPUs()
	var gens []*generator
	defer func() {
		for _, g := range gens {
			if g != nil {
				g.stop()
			}
		}
	}()
	var where []string
	for i := 0; i < n; i++ {
		seg, err := load.SegmentAt(seq, i)
		if err != nil {
			return nil, "", err
		}
		var cpu []int
		if canPin && len(cpus) > 0 {
			cpu = []int{cpus[i%len(cpus)]}
			where = append(where, fmt.Sprintf("%s on CPU %d", seg, cpu[0]))
		}
		g, err := startGenerator(generatorSpec{File: e.File, Run: rs.Name, Quick: rn.Quick, Entry: entry, Segment: seg, Sequence: seq}, cpu)
		if err != nil {
			return nil, "", fmt.Errorf("generator %s: %w", seg, err)
		}
		gens = append(gens, g)
	}
	// Every generator prepares, then all start at once.
	for _, g := range gens {
		line, err := readLine(ctx, g.stdout, 30*time.Second)
		if err != nil || line != "ready" {
			return nil, "", g.errorf("not ready: %q %v", line, err)
		}
	}
	for _, g := range gens {
		if _, err := io.WriteString(g.stdin, "go\n"); err != nil {
			return nil, "", g.errorf("start: %v", err)
		}
	}
	stopOnCancel := make(chan struct{})
	defer close(stopOnCancel)
	go func() {
		select {
		case <-ctx.Done():
			for _, g := range gens {
				_ = g.stdin.Close()
			}
		case <-stopOnCancel:
		}
	}()
	var in []merge.Input
	for i, g := range gens {
		var d metrics.Document
		dec := json.NewDecoder(g.stdout)
		err := dec.Decode(&d)
		var share cpuShare
		if err == nil && dec.Decode(&share) == nil && i < len(where) {
			where[i] += " (" + share.String() + ")"
		}
		werr := g.cmd.Wait()
		gens[i] = nil
		if err != nil || werr != nil {
			return nil, "", g.errorf("results: %v", errors.Join(err, werr))
		}
		in = append(in, merge.Input{Name: "generator " + g.segment, Doc: &d})
	}
	m, err := merge.Merge(in)
	if err != nil {
		return nil, "", err
	}
	pinned := fmt.Sprintf("%d generator processes, segments of %s", n, seq)
	if len(where) > 0 {
		pinned += ": " + strings.Join(where, ", ")
	}
	return m.Doc, pinned, nil
}

// readLine reads one line within d.
func readLine(ctx context.Context, r *bufio.Reader, d time.Duration) (string, error) {
	type got struct {
		s   string
		err error
	}
	ch := make(chan got, 1)
	go func() {
		s, err := r.ReadString('\n')
		ch <- got{strings.TrimSpace(s), err}
	}()
	select {
	case g := <-ch:
		return g.s, g.err
	case <-time.After(d):
		return "", fmt.Errorf("nothing within %s", d)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// runGenerators is runOne for a run with generators: the load runs in
// the generator children, the rest as for one generator in this process.
func (rn *Runner) runGenerators(ctx context.Context, e *experiment.Experiment, rs *experiment.RunSpec, rr *record.RunResult, tgt target, t0 time.Time) (*record.RunResult, error) {
	if wireDial(tgt) != nil {
		return nil, fmt.Errorf("generators: %d: a run through a wire needs its generator in this process", rs.Generators)
	}
	fmt.Fprintf(rn.out(), "  %s › %s: %d generator processes\n", e.ID, rs.Name, rs.Generators)
	lm := startLoadMeter(rn.cpus)
	doc, pinned, err := rn.generate(ctx, e, rs, tgt.entry())
	rr.Load = lm.end()
	if err != nil {
		return nil, err
	}
	if _, server, ok := strings.Cut(rr.Pinned, "; "); ok {
		pinned += "; " + server // the placement's generator is not this run's
	}
	rr.Pinned = pinned
	rr.Result = resultOf(doc)
	if err := rn.finishRun(ctx, e, tgt, rr, doc); err != nil {
		return nil, err
	}
	rr.Elapsed = rn.now().Sub(t0)
	return rr, nil
}

// resultOf is the engine's counts read back from a (merged) document.
func resultOf(d *metrics.Document) *load.Result {
	val := func(metric, stat string) int64 { return int64(d.Metrics[metric].Values[stat]) }
	r := &load.Result{
		Requests: val("http_reqs", "count"), Failed: val("http_req_failed", "passes"),
		Iterations: val("iterations", "count"), Dropped: val("dropped_iterations", "count"),
		Errors: d.Errors,
	}
	if d.Run != nil {
		r.Executor, r.Scenario = d.Run.Executor, d.Run.Scenario
		r.Start, _ = time.Parse(time.RFC3339Nano, d.Run.Start)
	}
	return r
}
