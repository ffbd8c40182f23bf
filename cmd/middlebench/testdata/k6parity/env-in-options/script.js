import http from 'k6/http';
export const options = { vus: 1, iterations: 2 };
export default function () { http.get(`${__ENV.TARGET}`); }
