package mystery

import (
	"fmt"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/units"
)

// The exercise's load, the same for every mystery (so that the numbers,
// not the script, tell mysteries apart): a few VUs for a few seconds, on
// kept-alive connections as browsers and k6 use them.
const (
	ExerciseVUs      = 5
	ExerciseDuration = 15 * time.Second
)

// LoadConfig is the exercise for middlebench's own engine, aimed at url.
func LoadConfig(url string, vus int, d time.Duration) *load.Config {
	return &load.Config{URL: url, VUs: vus, Duration: units.Duration(d), InsecureSkipTLSVerify: true}
}

// K6Script is the exercise as a k6 script aimed at url (TARGET overrides
// it); it records the server's Server-Timing as the analyzer reads it.
func K6Script(url, id string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, `// middlebench mystery %s: aim here, change nothing else.
//   k6 run --out json=mystery.ndjson --summary-export=summary.json mystery.js
//   middlebench analyze mystery.ndjson   (the stream carries each request's status; the summary does not)
import http from 'k6/http';
import { Trend } from 'k6/metrics';

const TARGET = __ENV.TARGET || '%s';
const serverTime = new Trend('server_time', true);
const serverQueue = new Trend('server_queue', true);

export const options = {
  vus: %d,
  duration: '%s',
  insecureSkipTLSVerify: true,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

function dur(header, name) {
  const m = new RegExp('(?:^|,)\\s*' + name + '\\s*;(?:[^,]*;)?\\s*dur=([0-9.]+)').exec(header);
  return m ? parseFloat(m[1]) : undefined;
}

export default function () {
  const res = http.get(TARGET + '/');
  const header = res.headers['Server-Timing'] || '';
  const app = dur(header, 'app');
  if (app !== undefined) { serverTime.add(app); }
  const queue = dur(header, 'queue');
  if (queue !== undefined) { serverQueue.add(queue); }
}
`, id, strings.TrimSuffix(url, "/"), ExerciseVUs, ExerciseDuration)
	return sb.String()
}
