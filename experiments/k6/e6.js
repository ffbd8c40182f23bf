// E6 — a device that blocks k6's User-Agent. The first run keeps k6's own
// User-Agent ("Grafana k6/…"); the second adds the agreed test header.
// middlebench run experiments/e6-user-agent.yaml --serve-only
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const headers = {
  "k6's User-Agent": {},
  'allow-listed test header': { 'X-Load-Test': 'agreed-test-window-2026' },
};

export const options = pick({
  "k6's User-Agent": { vus: 10, duration: '5s' },
  'allow-listed test header': { vus: 10, duration: '5s' },
});

const h = headers[__ENV.RUN || "k6's User-Agent"];

export default function () {
  recordServerTime(http.get(`${TARGET}/`, { headers: h }));
}
