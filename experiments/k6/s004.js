// Seed 004 — a CPU-bound server: its own time grows with the load.
// middlebench run experiments/s004-cpu-bound-server.yaml --serve-only
// (serve it pinned to one CPU with many threads to see the effect:
//  GOMAXPROCS=64 taskset -c 1 middlebench run … --serve-only)
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const stages = [];
for (const vus of [1, 2, 4, 8]) {
  stages.push({ duration: '0s', target: vus }, { duration: '4s', target: vus });
}

export const options = pick({
  'VU sweep 1 → 8': { scenarios: { sweep: { executor: 'ramping-vus', startVUs: 1, stages, gracefulRampDown: '0s', gracefulStop: '0s' } } }, // a VU leaving at the end is cut
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
