/**
 * Web worker entry: lays out batches of group jobs off the main thread.
 * Bundled by scripts/build-viewer.mjs into worker-source.generated.ts.
 */
import { runLayoutJobs } from './layout-core';
import { LayoutJob } from './layout-types';

interface WorkerScope {
  onmessage: ((ev: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

const scope = self as unknown as WorkerScope;

scope.onmessage = (ev: MessageEvent): void => {
  const data = ev.data as { seq: number; jobs: LayoutJob[] };
  try {
    scope.postMessage({ seq: data.seq, results: runLayoutJobs(data.jobs) });
  } catch (err) {
    scope.postMessage({ seq: data.seq, error: String(err) });
  }
};
