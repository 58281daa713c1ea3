/**
 * Runs layout jobs in a web worker made from the bundled worker source; falls back to a
 * synchronous layout (in small slices of time) where Workers are unavailable. A batch of
 * few items (a first view of collapsed blocks, one block opened) is laid out at once,
 * here: a few milliseconds, against a worker's round trip, and on a fresh page against
 * waiting for the worker to start.
 */
import { runLayoutJobs } from './layout-core';
import { GroupLayout, LayoutJob } from './layout-types';
import { WORKER_SOURCE } from './worker-source.generated';

/** A batch with at most this many items in all is laid out on the calling thread. */
export const INLINE_LAYOUT_ITEMS = 40;

function itemCount(jobs: LayoutJob[]): number {
  let n = 0;
  for (const job of jobs) {
    n += job.items.length;
  }
  return n;
}

type Pending = {
  jobs: LayoutJob[];
  resolve: (r: GroupLayout[]) => void;
  reject: (e: Error) => void;
};

export class LayoutClient {
  private worker: Worker | null = null;
  private url: string | null = null;
  private seq = 0;
  private pending = new Map<number, Pending>();
  readonly usesWorker: boolean;

  constructor(useWorker = true) {
    if (
      useWorker &&
      typeof Worker !== 'undefined' &&
      typeof Blob !== 'undefined' &&
      typeof URL !== 'undefined' &&
      typeof URL.createObjectURL === 'function' &&
      WORKER_SOURCE.length > 0
    ) {
      try {
        this.url = URL.createObjectURL(
          new Blob([WORKER_SOURCE], { type: 'text/javascript' })
        );
        this.worker = new Worker(this.url);
        this.worker.onmessage = (ev: MessageEvent): void => this.onMessage(ev.data);
        this.worker.onerror = (): void => this.failWorker();
      } catch {
        this.worker = null;
      }
    }
    this.usesWorker = this.worker !== null;
  }

  private onMessage(data: {
    seq: number;
    results?: GroupLayout[];
    error?: string;
  }): void {
    const p = this.pending.get(data.seq);
    if (!p) {
      return;
    }
    this.pending.delete(data.seq);
    if (data.error !== undefined || !data.results) {
      p.reject(new Error(`layout failed: ${data.error ?? 'no result'}`));
    } else {
      p.resolve(data.results);
    }
  }

  /** A worker that cannot start (e.g. a strict CSP): run the pending jobs here instead. */
  private failWorker(): void {
    this.worker?.terminate();
    this.worker = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      this.layout(p.jobs).then(p.resolve, p.reject);
    }
  }

  layout(jobs: LayoutJob[]): Promise<GroupLayout[]> {
    if (jobs.length === 0) {
      return Promise.resolve([]);
    }
    if (itemCount(jobs) <= INLINE_LAYOUT_ITEMS) {
      try {
        return Promise.resolve(runLayoutJobs(jobs));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (!this.worker) {
      return new Promise((resolve, reject) => {
        setTimeout(() => {
          try {
            resolve(runLayoutJobs(jobs));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        }, 0);
      });
    }
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { jobs, resolve, reject });
      this.worker!.postMessage({ seq, jobs });
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    if (this.url) {
      URL.revokeObjectURL(this.url);
      this.url = null;
    }
    for (const p of this.pending.values()) {
      p.reject(new Error('disposed'));
    }
    this.pending.clear();
  }
}
