package main

import (
	"github.com/middlebench/middlebench/proxy"
	"github.com/middlebench/middlebench/units"
	"github.com/spf13/cobra"
)

func newProxyCmd() *cobra.Command {
	var o proxy.RunOptions
	dash := new(dashFlags)
	var d units.Duration
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run fault-injecting middleboxes in front of a server",
		Long: `proxy puts middleboxes between a load generator (middlebench load, k6, curl …)
and a server: TLS termination with a handshake delay, accept limits, link
latency, bandwidth caps, WAF inspection, rate limiting, User-Agent blocking
and fault injection. Each box listens on its own 127.0.0.1 port, counts what
it did, and keeps an answer key (the ledger) of what it did to each
connection and request.

One box from flags: --upstream plus one --stage per stage, in path order
(the first is the nearest the client), each "kind:field=value,field=value".
A whole path from YAML: --config path.yaml (see proxy.PathConfig).

Stage kinds and their fields:
` + proxy.StageHelp() + `
On shutdown (Ctrl-C or --duration) each box prints a one-line summary.`,
		Example: `  # a WAF that inspects for 450 ms, then a 100/s limit, in front of a server
  middlebench proxy --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 \
    --stage waf:delay=450ms --stage ratelimit:rate=100/s,window=1s

  # a TLS terminator that starts each handshake 300 ms late
  middlebench proxy --upstream http://127.0.0.1:8080 --stage tls:handshakeDelay=300ms

  # block k6's User-Agent unless the agreed test header is present
  middlebench proxy --upstream http://127.0.0.1:8080 \
    --stage uablock:allowHeader=X-Load-Test,allowValue=agreed

  # a whole path from a file, with counters at http://127.0.0.1:9090/stats
  middlebench proxy --config path.yaml --upstream http://127.0.0.1:8080 --admin 127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Duration = d.D()
			o.Out = cmd.ErrOrStderr()
			return dash.aroundProxy(cmd.Context(), cmd.ErrOrStderr(), o)
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.Config, "config", "c", "", "YAML file describing the path (boxes and stages)")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:8081", "address of the one box built from --stage flags (loopback only)")
	f.StringVarP(&o.Upstream, "upstream", "u", "", "the server behind the last box, e.g. http://127.0.0.1:8080 (required)")
	f.StringArrayVarP(&o.Stages, "stage", "s", nil, "a stage, kind:field=value,… (repeatable, in path order)")
	f.StringVar(&o.Admin, "admin", "", "admin endpoint with /stats, /metrics and /ledger, e.g. 127.0.0.1:9090")
	f.Uint64Var(&o.Seed, "seed", 0, "seed of every random choice (jitter, distributions, fault probabilities)")
	f.StringVar(&o.LedgerFile, "ledger", "", "write the answer key to this file as JSON lines")
	f.BoolVar(&o.LedgerHeader, "ledger-header", false, "append each box's Server-Timing entries (waf;dur=450.2) to responses")
	f.Var(&d, "duration", "stop after this long (default: until Ctrl-C)")
	return cmd
}
