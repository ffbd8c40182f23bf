// Package middlebench puts fault-injecting middleboxes between a load engine
// and a fake server that reports its own time, so that the place where a
// request's time goes can be seen and diagnosed. The work is in the
// subpackages: fakeserver, proxy, bench/load, bench/metrics, bench/diagnose
// and bench (the experiment harness); cmd/middlebench is the CLI.
package middlebench

// Version is middlebench's version; the load engine's default User-Agent is
// "middlebench/" + Version.
const Version = "0.1.0"
