package merge

import (
	"fmt"
	"io"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/atomicfile"
)

// Options is `middlebench merge`: the documents, where to write the merge
// ("" writes none) and where to print its summary and diagnosis.
type Options struct {
	Files  []string
	Output string
	Stdout io.Writer
	// Diagnose prints the findings on the merge after its summary (the
	// command passes the analyzer; merge does not import it). Nil: none.
	Diagnose func(w io.Writer, doc *metrics.Document, source string) error
}

// Run merges the files, writes the merged document, prints k6's summary of
// it and the findings (o.Diagnose), and returns the merge (Failed: the
// thresholds crossed).
func Run(o Options) (*Result, error) {
	in, err := ReadFiles(o.Files)
	if err != nil {
		return nil, err
	}
	res, err := Merge(in)
	if err != nil {
		return nil, err
	}
	return res, report(o, len(in), res)
}

// report writes the merged document (when asked), prints k6's summary of
// it and the analyzer's findings.
func report(o Options, parts int, res *Result) error {
	if o.Output != "" {
		if err := atomicfile.Write(o.Output, res.Doc.Write); err != nil {
			return err
		}
	}
	w := o.Stdout
	fmt.Fprintf(w, "merged %d documents: execution segments %s\n", parts, res.Segments)
	if res.Segments != "0:1" {
		fmt.Fprintln(w, "note: the segments do not cover the whole test: the merge is a part of it")
	}
	if err := metrics.WriteSummary(w, res.Doc, metrics.SummaryOptions{TrendStats: res.Doc.Options.SummaryTrendStats}); err != nil {
		return err
	}
	if o.Diagnose == nil {
		return nil
	}
	if err := o.Diagnose(w, res.Doc, o.Output); err != nil {
		return fmt.Errorf("analyze the merge: %w", err)
	}
	return nil
}
