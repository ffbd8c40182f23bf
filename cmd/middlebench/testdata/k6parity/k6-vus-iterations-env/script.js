import http from 'k6/http';
export default function () { http.get(__ENV.TARGET || 'http://127.0.0.1:33080/'); }
