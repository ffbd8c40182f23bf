package console

import (
	"fmt"
	"io"
	"strings"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/atomicfile"
)

// parseOut reads one --out: "json" or "json=-" is stdout, "json=FILE"
// a file (gzipped when it ends in .gz); "csv" is file.csv as in k6,
// "csv=-" stdout.
func parseOut(s string) (kind, path string, err error) {
	kind, path, given := strings.Cut(s, "=")
	switch kind {
	case "json":
		if !given || path == "" {
			path = "-"
		}
	case "csv":
		if !given || path == "" {
			path = "file.csv"
		}
	default:
		return "", "", fmt.Errorf("--out %q: want json[=FILE], csv[=FILE] (FILE - is stdout; .gz is gzipped)", s)
	}
	return kind, path, nil
}

// outputs are the run's --out streams.
type outputs struct {
	json, csv         io.Writer
	closers           []io.Closer
	jsonPath, csvPath string
}

// openOutputs prepares every stream and checks, before the run, that the
// summary files can be written (without touching them).
func openOutputs(o Options) (*outputs, error) {
	for _, f := range []struct{ flag, path string }{{"--summary-export", o.SummaryExport}, {"--results", o.Results}} {
		if f.path == "" {
			continue
		}
		probe, err := atomicfile.Create(f.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
		probe.Abort()
	}
	outs := &outputs{}
	for _, out := range o.Out {
		kind, path, _ := parseOut(out)
		w, err := load.OpenStream(path, o.Stdout)
		if err != nil {
			outs.close()
			return nil, fmt.Errorf("--out %s: %w", kind, err)
		}
		outs.closers = append(outs.closers, w)
		if kind == "json" {
			outs.json, outs.jsonPath = w, path
		} else {
			outs.csv, outs.csvPath = w, path
		}
	}
	return outs, nil
}

// describe is the header's "output:" value, as k6 prints it.
func (o *outputs) describe() string {
	var parts []string
	if o.json != nil {
		parts = append(parts, "json ("+name(o.jsonPath)+")")
	}
	if o.csv != nil {
		parts = append(parts, "csv ("+name(o.csvPath)+")")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func name(path string) string {
	if path == "-" {
		return "stdout"
	}
	return path
}

func (o *outputs) close() error {
	var first error
	for _, c := range o.closers {
		if err := c.Close(); err != nil && first == nil {
			first = fmt.Errorf("--out: %w", err)
		}
	}
	o.closers = nil
	return first
}

// writeFiles writes --summary-export (k6's legacy shape, the summary's
// trend stats) and --results (middlebench's document), each atomically:
// a reader sees the previous file or the complete new one.
func writeFiles(o Options, doc *metrics.Document, stats []string) error {
	if o.SummaryExport != "" {
		e, err := metrics.NewSummaryExport(doc, stats)
		if err != nil {
			return fmt.Errorf("--summary-export: %w", err)
		}
		if err := atomicfile.Write(o.SummaryExport, e.Write); err != nil {
			return fmt.Errorf("--summary-export %s: %w", o.SummaryExport, err)
		}
	}
	if o.Results != "" {
		if err := atomicfile.Write(o.Results, doc.Write); err != nil {
			return fmt.Errorf("--results %s: %w", o.Results, err)
		}
	}
	return nil
}
