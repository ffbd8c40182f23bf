package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/bench/merge"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/spf13/cobra"
)

func newMergeCmd() *cobra.Command {
	var (
		o         merge.Options
		ro        merge.ReceiveOptions
		tokenFile string
	)
	cmd := &cobra.Command{
		Use:   "merge FILE... | merge --listen ADDR --expect N",
		Short: "Merge the results of the execution segments of one test into one",
		Long: `merge reads the results documents (load --results) of the processes that
ran the segments of one test (load --execution-segment A:B
--execution-segment-sequence …) and writes the document one process would
have written: counts added, rates over the union of the runs, every trend's
percentiles from its merged HDR histograms (those of all the samples, not an
average of percentiles). It evaluates the thresholds on the merge, prints
k6's summary and the analyzer's findings.

It refuses documents of different tests (run.url, executor, scenario,
durationMs, iterations and executionSegmentSequence must be equal) and
segments that overlap.

With --listen it reads no files: it receives the documents over HTTP, what
"load --results-url http://ADDR/results/INDEX" PUTs (INDEX from 0 to
--expect - 1; a document of another test or an overlapping segment is
refused with 400, a second one for the same index replaces the first),
merges when all --expect are in, then serves the merge at GET /merged for
--keep (GET /healthz answers while it waits). This is how "middlebench k8s"
collects the pods' results without a shared volume. It listens on loopback
unless --allow-remote, which needs --token-file: the shared token every PUT
must carry (Authorization: Bearer TOKEN, or http://user:TOKEN@host/… as
--results-url; without it: 401, nothing merged). At most --max-uploads
bodies are read at once (more: 503, which load retries) and the documents
held stay within --max-held bytes (more: 413); a document whose counts do not
add up with its duration, rates and histograms is refused (400). With --results-due, a
segment that passed the start gate and sent nothing within that bound (its
load died) fails the merge then, naming it, instead of at --wait.

Exit status: 0 when merged, 99 when a threshold fails on the merge, 2 when a
file cannot be read, the documents cannot be merged, or not all arrived
within --wait.`,
		Example: `  # on each of 4 machines, one quarter of the test
  middlebench load --rate 400/s --duration 10s --execution-segment 0:1/4 \
      --execution-segment-sequence 0,1/4,2/4,3/4,1 --results part1.json http://10.0.0.9:8080/
  # then, anywhere
  middlebench merge part1.json part2.json part3.json part4.json -o merged.json

  # or receive them: each machine adds --results-url http://mb:TOKEN@10.0.0.5:24080/results/INDEX
  head -c 32 /dev/urandom | xxd -p -c 64 > token
  middlebench merge --listen 10.0.0.5:24080 --allow-remote --token-file token --expect 4 --wait 30m -o merged.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				res *merge.Result
				err error
			)
			if ro.Listen != "" {
				if len(args) > 0 {
					return &exitError{code: 2, err: fmt.Errorf("--listen receives the documents: give no files")}
				}
				ro.Options = merge.Options{Output: o.Output, Stdout: cmd.OutOrStdout(), Diagnose: diagnoseMerge}
				if tokenFile != "" {
					b, err := os.ReadFile(tokenFile)
					if ro.Token = strings.TrimSpace(string(b)); err != nil || ro.Token == "" {
						return &exitError{code: 2, err: fmt.Errorf("--token-file %s: want a file holding the token (%v)", tokenFile, err)}
					}
				}
				res, err = merge.Receive(cmd.Context(), ro)
			} else {
				if len(args) == 0 {
					return &exitError{code: 2, err: fmt.Errorf("give the results documents to merge, or --listen")}
				}
				o.Files, o.Stdout, o.Diagnose = args, cmd.OutOrStdout(), diagnoseMerge
				res, err = merge.Run(o)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if res.Failed > 0 {
				return &exitError{code: console.ExitThresholds, err: fmt.Errorf("%d thresholds crossed on the merge", res.Failed)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the merged results document here")
	f.StringVar(&ro.Listen, "listen", "", "receive the documents over HTTP on this address (PUT /results/INDEX) instead of reading files")
	f.BoolVar(&ro.AllowRemote, "allow-remote", false, "with --listen: allow an address beyond loopback (needs --token-file)")
	f.StringVar(&tokenFile, "token-file", "", "with --listen: a file holding the token every PUT must carry (middlebench k8s puts one in the run's Secret)")
	f.IntVar(&ro.MaxUploads, "max-uploads", 2, "with --listen: documents read at once (more are answered 503 and retried)")
	f.Int64Var(&ro.MaxHeld, "max-held", 1<<30, "with --listen: bytes of documents held together (more are refused, 413)")
	f.IntVar(&ro.Expect, "expect", 0, "with --listen: how many documents (segments) make the whole test")
	f.DurationVar(&ro.Wait, "wait", time.Hour, "with --listen: give up when not all documents arrived by then")
	f.DurationVar(&ro.Keep, "keep", 0, "with --listen: serve the merged document at GET /merged this long after merging")
	f.DurationVar(&ro.Due, "results-due", 0, "with --listen: a segment past the start gate (GET /start/INDEX) that sent no document within this fails the merge at once (its schedule with the graceful stop, plus the send and time for a disrupted index's new pod to ask again; 0: only --wait)")
	return cmd
}

// diagnoseMerge prints what `middlebench analyze merged.json` would say of
// the merge, with the default rules.
func diagnoseMerge(w io.Writer, doc *metrics.Document, source string) error {
	obs, err := diagnose.FromDocument(doc)
	if err != nil {
		return err
	}
	r := diagnose.Analyze(obs, diagnose.DefaultConfig())
	r.Source = source
	return r.WriteText(w)
}
