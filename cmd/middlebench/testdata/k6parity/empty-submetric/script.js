import http from 'k6/http';
export const options = { vus: 2, iterations: 6, thresholds: { 'http_req_duration{status:500}': ['p(95)<500'] } };
export default function () { http.get('http://127.0.0.1:33080/'); }
