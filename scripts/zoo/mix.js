// GET TARGET once per iteration with the fake server's work chosen per
// request (its ?work= parameter), for a server whose own time has two modes
// or grows over the run (see lib.js for the other -e flags):
//
//   -e SLOW_SHARE=0.03 -e FAST=20ms -e SLOW=600ms   two modes: a share of requests is slow
//   -e RAMP_FROM=20 -e RAMP_TO=800 -e RAMP_S=8      the work grows linearly (ms) over RAMP_S seconds
import exec from 'k6/execution';
import { request, TARGET } from './lib.js';

export { options, handleSummary } from './lib.js';

const share = Number(__ENV.SLOW_SHARE || 0);
const sep = TARGET.includes('?') ? '&' : '?';

function work() {
  if (__ENV.RAMP_S) {
    const from = Number(__ENV.RAMP_FROM);
    const to = Number(__ENV.RAMP_TO);
    const f = Math.min(1, exec.instance.currentTestRunDuration / 1000 / Number(__ENV.RAMP_S));
    return `${Math.round(from + (to - from) * f)}ms`;
  }
  return Math.random() < share ? __ENV.SLOW : __ENV.FAST;
}

export default function () {
  request('GET', null, `${TARGET}${sep}work=${work()}`);
}
