// E3 — a slow server and an inspecting device look the same to k6.
// middlebench run experiments/e3-slow-server-vs-device.yaml --serve-only --run "slow server"
// (that run goes straight at the server and asks it for 500 ms of work)
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const paths = { 'slow server': '/?work=500ms', 'inspecting device': '/' };

export const options = pick({
  'slow server': { vus: 3, duration: '6s' },
  'inspecting device': { vus: 3, duration: '6s' },
});

const path = paths[__ENV.RUN || 'slow server'];

export default function () {
  recordServerTime(http.get(`${TARGET}${path}`));
}
