import http from 'k6/http';
export const options = { vus: 2, iterations: 4, bogusOption: 5 };
export default function () { http.get('http://127.0.0.1:33080/'); }
