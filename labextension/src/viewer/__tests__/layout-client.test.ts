import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runLayoutJobs } from '../layout-core';
import { LayoutJob } from '../layout-types';

// a worker source, so that LayoutClient starts a (fake) worker
vi.mock('./worker-source.stub', () => ({ WORKER_SOURCE: 'self.onmessage = () => 0;' }));

import { INLINE_LAYOUT_ITEMS, LayoutClient } from '../layout-client';

/** Records what the page posts, and answers like layout.worker.ts when told to. */
class FakeWorker {
  static last: FakeWorker | null = null;
  posted: Array<{ seq: number; jobs: LayoutJob[] }> = [];
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor() {
    FakeWorker.last = this;
  }
  postMessage(data: { seq: number; jobs: LayoutJob[] }): void {
    this.posted.push(data);
  }
  answer(): void {
    for (const { seq, jobs } of this.posted.splice(0)) {
      this.onmessage?.({ data: { seq, results: runLayoutJobs(jobs) } });
    }
  }
  terminate(): void {
    return;
  }
}

function job(group: string, n: number): LayoutJob {
  const items = Array.from({ length: n }, (_, i) => ({
    id: `n:${group}${i}`,
    w: 140,
    h: 34
  }));
  const edges = items.slice(1).map((it, i): [string, string] => [items[i].id, it.id]);
  return { group, items, edges };
}

describe('LayoutClient', () => {
  beforeEach(() => {
    vi.stubGlobal('Worker', FakeWorker);
    URL.createObjectURL = () => 'blob:layout';
    URL.revokeObjectURL = () => undefined;
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.last = null;
  });

  it('lays out a batch of few items at once, with no round trip to its worker', async () => {
    const client = new LayoutClient(true);
    expect(client.usesWorker).toBe(true);
    const jobs = [job('a', 3), job('', 2)];
    const results = await client.layout(jobs);
    expect(FakeWorker.last!.posted).toEqual([]);
    expect(results).toEqual(runLayoutJobs(jobs));
    client.dispose();
  });

  it('sends a bigger batch to its worker', async () => {
    const client = new LayoutClient(true);
    const jobs = [job('a', INLINE_LAYOUT_ITEMS), job('', 1)];
    const pending = client.layout(jobs);
    const worker = FakeWorker.last!;
    expect(worker.posted.map(p => p.jobs)).toEqual([jobs]);
    worker.answer();
    expect(await pending).toEqual(runLayoutJobs(jobs));
    client.dispose();
  });
});
