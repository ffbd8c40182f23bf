// GET TARGET once per iteration (see lib.js for the -e flags).
import { request } from './lib.js';

export { options, handleSummary } from './lib.js';

export default function () {
  request('GET');
}
