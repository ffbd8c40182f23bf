// E5 — 200 req/s against a device that lets 100/s through (fixed window).
// middlebench run experiments/e5-rate-limit.yaml --serve-only
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

export const options = pick({
  '200/s offered, 100/s allowed': {
    scenarios: {
      offered: { executor: 'constant-arrival-rate', rate: 200, timeUnit: '1s', duration: '6s', preAllocatedVUs: 30, maxVUs: 100 },
    },
    thresholds: { http_req_failed: ['rate<0.01'] }, // the article's advice: it fails here, as it should
  },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
