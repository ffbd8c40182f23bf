// Real k6 v1.8.1: k6 run --summary-export scenarios.json --out csv=scenarios.csv scenarios.js
// (against `middlebench server --work 5ms` on 127.0.0.1:22501)
import http from 'k6/http';
import { check } from 'k6';
export const options = {
  scenarios: {
    open: { executor: 'constant-arrival-rate', rate: 20, timeUnit: '1s', duration: '2s', preAllocatedVUs: 2, maxVUs: 5, tags: { kind: 'open' }, exec: 'default' },
    closed: { executor: 'constant-vus', vus: 2, duration: '2s', startTime: '500ms', tags: { kind: 'closed' }, env: { FOO: 'bar' }, gracefulStop: '1s' },
  },
  thresholds: {
    'http_req_duration{scenario:open}': ['p(95)<500'],
    'http_req_duration{kind:closed}': [{ threshold: 'p(99)<1', abortOnFail: false }],
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.9'],
  },
  summaryTrendStats: ['avg', 'p(99.9)', 'count', 'min'],
};
export default function () {
  const r = http.get('http://127.0.0.1:22501/');
  check(r, { 'is 200': (r) => r.status === 200 });
}
