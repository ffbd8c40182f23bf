// Shared by the experiment scripts: where to aim, which run, and the
// server's own time read from Server-Timing (as middlebench's engine does).
//
//   middlebench run experiments/e0-full-summary.yaml --serve-only
//   k6 run -e TARGET=<the URL it prints> --summary-mode=full \
//          --summary-export=summary.json experiments/k6/e0.js
//   middlebench analyze summary.json --server-stats server.json
import { Trend } from 'k6/metrics';

export const TARGET = (__ENV.TARGET || 'http://127.0.0.1:8080').replace(/\/$/, '');

// The trends middlebench's analyzer reads as the server's own time: its
// work (app;dur=) and its wait for a worker (queue;dur=).
const serverTime = new Trend('server_time', true);
const serverQueue = new Trend('server_queue', true);

function dur(header, name) {
  const m = new RegExp(`(?:^|,)\\s*${name}\\s*;(?:[^,]*;)?\\s*dur=([0-9.]+)`).exec(header);
  return m ? parseFloat(m[1]) : undefined;
}

// recordServerTime adds a response's Server-Timing app and queue durations.
export function recordServerTime(res) {
  const header = res.headers['Server-Timing'] || '';
  const app = dur(header, 'app');
  if (app !== undefined) {
    serverTime.add(app);
  }
  const queue = dur(header, 'queue');
  if (queue !== undefined) {
    serverQueue.add(queue);
  }
}

// pick returns the options of the run named by -e RUN=…, or the first.
export function pick(runs) {
  const name = __ENV.RUN || Object.keys(runs)[0];
  const run = runs[name];
  if (!run) {
    throw new Error(`RUN=${name}: this script's runs are ${Object.keys(runs).join(', ')}`);
  }
  return Object.assign({ summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'] }, run);
}
