// Distance — round trips paid again (TLS and request/response).
// middlebench run experiments/rtt-distance.yaml --serve-only --run "RTT 150 ms, TLS 1.3, new connections"
// k6 run --insecure-skip-tls-verify -e TARGET=https://… -e RUN="RTT 150 ms, TLS 1.3, new connections" experiments/k6/rtt.js
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const fresh = { vus: 2, duration: '6s', noConnectionReuse: true, insecureSkipTLSVerify: true };
const reuse = { vus: 2, duration: '6s', insecureSkipTLSVerify: true };

export const options = pick({
  'RTT 150 ms, TLS 1.3, new connections': fresh,
  'RTT 150 ms, TLS 1.2, new connections': fresh,
  'RTT 150 ms, reuse': reuse,
  'RTT 1 ms, new connections': fresh,
  'RTT 1 ms, reuse': reuse,
});

export default function () {
  recordServerTime(http.get(`${TARGET}/`));
}
