import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The recorded CPU profile of LeNet5 joined to its traced graph
// (tests/fixtures/profile/make_profile_payload.py).
const FIXTURE = join(
  __dirname,
  '../../../../tests/fixtures/profile/lenet-profile-payload.json'
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lenetProfile(): any {
  return JSON.parse(readFileSync(FIXTURE, 'utf8'));
}

/** The payload as a profile without a trace makes it (ascend_lab/profiling/payload.py):
 * an empty graph, kernels joined to no node. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withoutTrace(p: any): any {
  p.graphs = { 'no-trace': { name: '(no trace)', nodes: [] } };
  p.views = { main: 'no-trace', before: null, after: null };
  p.profile.graph = null;
  for (const k of p.profile.kernels) {
    k.node = null;
  }
  return p;
}
