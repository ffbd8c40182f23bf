package load

import (
	"fmt"
	"sort"
	"strings"
)

// scriptMetrics are k6 metrics that a script's JavaScript makes and the
// engine, which runs no script, never produces: a threshold on one would
// judge a metric that does not exist.
var scriptMetrics = map[string]string{
	"checks":         "checks are the script's check() calls, and the engine runs no script",
	"group_duration": "groups are the script's group() calls, and the engine runs no script",
}

// scriptModulePrefixes are metrics of k6's other protocol modules.
var scriptModulePrefixes = []string{"ws_", "grpc_", "browser_", "webvital_"}

// whyNotProduced says why the engine has no metric named name.
func whyNotProduced(name string) string {
	if why, ok := scriptMetrics[name]; ok {
		return why
	}
	for _, p := range scriptModulePrefixes {
		if strings.HasPrefix(name, p) {
			return "it is a metric of one of k6's protocol modules (k6/ws, k6/net/grpc, k6/browser); the engine speaks HTTP only"
		}
	}
	return fmt.Sprintf("the engine has no metric %q: a custom metric (new Trend, Counter, Rate or Gauge) is the script's own", name)
}

// unproducedThresholds is the error for thresholds on metrics the engine
// does not produce, every one named (sorted) with why, or nil.
func unproducedThresholds(names []string) error {
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("thresholds.%s: %s", n, whyNotProduced(n))
	}
	return fmt.Errorf("%w: %s (the engine's metrics: k6's http_req_*, http_reqs, iterations, iteration_duration, data_sent, data_received, vus, vus_max, dropped_iterations, server_time); to run the script itself, unchanged, through a path: middlebench k6 EXPERIMENT.yaml -- run SCRIPT.js",
		ErrConfig, strings.Join(parts, "; "))
}
