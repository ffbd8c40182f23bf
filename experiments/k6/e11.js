// Rule 11 — the same scenario straight at the server and through the path.
// middlebench run experiments/e11-direct-vs-path.yaml --serve-only --run "straight at the server"
// middlebench run experiments/e11-direct-vs-path.yaml --serve-only --run "through the path"
// then: middlebench analyze path.json --baseline direct.json
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

export const options = pick({
  'straight at the server': { vus: 3, duration: '6s' },
  'through the path': { vus: 3, duration: '6s' },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
