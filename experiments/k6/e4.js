// E4 — a 10 MiB/s egress cap: receiving grows, waiting does not (VUs 1 → 32).
// middlebench run experiments/e4-download-cap.yaml --serve-only
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const stages = [];
for (const vus of [1, 2, 4, 8, 16, 32]) {
  stages.push({ duration: '0s', target: vus }, { duration: '5s', target: vus });
}

export const options = pick({
  'VU sweep 1 → 32': { scenarios: { sweep: { executor: 'ramping-vus', startVUs: 1, stages, gracefulRampDown: '0s', gracefulStop: '0s' } } }, // a VU leaving at the end is cut
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
