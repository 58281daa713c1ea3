/**
 * Layered layout of one group's items (dagre), shared by the web worker and the
 * synchronous fallback. Jobs come children-first so that a parent can use the size of a
 * child group laid out in the same batch.
 */
import * as dagre from '@dagrejs/dagre';
import { GROUP_HEADER, GROUP_PAD, GroupLayout, LayoutJob, ROOT } from './layout-types';

/** Above this many items dagre is too slow for an interactive view: use simple layering. */
export const DAGRE_LIMIT = 1200;

function simpleLayers(
  job: LayoutJob,
  sizes: Map<string, [number, number]>
): Record<string, [number, number]> {
  const order = new Map<string, number>();
  job.items.forEach((it, i) => order.set(it.id, i));
  const rank = new Map<string, number>();
  const preds = new Map<string, string[]>();
  for (const [a, b] of job.edges) {
    if (order.get(a)! < order.get(b)!) {
      (preds.get(b) ?? preds.set(b, []).get(b)!).push(a);
    }
  }
  for (const it of job.items) {
    let r = 0;
    for (const p of preds.get(it.id) ?? []) {
      r = Math.max(r, (rank.get(p) ?? 0) + 1);
    }
    rank.set(it.id, r);
  }
  const rows = new Map<number, string[]>();
  for (const it of job.items) {
    const r = rank.get(it.id)!;
    (rows.get(r) ?? rows.set(r, []).get(r)!).push(it.id);
  }
  const pos: Record<string, [number, number]> = {};
  let y = 0;
  for (const r of [...rows.keys()].sort((a, b) => a - b)) {
    const ids = rows.get(r)!;
    let x = 0;
    let rowH = 0;
    for (const id of ids) {
      const [w, h] = sizes.get(id)!;
      pos[id] = [x + w / 2, y + h / 2];
      x += w + 30;
      rowH = Math.max(rowH, h);
    }
    y += rowH + 40;
  }
  return pos;
}

export function layoutJob(
  job: LayoutJob,
  sizes: Map<string, [number, number]>
): GroupLayout {
  let pos: Record<string, [number, number]> = {};
  if (job.items.length > DAGRE_LIMIT) {
    pos = simpleLayers(job, sizes);
  } else if (job.items.length > 0) {
    const g = new dagre.graphlib.Graph();
    g.setGraph({
      rankdir: 'TB',
      nodesep: 24,
      ranksep: 36,
      edgesep: 10,
      marginx: 0,
      marginy: 0
    });
    g.setDefaultEdgeLabel(() => ({}));
    for (const it of job.items) {
      const [w, h] = sizes.get(it.id)!;
      g.setNode(it.id, { width: w, height: h });
    }
    for (const [a, b] of job.edges) {
      if (sizes.has(a) && sizes.has(b)) {
        g.setEdge(a, b);
      }
    }
    dagre.layout(g);
    for (const id of g.nodes()) {
      const n = g.node(id);
      pos[id] = [n.x, n.y];
    }
  }
  // normalise: content starts at (pad, header + pad) inside the group's frame
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const id of Object.keys(pos)) {
    const [w, h] = sizes.get(id)!;
    const [x, y] = pos[id];
    minX = Math.min(minX, x - w / 2);
    minY = Math.min(minY, y - h / 2);
    maxX = Math.max(maxX, x + w / 2);
    maxY = Math.max(maxY, y + h / 2);
  }
  if (!isFinite(minX)) {
    minX = minY = maxX = maxY = 0;
  }
  const root = job.group === ROOT;
  const offX = (root ? 0 : GROUP_PAD) - minX;
  const offY = (root ? 0 : GROUP_HEADER + GROUP_PAD) - minY;
  for (const id of Object.keys(pos)) {
    pos[id] = [pos[id][0] + offX, pos[id][1] + offY];
  }
  const width = Math.max(maxX - minX + (root ? 0 : 2 * GROUP_PAD), root ? 0 : 120);
  const height = maxY - minY + (root ? 0 : GROUP_HEADER + 2 * GROUP_PAD);
  return { group: job.group, width, height, pos };
}

/** Run a batch of jobs (children first); returns one layout per job. */
export function runLayoutJobs(jobs: LayoutJob[]): GroupLayout[] {
  const done = new Map<string, GroupLayout>();
  const out: GroupLayout[] = [];
  for (const job of jobs) {
    const sizes = new Map<string, [number, number]>();
    for (const it of job.items) {
      if (it.ref !== undefined) {
        const child = done.get(it.ref);
        const [pw, ph] = it.pad ?? [0, 0];
        sizes.set(it.id, child ? [child.width + pw, child.height + ph] : [it.w, it.h]);
      } else {
        sizes.set(it.id, [it.w, it.h]);
      }
    }
    const result = layoutJob(job, sizes);
    done.set(job.group, result);
    out.push(result);
  }
  return out;
}
