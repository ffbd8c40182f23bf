package main

import (
	"github.com/middlebench/middlebench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "middlebench",
		Short: "See where a request's time goes between a load generator and a server",
		Long: `middlebench puts fault-injecting middleboxes (TLS-handshake delay, WAF
inspection, 429 rate limiting, User-Agent blocking, bandwidth caps, link
latency) between a load engine and a fake server that reports its own time in
Server-Timing, and replays the experiments of "when k6 says slow but the APM
says fine" to check that the diagnosis names the right cause.`,
		Version:       middlebench.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newServerCmd(),
		newProxyCmd(),
		newLoadCmd(),
		newAnalyzeCmd(),
		newBenchCmd(),
		newRunCmd(),
		newMysteryCmd(),
	)
	hideZeroDefaults(root)
	return root
}

// hideZeroDefaults keeps help from printing "(default 0s)" beside flags of
// the units types: pflag recognises only its own types' zero values, and
// these flags' usage texts say what an unset flag means (--graceful-stop:
// "default 30s").
func hideZeroDefaults(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if z, ok := f.Value.(interface{ IsZero() bool }); ok && z.IsZero() && f.DefValue == f.Value.String() {
			f.DefValue = ""
		}
	})
	for _, c := range cmd.Commands() {
		hideZeroDefaults(c)
	}
}
