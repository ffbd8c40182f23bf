package main

import (
	"strings"

	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy"
	"github.com/middlebench/middlebench/wire"
	"github.com/spf13/cobra"
)

func newProxyCmd() *cobra.Command {
	var o proxy.RunOptions
	dash := new(dashFlags)
	var d units.Duration
	var w wire.Flag
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
A wire (--wire, or wire: in the file) puts a packet-level link in front of
the first box: two network namespaces with a TUN device each and a delay line
between them, so TCP's own handshake, its retransmissions and queueing pay
the distance. The first box then listens in the server namespace on
10.201.0.2; load it from the generator namespace (the proxy prints the
ip netns exec line). It needs root and /dev/net/tun. Its fields:
  ` + strings.ReplaceAll(wire.ShorthandHelp, "\n", "\n  ") + `

Boxes listen on loopback only: 0.0.0.0, :PORT or a LAN IP is refused unless
--allow-remote is given. Each box bounds slow clients and a slow server:
--read-header-timeout (default 10s) and --read-timeout (60s) cut off a client
too slow to send its request, --response-header-timeout (60s) answers 504
for a server that does not begin its answer, and --max-conns (16384) stops
accepting beyond that many open connections. A server that closes, resets
or sends garbage gets the client a 502; one that ends a body early aborts
the client's connection. Each is counted and written to the ledger.

On shutdown (Ctrl-C or --duration) each box prints a one-line summary.`,
		Example: `  # a WAF that inspects for 450 ms, then a 100/s limit, in front of a server
  middlebench proxy --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 \
    --stage waf:delay=450ms --stage ratelimit:rate=100/s,window=1s

  # a TLS terminator that starts each handshake 300 ms late
  middlebench proxy --upstream http://127.0.0.1:8080 --stage tls:handshakeDelay=300ms

  # block k6's User-Agent unless the agreed test header is present
  middlebench proxy --upstream http://127.0.0.1:8080 \
    --stage uablock:allowHeader=X-Load-Test,allowValue=agreed

  # 75 ms one way, 100 Mbit/s behind a 256 KiB queue, 0.1 % loss; 1 MiB queue downstream
  middlebench proxy --upstream http://127.0.0.1:8080 --stage tls: \
    --wire latency=75ms,rate=100Mbit/s,queue=256KiB,loss=0.1%,down.queue=1MiB

  # a whole path from a file, with counters at http://127.0.0.1:9090/stats
  middlebench proxy --config path.yaml --upstream http://127.0.0.1:8080 --admin 127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Duration = d.D()
			o.Wire = w.Config
			o.Out = cmd.ErrOrStderr()
			return dash.aroundProxy(cmd.Context(), cmd.ErrOrStderr(), o)
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.Config, "config", "c", "", "YAML file describing the path (boxes and stages)")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:8081", "address of the one box built from --stage flags (loopback only unless --allow-remote)")
	f.StringVarP(&o.Upstream, "upstream", "u", "", "the server behind the last box, e.g. http://127.0.0.1:8080 (required)")
	f.StringArrayVarP(&o.Stages, "stage", "s", nil, "a stage, kind:field=value,… (repeatable, in path order)")
	f.StringVar(&o.Admin, "admin", "", "admin endpoint with /stats, /metrics and /ledger, e.g. 127.0.0.1:9090")
	f.Uint64Var(&o.Seed, "seed", 0, "seed of every random choice (jitter, distributions, fault probabilities)")
	f.StringVar(&o.LedgerFile, "ledger", "", "write the answer key to this file as JSON lines (it appears, complete, when the proxy stops)")
	f.BoolVar(&o.LedgerHeader, "ledger-header", false, "append each box's Server-Timing entries (waf;dur=450.2) to responses")
	f.Var(&w, "wire", "a packet-level link in front of the first box, field=value,… (latency=75ms,rate=100Mbit/s,queue=256KiB,loss=0.1%; root and /dev/net/tun)")
	f.Var(&d, "duration", "stop after this long (default: until Ctrl-C)")
	f.BoolVar(&o.AllowRemote, "allow-remote", false, "allow boxes and admin beyond loopback (every interface, a LAN IP): anyone who reaches them is answered")
	f.Var(&o.Limits.ReadHeaderTimeout, "read-header-timeout", "cut off a client whose request headers take longer (default 10s)")
	f.Var(&o.Limits.ReadTimeout, "read-timeout", "cut off a client whose whole request takes longer (default 60s)")
	f.Var(&o.Limits.ResponseHeaderTimeout, "response-header-timeout", "answer 504 when the server has not begun its answer after this long (default 60s)")
	f.IntVar(&o.Limits.MaxConns, "max-conns", 0, "client connections open at once per box; beyond, new ones wait in the backlog (default 16384)")
	return cmd
}
