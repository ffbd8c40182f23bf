package diagnose

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/middlebench/middlebench/bench/chart"
	"github.com/middlebench/middlebench/internal/atomicfile"
	"github.com/middlebench/middlebench/internal/timing"
)

// Options are the inputs of `middlebench analyze`.
type Options struct {
	Files []string
	// The server's own view: a /_mb/stats JSON file, or figures copied off
	// an APM screen (ServerCount < 0: not given).
	ServerStats string
	ServerCount int64
	ServerAvg   time.Duration
	ServerP95   time.Duration
	// What else the user knows (zero: not known).
	CPU         float64 // generator CPU, percent of its cores
	Executor    string
	VUs         int
	Rate        float64 // arrivals per second
	UplinkBps   float64
	DownlinkBps float64
	// Baseline is a run of the same scenario straight at the server: each
	// report then shows its difference phase by phase (rule 11).
	Baseline string
	// ServerMetric names the server-time trend in k6 files.
	ServerMetric string
	// Bucket is the narrowest time bucket of a stream (0: 1s).
	Bucket time.Duration
	// MaxBytes and MaxPoints bound an input (0: DefaultMaxBytes,
	// DefaultMaxPoints).
	MaxBytes   int64
	MaxPoints  int64
	ConfigPath string
	JSON       bool
	// Chart, when set, is an SVG file to draw the reports in (WriteChart).
	Chart string
	Out   io.Writer
}

// Run reads each file, analyses it and prints the report (text, or JSON
// objects one after another). Unreadable inputs (files, the rules config,
// the server stats) are reported and the others still analysed; the error
// returned then wraps ErrUnreadable. A cancelled ctx prints what was read.
func Run(ctx context.Context, opts Options) error {
	out := opts.Out
	if out == nil {
		out = os.Stdout
	}
	cfg := DefaultConfig()
	if opts.ConfigPath != "" {
		c, err := LoadConfig(opts.ConfigPath)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUnreadable, err)
		}
		cfg = c
	}
	extra, err := opts.extra()
	if err != nil {
		return err
	}
	// A stream does not say its executor: the user's decides how its
	// steps are cut (see Reader.Open).
	rd := extra.hints(Reader{ServerMetric: opts.ServerMetric, Bucket: opts.Bucket, MaxBytes: opts.MaxBytes, MaxPoints: opts.MaxPoints})
	var base *Report
	if opts.Baseline != "" {
		obs, err := rd.ReadFile(ctx, opts.Baseline)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		b := Analyze(obs, cfg)
		base = &b
	}
	var errs []error
	var reports []Report
	var labels []string
	for i, path := range opts.Files {
		obs, err := rd.ReadFile(ctx, path)
		if err != nil && (obs == nil || ctx.Err() == nil) {
			errs = append(errs, err)
			continue
		}
		obs.Apply(extra)
		r := Analyze(obs, cfg)
		if base != nil {
			r.Compare(*base)
		}
		reports, labels = append(reports, r), append(labels, path)
		if opts.JSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
		} else {
			if i > 0 {
				fmt.Fprintln(out)
			}
			if err := r.WriteText(out); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if opts.Chart != "" && len(reports) > 0 {
		if err := writeChartFile(opts.Chart, reports, shortLabels(labels)); err != nil {
			return err
		}
		if !opts.JSON {
			fmt.Fprintf(out, "\nchart: %s\n", opts.Chart)
		}
	}
	return errors.Join(errs...)
}

// shortLabels names files by their base names, or by their paths as given
// when two base names are the same (a/summary.json, b/summary.json).
func shortLabels(paths []string) []string {
	out := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		out[i] = filepath.Base(p)
		seen[out[i]]++
	}
	for i, p := range paths {
		if seen[out[i]] > 1 {
			out[i] = p
		}
	}
	return out
}

func writeChartFile(path string, reports []Report, labels []string) error {
	format, err := chart.FormatOf(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := WriteChart(&b, format, reports, labels); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if err := atomicfile.WriteBytes(path, b.Bytes()); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// extra gathers the optional inputs.
func (o Options) extra() (Extra, error) {
	x := Extra{CPU: o.CPU, Executor: o.Executor, VUs: o.VUs, Rate: o.Rate, UplinkBps: o.UplinkBps, DownlinkBps: o.DownlinkBps}
	flags := o.ServerCount >= 0 || o.ServerAvg > 0 || o.ServerP95 > 0
	if flags && o.ServerStats != "" {
		return x, fmt.Errorf("give --server-stats or --server-count/--server-avg/--server-p95, not both")
	}
	if o.Executor != "" && ModelOf(o.Executor) == ModelUnknown {
		return x, fmt.Errorf("executor %q: want one of k6's: constant-vus, ramping-vus, per-vu-iterations, shared-iterations, constant-arrival-rate, ramping-arrival-rate", o.Executor)
	}
	if o.CPU < 0 || o.CPU > 100 {
		return x, fmt.Errorf("generator CPU %v: want a percentage from 0 to 100", o.CPU)
	}
	switch {
	case flags:
		if o.ServerAvg == 0 && o.ServerP95 == 0 && o.ServerCount >= 0 {
			x.Server = &ServerSide{Source: "flags", Requests: o.ServerCount} // a count alone: tool-blocked, rate-limited
			break
		}
		x.Server = &ServerSide{Source: "flags", Requests: o.ServerCount,
			Time: Stat{Avg: float64(o.ServerAvg) / 1e6, P95: float64(o.ServerP95) / 1e6}}
	case o.ServerStats != "":
		s, err := ReadServerStats(o.ServerStats)
		if err != nil {
			return x, err
		}
		x.Server = s
	}
	return x, nil
}

// ReadServerStats reads the fake server's /_mb/stats JSON (a
// timing.ServerView) saved to a file, plain or gzipped.
func ReadServerStats(path string) (*ServerSide, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{Source: path, Msg: err.Error(), Err: err}
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err == nil {
			b, err = io.ReadAll(io.LimitReader(zr, 64<<20))
		}
		if err != nil {
			return nil, &InputError{Source: path, Msg: "gzip: " + err.Error(), Err: err}
		}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, jsonError(path, b, err)
	}
	_, hasReq := probe["requests"]
	_, hasTime := probe["server_time"]
	if !hasReq && !hasTime {
		return nil, &InputError{Source: path, Msg: "not the server's /_mb/stats: expected keys \"requests\" and \"server_time\", found " + keyList(probe)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var v timing.ServerView
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(path, b, err)
	}
	if !hasReq {
		v.Requests = -1
	}
	return ServerFromView(&v, path), nil
}
