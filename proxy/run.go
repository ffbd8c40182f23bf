package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/wire"
	"gopkg.in/yaml.v3"
)

// RunOptions is what `middlebench proxy` asks for: a path from a YAML file,
// or one box from flags.
type RunOptions struct {
	Config       string   // YAML file with a PathConfig; or:
	Listen       string   // the one box's address (default 127.0.0.1:8081)
	Stages       []string // the one box's stages, in ParseStage's shorthand
	Upstream     string   // where the last box forwards (required)
	Admin        string   // admin endpoint (overrides the file's)
	Seed         uint64   // overrides the file's when non-zero
	LedgerFile   string   // overrides the file's
	LedgerHeader bool     // turns ledgerHeader on
	Duration     time.Duration
	AllowRemote  bool         // let boxes and admin listen beyond loopback
	Limits       BoxLimits    // for every box, where its config leaves a limit out
	Wire         *wire.Config // a wire in front of the first box (overrides the file's)
	Out          io.Writer    // where the addresses and the shutdown summary go

	Started func(*Path) // if set, called once the path listens (the live dashboard reads its counters)
}

// LoadPathConfig reads and strictly decodes a path file; errors name the
// file and the line.
func LoadPathConfig(file string) (PathConfig, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return PathConfig{}, fmt.Errorf("proxy config: %w", err)
	}
	return ParsePathConfig(file, b)
}

// ParsePathConfig decodes a path from YAML text; name prefixes errors.
func ParsePathConfig(name string, b []byte) (PathConfig, error) {
	var cfg PathConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("%s: empty file: a path needs boxes", name)
		}
		return cfg, fmt.Errorf("%s: %w", name, err)
	}
	if len(cfg.Boxes) == 0 { // a null document decodes without calling UnmarshalYAML
		return cfg, fmt.Errorf("%s: boxes: a path needs at least one box", name)
	}
	return cfg, nil
}

// Run starts the path and keeps it until ctx ends (Ctrl-C) or Duration
// passes, then prints each box's summary. It is `middlebench proxy`: the
// path is its process's only work (PathConfig.OwnProcess).
func Run(ctx context.Context, o RunOptions) error {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	if o.Upstream == "" {
		return errors.New("proxy: --upstream is required (the server behind the last box, e.g. http://127.0.0.1:8080)")
	}
	var cfg PathConfig
	switch {
	case o.Config != "" && len(o.Stages) > 0:
		return errors.New("proxy: give either --config or --stage, not both")
	case o.Config != "":
		var err error
		if cfg, err = LoadPathConfig(o.Config); err != nil {
			return err
		}
	default:
		box := BoxConfig{Name: "box", Listen: o.Listen}
		if box.Listen == "" {
			box.Listen = "127.0.0.1:8081"
		}
		for _, s := range o.Stages {
			sc, err := ParseStage(s)
			if err != nil {
				return fmt.Errorf("proxy: --stage: %w", err)
			}
			box.Stages = append(box.Stages, sc)
		}
		cfg.Boxes = []BoxConfig{box}
	}
	if o.Admin != "" {
		cfg.Admin = o.Admin
	}
	if o.Wire != nil {
		cfg.Wire = o.Wire
	}
	if o.Seed != 0 {
		cfg.Seed = o.Seed
	}
	if o.LedgerFile != "" {
		cfg.LedgerFile = o.LedgerFile
	}
	cfg.LedgerHeader = cfg.LedgerHeader || o.LedgerHeader
	cfg.AllowRemote = cfg.AllowRemote || o.AllowRemote
	for i := range cfg.Boxes {
		cfg.Boxes[i].BoxLimits = cfg.Boxes[i].BoxLimits.withDefaults(o.Limits)
	}
	cfg.Log = out
	cfg.OwnProcess = true // the proxy command's: nothing else runs beside the path
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	// Run closes the path itself, after its own printing: a path closed by
	// ctx from another goroutine would write its summary to out meanwhile.
	p, err := Start(context.WithoutCancel(ctx), cfg, o.Upstream)
	if err != nil {
		return err
	}
	if o.Started != nil {
		o.Started(p)
	}
	for _, b := range p.Boxes() {
		fmt.Fprintf(out, "box %s listening on %s (%s, %s) → %s\n", b.Name(), b.URL(), b.Mode(), stageList(b), b.next)
	}
	for _, a := range p.AdminURLs() {
		fmt.Fprintf(out, "admin: %s/stats  %s/metrics  %s/ledger\n", a, a, a)
	}
	fmt.Fprintf(out, "entry: %s\n", p.URL())
	printWire(out, p)
	<-ctx.Done()
	return p.Close()
}

func stageList(b *Box) string {
	if len(b.cfg.Stages) == 0 {
		return "no stages"
	}
	kinds := make([]string, len(b.cfg.Stages))
	for i, s := range b.cfg.Stages {
		kinds[i] = s.Spec.Kind()
	}
	return strings.Join(kinds, " → ")
}

// StageHelp lists each stage kind with its fields, for --help.
func StageHelp() string {
	var sb strings.Builder
	for _, k := range Kinds() {
		spec, _ := newSpec(k)
		fmt.Fprintf(&sb, "  %-10s %s\n", k, strings.Join(strictyaml.Keys(spec), ", "))
	}
	return sb.String()
}
