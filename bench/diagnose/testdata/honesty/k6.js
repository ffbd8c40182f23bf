// The honesty cases' one k6 script (gen.sh runs it): the scenario from -e
// flags, per request a work time chosen by -e WORK, and the server's own
// time from Server-Timing as scripts/zoo/lib.js records it.
//
//   -e TARGET=http://127.0.0.1:32080/
//   -e EXEC=constant-vus -e VUS=10 -e DUR=8s
//   -e EXEC=constant-arrival-rate -e RATE=15 -e DUR=20s -e VUS=1 -e MAX_VUS=40
//   -e WORK=bimodal   every 10th iteration of a VU asks ?work=600ms, the others ?work=20ms
//   -e WORK=degrade   ?work= 20 ms + 40 ms per second since the start
//   -e NO_REUSE=1     noConnectionReuse
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import exec from 'k6/execution';

const TARGET = __ENV.TARGET || 'http://127.0.0.1:32080/';
const serverTime = new Trend('server_time', true);
const serverQueue = new Trend('server_queue', true);

function dur(header, name) {
  const m = new RegExp(`(?:^|,)\\s*${name}\\s*;(?:[^,]*;)?\\s*dur=([0-9.]+)`).exec(header);
  return m ? parseFloat(m[1]) : undefined;
}

function scenario() {
  const ex = __ENV.EXEC || 'constant-vus';
  const vus = Number(__ENV.VUS || 3);
  const d = __ENV.DUR || '5s';
  if (ex === 'constant-arrival-rate') {
    return { executor: ex, rate: Number(__ENV.RATE || 15), timeUnit: '1s', duration: d, preAllocatedVUs: vus, maxVUs: Number(__ENV.MAX_VUS || vus) };
  }
  return { executor: ex, vus, duration: d };
}

export const options = {
  scenarios: { honesty: scenario() },
  noConnectionReuse: __ENV.NO_REUSE === '1',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

function work() {
  switch (__ENV.WORK) {
    case 'bimodal':
      return exec.vu.iterationInScenario % 10 === 9 ? '600ms' : '20ms';
    case 'degrade': {
      const s = (Date.now() - exec.scenario.startTime) / 1000;
      return `${Math.round(20 + 40 * s)}ms`;
    }
  }
  return '';
}

export default function () {
  const w = work();
  const res = http.get(w ? `${TARGET}?work=${w}` : TARGET, { timeout: '10s', tags: { name: TARGET } });
  check(res, { 'status is 200': (r) => r.status === 200 });
  const header = (res.headers && res.headers['Server-Timing']) || '';
  const app = dur(header, 'app');
  if (app !== undefined) serverTime.add(app);
  const queue = dur(header, 'queue');
  if (queue !== undefined) serverQueue.add(queue);
}
