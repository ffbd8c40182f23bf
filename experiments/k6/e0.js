// E0 — 450 ms of inspection on the way, 50 ms in the server (full summary).
// middlebench run experiments/e0-full-summary.yaml --serve-only
// k6 run -e TARGET=… --summary-mode=full experiments/k6/e0.js
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

export const options = pick({
  'through the device': { vus: 3, duration: '6s' },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
