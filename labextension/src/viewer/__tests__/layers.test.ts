import { describe, expect, it } from 'vitest';
import { runLayoutJobs } from '../layout-core';
import {
  CHUNK_SIZE,
  LAYER_LIMIT,
  MIN_LEGIBLE_ZOOM,
  SCREEN_COLUMNS,
  SCREEN_ROWS,
  WIDE_ROW,
  chunkOps,
  firstViewZoom,
  widestLayer
} from '../layers';
import { GraphModel, ROOT, groupItem } from '../model';
import { GraphData, GraphNode } from '../types';
import { node } from './payloads';

const chain = (n: number, prefix = 'c'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const chainEdges = (ids: string[]): Array<[string, string]> =>
  ids.slice(1).map((id, i) => [ids[i], id]);

describe('the legibility budget', () => {
  it('is what fits on a 1400x900 screen at 9 px labels', () => {
    expect(MIN_LEGIBLE_ZOOM * 11).toBeCloseTo(9);
    // 8 boxes of 168 px (24 apart) across 1360/0.818 px; 13 rows of 42 (36 apart)
    expect(SCREEN_COLUMNS).toBe(8);
    expect(SCREEN_ROWS).toBe(13);
    expect(LAYER_LIMIT).toBe(104);
    expect(CHUNK_SIZE).toBe(40);
    expect(WIDE_ROW).toBe(16);
  });

  it('never zooms the first view below legible', () => {
    expect(firstViewZoom(0.05)).toBe(MIN_LEGIBLE_ZOOM);
    expect(firstViewZoom(1.2)).toBe(1.2);
  });
});

describe('widestLayer', () => {
  it('counts the widest row of a longest-path layering', () => {
    const ids = chain(10);
    expect(widestLayer(ids, chainEdges(ids))).toBe(1);
    expect(widestLayer(ids, [])).toBe(10);
    // a fan-out of 5 from one op: row 1 holds 5
    const fan = ['s', 'a', 'b', 'c', 'd', 'e'];
    expect(
      widestLayer(
        fan,
        fan.slice(1).map(x => ['s', x] as [string, string])
      )
    ).toBe(5);
  });
});

describe('chunkOps', () => {
  it('leaves a scope alone while it fits on a screen', () => {
    const ids = chain(LAYER_LIMIT);
    expect(chunkOps(ids, chainEdges(ids))).toEqual([]);
  });

  it('chunks a long flat scope into consecutive groups of about CHUNK_SIZE', () => {
    const ids = chain(300);
    const chunks = chunkOps(ids, chainEdges(ids));
    expect(chunks.length).toBe(Math.ceil(300 / CHUNK_SIZE));
    expect(chunks.flat()).toEqual(ids); // consecutive, in execution order, nothing lost
    expect(Math.max(...chunks.map(c => c.length))).toBeLessThanOrEqual(CHUNK_SIZE);
  });

  it('chunks a row two screens wide even when the scope is short', () => {
    // 64 Concat ops fed by one op each, all in one scope: one row of 64 in a layout
    const ids: string[] = [];
    const edges: Array<[string, string]> = [];
    for (let i = 0; i < 32; i++) {
      ids.push(`src${i}`, `cat${i}`);
      edges.push([`src${i}`, `cat${i}`]);
    }
    const chunks = chunkOps(ids, edges);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(32 / SCREEN_COLUMNS));
    for (const c of chunks) {
      expect(widestLayer(c, edges)).toBeLessThanOrEqual(SCREEN_COLUMNS);
    }
  });
});

/** A net whose `count` ops sit in one scope next to a small cell. */
function flatGraph(count: number, parallel: boolean): GraphData {
  const nodes: GraphNode[] = [{ ...node('x', 'Parameter', [], null), kind: 'input' }];
  nodes.push(node('conv', 'Conv2D', ['x'], 'Default/conv-Conv2d'));
  nodes.push(node('bias', 'BiasAdd', ['conv'], 'Default/conv-Conv2d'));
  for (let i = 0; i < count; i++) {
    nodes.push(node(`op${i}`, 'Concat', [parallel || i === 0 ? 'bias' : `op${i - 1}`]));
  }
  return { name: 'flat', nodes } as unknown as GraphData;
}

describe('artificial layers in the model', () => {
  it('groups a scope too long for a screen into collapsed "ops a–b" layers', () => {
    const model = new GraphModel(flatGraph(200, false));
    model.applyDefaultExpansion();
    const top = model.groups.get('Default')!;
    const layers = top.children.filter(c => model.groups.get(c)!.artificial);
    expect(layers.map(c => model.groups.get(c)!.label)).toEqual([
      'ops 1\u201340',
      'ops 41\u201380',
      'ops 81\u2013120',
      'ops 121\u2013160',
      'ops 161\u2013200'
    ]);
    expect(top.nodes).toEqual([]);
    expect(model.groupOfNode('op57')).toBe('Default/ops 41\u201380');
    // collapsed at first, even on a graph small enough to open everything else
    expect(layers.some(c => model.isExpanded(c))).toBe(false);
    expect(model.isExpanded('Default/conv-Conv2d')).toBe(true);
    // the first view draws a handful of boxes, none in a row wider than the screen
    const results = runLayoutJobs(model.layoutJobs());
    model.storeLayouts(results);
    const def = model.layouts.get('Default')!;
    expect(Object.keys(def.pos).length).toBe(6);
    expect(def.width).toBeLessThan(SCREEN_COLUMNS * 192);
    // a search hit inside a layer opens it
    expect(model.reveal('op57')).toBe(true);
    expect(model.isExpanded('Default/ops 41\u201380')).toBe(true);
  });

  it('splits 64 parallel ops (a helper function scoped to a parent) into narrow layers', () => {
    const model = new GraphModel(flatGraph(64, true));
    model.applyDefaultExpansion();
    const layers = model.groups
      .get('Default')!
      .children.filter(c => model.groups.get(c)!.artificial);
    expect(layers.length).toBe(8);
    model.storeLayouts(runLayoutJobs(model.layoutJobs()));
    // collapsed, the 64 ops are 8 boxes; the widest layout row of the first view is not 64
    const pos = model.layouts.get('Default')!.pos;
    const rows = new Map<number, number>();
    for (const [, y] of Object.values(pos)) {
      rows.set(Math.round(y), (rows.get(Math.round(y)) ?? 0) + 1);
    }
    expect(Math.max(...rows.values())).toBeLessThanOrEqual(SCREEN_COLUMNS);
    expect(pos[groupItem(layers[0])]).toBeDefined();
  });

  it('leaves a row a short pan wide alone (nine optimizer updates side by side)', () => {
    const model = new GraphModel(flatGraph(9, true));
    expect([...model.groups.values()].some(g => g.artificial)).toBe(false);
  });

  it('leaves a scope that fits alone', () => {
    const model = new GraphModel(flatGraph(30, false));
    expect([...model.groups.values()].some(g => g.artificial)).toBe(false);
    expect(model.groups.get(ROOT)!.children).toEqual(['Default']);
  });
});

describe('the top level of a graph without scopes', () => {
  it('keeps a long chain but splits a row wider than the screen', () => {
    const ids = chain(500);
    expect(chunkOps(ids, chainEdges(ids), true)).toEqual([]);
    expect(chunkOps(ids, [], true).length).toBeGreaterThan(1);
  });
});
