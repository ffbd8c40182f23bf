// Shared by the zoo's scripts (scripts/zoo/gen.sh runs them): the scenario
// from -e flags, one request with its check and the server's own time from
// Server-Timing (as experiments/k6/lib.js records it), and a handleSummary
// that writes k6's summary data as JSON.
//
//   -e TARGET=http://127.0.0.1:21080/   what to aim at (path and query included)
//   -e EXEC=constant-vus -e VUS=3 -e DUR=5s
//   -e EXEC=ramping-vus -e STEPS=2,4,8 -e HOLD=2s            (a closed sweep)
//   -e EXEC=constant-arrival-rate -e RATE=50 -e DUR=5s -e VUS=10 -e MAX_VUS=50
//   -e EXEC=ramping-arrival-rate -e STEPS=20,40,80 -e HOLD=2s -e VUS=10 -e MAX_VUS=50
//   -e EXEC=shared-iterations -e VUS=3 -e ITERS=200     (or per-vu-iterations: ITERS each)
//   -e NO_REUSE=1        k6's noConnectionReuse (a new connection per request)
//   -e TIMEOUT=5s        the request timeout (k6's default is 60 s)
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';

export const TARGET = __ENV.TARGET || 'http://127.0.0.1:21080/';
const TIMEOUT = __ENV.TIMEOUT || '5s';

const serverTime = new Trend('server_time', true);
const serverQueue = new Trend('server_queue', true);

function dur(header, name) {
  const m = new RegExp(`(?:^|,)\\s*${name}\\s*;(?:[^,]*;)?\\s*dur=([0-9.]+)`).exec(header);
  return m ? parseFloat(m[1]) : undefined;
}

// record adds the response's check and its Server-Timing app and queue durations.
export function record(res) {
  check(res, { 'status is 200': (r) => r.status === 200 });
  const header = (res.headers && res.headers['Server-Timing']) || '';
  const app = dur(header, 'app');
  if (app !== undefined) {
    serverTime.add(app);
  }
  const queue = dur(header, 'queue');
  if (queue !== undefined) {
    serverQueue.add(queue);
  }
  return res;
}

// request sends one request to url (TARGET by default) and records it.
export function request(method, body, url) {
  return record(http.request(method || 'GET', url || TARGET, body || null, { timeout: TIMEOUT }));
}

function steps(hold) {
  return (__ENV.STEPS || '').split(',').filter((s) => s !== '').map(Number)
    .flatMap((t) => [{ duration: '0s', target: t }, { duration: hold, target: t }]);
}

function scenario() {
  const exec = __ENV.EXEC || 'constant-vus';
  const vus = Number(__ENV.VUS || 3);
  const dur = __ENV.DUR || '5s';
  const hold = __ENV.HOLD || '2s';
  const maxVUs = Number(__ENV.MAX_VUS || vus);
  switch (exec) {
    case 'constant-vus':
      return { executor: exec, vus, duration: dur };
    case 'ramping-vus': {
      const s = steps(hold);
      return { executor: exec, startVUs: s[0].target, stages: s, gracefulRampDown: '0s' };
    }
    case 'constant-arrival-rate':
      return { executor: exec, rate: Number(__ENV.RATE || 20), timeUnit: '1s', duration: dur, preAllocatedVUs: vus, maxVUs };
    case 'ramping-arrival-rate': {
      const s = steps(hold);
      return { executor: exec, startRate: s[0].target, timeUnit: '1s', preAllocatedVUs: vus, maxVUs, stages: s };
    }
    case 'shared-iterations':
    case 'per-vu-iterations':
      return { executor: exec, vus, iterations: Number(__ENV.ITERS || 100), maxDuration: __ENV.MAX_DUR || '30s' };
    default:
      throw new Error(`EXEC=${exec}: constant-vus, ramping-vus, constant-arrival-rate, ramping-arrival-rate, shared-iterations or per-vu-iterations`);
  }
}

export const options = {
  scenarios: { zoo: scenario() },
  noConnectionReuse: __ENV.NO_REUSE === '1',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

// handleSummary writes the data k6 hands it; it replaces the printed summary.
export function handleSummary(data) {
  return { 'handle-summary.json': JSON.stringify(data) };
}
