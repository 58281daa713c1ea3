/**
 * Legibility of the first view (issue #27): the zoom below which node labels are too small
 * to read, and the rule that groups a scope holding too much at once into artificial
 * layers ("ops 1–40", collapsed), so that the first view never draws a long row of tiny
 * boxes.
 *
 * The budget comes from what fits on a typical screen at legible labels: node labels are
 * 11 px at zoom 1 (style.ts), so 9 px labels need zoom 9/11; in a 1400×900 viewport that
 * shows 8 node boxes side by side (168 px + 24 px apart) and 13 rows (42 px + 36 px).
 * Model Explorer's rule is about 1,000 nodes per layer: at 9 px labels a screen holds ~100.
 */

/** A node box (model.ts re-exports these). */
export const NODE_W = 168;
export const NODE_H = 42;
/** Font size of node and group labels at zoom 1 (svg.al-svg text in style.ts). */
export const LABEL_PX = 11;
/** The smallest label a first view draws. */
export const MIN_LABEL_PX = 9;
/** The zoom at which labels are MIN_LABEL_PX tall. */
export const MIN_LEGIBLE_ZOOM = MIN_LABEL_PX / LABEL_PX;
/** The typical viewport the budget is made for. */
export const TYPICAL_VIEW: [number, number] = [1400, 900];
/** dagre's spacing (layout-core.ts) and the margin fit() leaves. */
const NODE_SEP = 24;
const RANK_SEP = 36;
const MARGIN = 40;

/** Node boxes side by side in the typical viewport at legible zoom. */
export const SCREEN_COLUMNS = Math.floor(
  (TYPICAL_VIEW[0] - MARGIN) / MIN_LEGIBLE_ZOOM / (NODE_W + NODE_SEP)
);
/** Rows of node boxes in the typical viewport at legible zoom. */
export const SCREEN_ROWS = Math.floor(
  (TYPICAL_VIEW[1] - MARGIN) / MIN_LEGIBLE_ZOOM / (NODE_H + RANK_SEP)
);
/** A scope with more ops of its own than fit on one screen is grouped into chunks. */
export const LAYER_LIMIT = SCREEN_COLUMNS * SCREEN_ROWS;
/**
 * A row this wide is two screens across: grouped. (Nine optimizer updates side by side
 * are a short pan; 64 rotary Concats are not.)
 */
export const WIDE_ROW = 2 * SCREEN_COLUMNS;
/** Ops per artificial layer: five rows of a screen. */
export const CHUNK_SIZE = 5 * SCREEN_COLUMNS;

/**
 * Widest layer of a longest-path layering of `ids` (in execution order) over `edges`
 * between them: how many boxes one row of their layout holds at least.
 */
export function widestLayer(ids: string[], edges: Iterable<[string, string]>): number {
  const order = new Map<string, number>();
  ids.forEach((id, i) => order.set(id, i));
  const preds = new Map<string, string[]>();
  for (const [a, b] of edges) {
    const ia = order.get(a);
    const ib = order.get(b);
    if (ia !== undefined && ib !== undefined && ia < ib) {
      (preds.get(b) ?? preds.set(b, []).get(b)!).push(a);
    }
  }
  const rank = new Map<string, number>();
  const width = new Map<number, number>();
  let widest = 0;
  for (const id of ids) {
    let r = 0;
    for (const p of preds.get(id) ?? []) {
      r = Math.max(r, rank.get(p)! + 1);
    }
    rank.set(id, r);
    const w = (width.get(r) ?? 0) + 1;
    width.set(r, w);
    widest = Math.max(widest, w);
  }
  return widest;
}

/**
 * The artificial layers of one scope's own ops (`ids` in execution order): none when they
 * fit (at most LAYER_LIMIT and no row wider than WIDE_ROW), else consecutive chunks of
 * about CHUNK_SIZE (at least two; more when one row is wider than a screen). `longOk`:
 * only a row wider than WIDE_ROW counts (the top level of a graph without scopes: a
 * long chain reads top to bottom).
 */
export function chunkOps(
  ids: string[],
  edges: Iterable<[string, string]>,
  longOk = false
): string[][] {
  if (ids.length < 2) {
    return [];
  }
  const wide = widestLayer(ids, edges);
  if ((longOk || ids.length <= LAYER_LIMIT) && wide <= WIDE_ROW) {
    return [];
  }
  const count = Math.max(
    2,
    Math.ceil(ids.length / CHUNK_SIZE),
    Math.ceil(wide / SCREEN_COLUMNS)
  );
  const size = Math.ceil(ids.length / count);
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += size) {
    chunks.push(ids.slice(i, i + size));
  }
  return chunks;
}

/** The label of an artificial layer: `ops 41–80` (1-based, inclusive). */
export function chunkLabel(first: number, size: number): string {
  return `ops ${first + 1}\u2013${first + size}`;
}

/**
 * The first view's zoom: the fit if it is legible, else the legible zoom (the view then
 * starts at the graph's top, centred when it is narrower than the view).
 */
export function firstViewZoom(fit: number): number {
  return Math.max(fit, MIN_LEGIBLE_ZOOM);
}
