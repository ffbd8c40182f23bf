import http from 'k6/http';
import { sleep } from 'k6';
export default function () { http.get(__ENV.TARGET || 'http://127.0.0.1:33080/'); sleep(0.4); }
