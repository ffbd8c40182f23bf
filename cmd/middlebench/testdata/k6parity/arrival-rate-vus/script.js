import http from 'k6/http';
export const options = { scenarios: { arr: { executor: 'constant-arrival-rate', rate: 5, timeUnit: '1s', duration: '3s', preAllocatedVUs: 10, maxVUs: 10 } } };
export default function () { http.get('http://127.0.0.1:33080/?work=100ms'); }
