// Real k6 v1.8.1: k6 run --summary-export default.json default.js
// (against `middlebench server --work 5ms` on 127.0.0.1:22501)
import http from 'k6/http';
export const options = {
  vus: 2, duration: '1s',
  thresholds: { http_req_duration: ['p(95)<500', 'avg<1'], http_reqs: ['count>0'], vus: ['value>0'], http_req_failed: ['rate<0.5'] },
};
export default function () { http.get('http://127.0.0.1:22501/'); }
