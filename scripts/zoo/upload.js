// POST a body of BODY_KB KiB to TARGET once per iteration (an upload).
import { request } from './lib.js';

export { options, handleSummary } from './lib.js';

const body = 'x'.repeat(Number(__ENV.BODY_KB || 256) * 1024);

export default function () {
  request('POST', body);
}
