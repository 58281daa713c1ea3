/**
 * Pass snapshots packed in the standalone HTML (`ascend_lab/pass_packing.py`): each bundle
 * is base64 of gzip of `{key: graph, "key/sub": graph, …}`, decoded with the browser's
 * DecompressionStream only when the pass slider reaches that pass.
 */
import { viewerTrans } from './i18n';

export const PACKED_FORMAT = 'ascend-lab.packed-passes/1';

export interface PackedPasses {
  format: string;
  passes: Record<string, number>;
  bundles: string[];
  /** base64 of gzip of {pass index: its diff}; pages before it keep diffs in the payload */
  diffs?: string;
}

/** The packed passes embedded in `el` (a JSON script element), or null if none. */
export function readPacked(el: HTMLElement | null): PackedPasses | null {
  if (!el || !(el.textContent ?? '').trim()) {
    return null;
  }
  const value = JSON.parse(el.textContent ?? '') as PackedPasses;
  if (value?.format !== PACKED_FORMAT || typeof value.passes !== 'object') {
    throw new Error(`unknown packed-passes format ${JSON.stringify(value?.format)}`);
  }
  return value;
}

export async function decodeBundle(base64: string): Promise<Record<string, unknown>> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  const stream = new Blob([bytes])
    .stream()
    .pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text()) as Record<string, unknown>;
}

/**
 * `onRequestPass` for the viewer: the graph of pass `index`. The subgraphs in its bundle
 * (fused kernels, called functions) are added to `graphs` so they open like the main
 * views' subgraphs. Each bundle is decoded once.
 */
export function packedPassLoader(
  graphs: Record<string, unknown>,
  packed: PackedPasses
): (index: number) => Promise<unknown> {
  const decoded = new Map<number, Promise<Record<string, unknown>>>();
  let diffs: Promise<Record<string, unknown>> | null = null;
  return async (index: number): Promise<unknown> => {
    const n = packed.passes[String(index)];
    if (n === undefined || packed.bundles[n] === undefined) {
      throw new Error(viewerTrans().__('this snapshot is not included in the page'));
    }
    let pending = decoded.get(n);
    if (!pending) {
      pending = decodeBundle(packed.bundles[n]);
      decoded.set(n, pending);
    }
    const bundle = await pending;
    let main: unknown = null;
    for (const [key, graph] of Object.entries(bundle)) {
      if (key.includes('/')) {
        graphs[key] = graph;
      } else {
        main = graph;
      }
    }
    if (packed.diffs && main && typeof main === 'object') {
      // the pass's diff travels packed too: the timeline merges it (mergeDiff)
      diffs = diffs ?? decodeBundle(packed.diffs);
      const diff = (await diffs)[String(index)];
      if (diff) {
        main = { ...(main as object), diff };
      }
    }
    return main;
  };
}
