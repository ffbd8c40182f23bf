// E1 — a TLS device that starts the handshake 300 ms late. Serve the run you
// want, then aim at it with the same RUN:
// middlebench run experiments/e1-tls-handshake.yaml --serve-only --run "delay, new connections"
// k6 run --insecure-skip-tls-verify -e TARGET=https://… -e RUN="delay, new connections" experiments/k6/e1.js
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

export const options = pick({
  'no delay, new connections': { vus: 3, duration: '6s', noConnectionReuse: true, insecureSkipTLSVerify: true },
  'delay, new connections': { vus: 3, duration: '6s', noConnectionReuse: true, insecureSkipTLSVerify: true },
  'delay, reuse': { vus: 3, duration: '6s', insecureSkipTLSVerify: true },
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
