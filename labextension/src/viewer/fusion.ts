/** Linked selection through the fusion map (many-to-many) and kernel counts. */
import { FusionInfo, GraphData } from './types';

export interface FusionIndex {
  toOriginals: Map<string, string[]>;
  toKernels: Map<string, string[]>;
}

export function indexFusion(fusion: FusionInfo | null | undefined): FusionIndex {
  const toOriginals = new Map<string, string[]>();
  const toKernels = new Map<string, string[]>();
  for (const k of fusion?.kernels ?? []) {
    toOriginals.set(k.kernel, [...(toOriginals.get(k.kernel) ?? []), ...k.originals]);
    for (const o of k.originals) {
      const list = toKernels.get(o) ?? [];
      if (!list.includes(k.kernel)) {
        list.push(k.kernel);
      }
      toKernels.set(o, list);
    }
  }
  return { toOriginals, toKernels };
}

/**
 * What to highlight when `id` is selected on one side: the kernels that contain it and all
 * the originals of those kernels.
 */
export function fusionLinks(
  index: FusionIndex,
  side: 'before' | 'after',
  id: string
): { before: string[]; after: string[] } {
  const kernels =
    side === 'after'
      ? index.toOriginals.has(id)
        ? [id]
        : []
      : (index.toKernels.get(id) ?? []);
  const before = new Set<string>();
  for (const k of kernels) {
    for (const o of index.toOriginals.get(k) ?? []) {
      before.add(o);
    }
  }
  return { before: [...before], after: kernels };
}

/**
 * Nodes that run as kernels: ops and calls that are not bookkeeping. Which ops are
 * bookkeeping is decided once, in Python (graph/model.py), and sent as `node.bookkeeping`.
 */
export function kernelCount(graph: GraphData | undefined): number {
  if (!graph) {
    return 0;
  }
  return graph.nodes.filter(
    n => (n.kind === 'op' || n.kind === 'call') && n.bookkeeping !== true
  ).length;
}
