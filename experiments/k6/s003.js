// Seed 003 — closed VUs vs an open arrival rate against 10 workers × 50 ms.
// middlebench run experiments/s003-closed-vs-open.yaml --serve-only --run "<run>"
// k6's NDJSON does not say which executor ran: analyse the open run with it,
//   middlebench analyze points.json --server-stats stats.json --executor ramping-arrival-rate
// and the closed one with --executor ramping-vus.
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const vuStages = [];
for (const vus of [10, 50, 100, 200, 400]) {
  vuStages.push({ duration: '0s', target: vus }, { duration: vus === 400 ? '8s' : '5s', target: vus }); // the YAML's hold, last_hold
}
const rateStages = [{ duration: '5s', target: 60 }];
for (const rate of [100, 140, 170, 190, 210]) {
  rateStages.push({ duration: '0s', target: rate }, { duration: '5s', target: rate });
}

export const options = pick({
  'closed, VU sweep': { scenarios: { closed: { executor: 'ramping-vus', startVUs: 10, stages: vuStages, gracefulRampDown: '0s', gracefulStop: '0s' } } },
  'open, arrival-rate sweep': {
    scenarios: { open: { executor: 'ramping-arrival-rate', startRate: 60, timeUnit: '1s', preAllocatedVUs: 100, maxVUs: 1000, stages: rateStages } },
  },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
