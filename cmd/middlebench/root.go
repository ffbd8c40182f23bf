package main

import (
	"fmt"
	"runtime"

	"github.com/middlebench/middlebench/internal/buildinfo"
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
		Version:       buildinfo.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(versionLine() + "\n")
	// -v is verbose, as in k6; the version is "middlebench version".
	root.PersistentFlags().BoolP("verbose", "v", false, "say more about what is being done (on stderr)")
	root.AddCommand(
		newVersionCmd(),
		newServerCmd(),
		newProxyCmd(),
		newLoadCmd(),
		newAnalyzeCmd(),
		newMergeCmd(),
		newK8sCmd(),
		newBenchCmd(),
		newRunCmd(),
		newK6Cmd(),
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

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print middlebench's version, as k6 version does",
		Example: "  middlebench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// versionLine is k6's shape: "k6 v1.8.1 (commit/…, go1.25.0, linux/amd64)".
func versionLine() string {
	return fmt.Sprintf("middlebench v%s (commit/%s, %s, %s/%s)", buildinfo.Version(), buildinfo.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
