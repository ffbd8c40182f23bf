// GET TARGET, then burn CPU_MS ms of the generator's CPU per iteration, as a
// script that parses or builds data per response does (a saturated generator).
import { request } from './lib.js';

export { options, handleSummary } from './lib.js';

const CPU_MS = Number(__ENV.CPU_MS || 5);

export default function () {
  request('GET');
  const end = Date.now() + CPU_MS;
  while (Date.now() < end) {
    // busy: the script's own work per response
  }
}
