package main

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/bench/merge"
	"github.com/spf13/cobra"
)

func newMergeCmd() *cobra.Command {
	var o merge.Options
	cmd := &cobra.Command{
		Use:   "merge FILE...",
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

Exit status: 0 when merged, 99 when a threshold fails on the merge, 2 when a
file cannot be read or the documents cannot be merged.`,
		Example: `  # on each of 4 machines, one quarter of the test
  middlebench load --rate 400/s --duration 10s --execution-segment 0:1/4 \
      --execution-segment-sequence 0,1/4,2/4,3/4,1 --results part1.json http://10.0.0.9:8080/
  # then, anywhere
  middlebench merge part1.json part2.json part3.json part4.json -o merged.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files, o.Stdout = args, cmd.OutOrStdout()
			res, err := merge.Run(o)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if res.Failed > 0 {
				return &exitError{code: console.ExitThresholds, err: fmt.Errorf("%d thresholds crossed on the merge", res.Failed)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write the merged results document here")
	return cmd
}
