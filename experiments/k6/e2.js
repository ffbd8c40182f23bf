// E2 — uploads against a server that reads 8 MiB/s in total (RUN picks the size).
// middlebench run experiments/e2-upload.yaml --serve-only --run "8 MiB bodies, 8 MiB/s read cap"
import http from 'k6/http';
import { TARGET, pick, recordServerTime } from './lib.js';

const MiB = 1024 * 1024;
const sizes = {
  '8 MiB bodies, 8 MiB/s read cap': 8 * MiB,
  '32 MiB bodies, 16 MiB/s read cap': 32 * MiB,
};

// As the YAML: 2 VUs, each sending a fixed number of bodies.
export const options = pick({
  '8 MiB bodies, 8 MiB/s read cap': { scenarios: { upload: { executor: 'per-vu-iterations', vus: 2, iterations: 5 } } },
  '32 MiB bodies, 16 MiB/s read cap': { scenarios: { upload: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } },
});

const body = 'x'.repeat(sizes[__ENV.RUN || Object.keys(sizes)[0]]);

export default function () {
  recordServerTime(http.post(`${TARGET}/`, body, { headers: { 'Content-Type': 'application/octet-stream' } }));
}
