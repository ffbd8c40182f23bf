// E7 — a saturated generator. The script burns CPU after every response, as
// the article's did (4 ms there, 1 ms here), while the arrival rate climbs.
// middlebench run experiments/e7-generator-saturation.yaml --serve-only
// Pin k6 apart from the server to see it: taskset -c 0 k6 run …
// Analyse the NDJSON (k6 --out json=points.json), whose steps show the knee,
// with the server's view: middlebench analyze points.json --server-stats stats.json
// A summary export mixes the rates: give it k6's CPU past the knee, in % of
// the cores it ran on (analyze summary.json --server-stats stats.json --generator-cpu N).
// gracefulStop 0s ends the run with its last stage, without a drain of late
// iterations after it (which the engine's steps leave out too).
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const CPU_MS = Number(__ENV.CPU_MS || 1);
const stages = [{ duration: '4s', target: 100 }];
for (const rate of [250, 400, 600, 800, 1000, 1200]) {
  stages.push({ duration: '0s', target: rate }, { duration: '4s', target: rate });
}

export const options = pick({
  'arrival-rate sweep': {
    scenarios: { sweep: { executor: 'ramping-arrival-rate', startRate: 100, timeUnit: '1s', preAllocatedVUs: 50, maxVUs: 150, stages, gracefulStop: '0s' } },
  },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
  const end = Date.now() + CPU_MS;
  while (Date.now() < end) {
    // busy: the work a script does per response
  }
}
