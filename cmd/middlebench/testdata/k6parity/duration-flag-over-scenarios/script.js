import http from 'k6/http';
import { sleep } from 'k6';
export const options = { scenarios: { a: { executor: 'constant-vus', vus: 2, duration: '5s' }, b: { executor: 'per-vu-iterations', vus: 1, iterations: 3 } } };
export default function () { http.get(__ENV.TARGET || 'http://127.0.0.1:33080/'); sleep(0.4); }
