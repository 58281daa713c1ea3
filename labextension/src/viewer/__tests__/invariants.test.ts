// Randomised checks of the model + layout invariants over many seeded random graphs.
import { describe, expect, it } from 'vitest';
import { runLayoutJobs } from '../layout-core';
import {
  COLLAPSE_THRESHOLD,
  GraphModel,
  GROUP_H,
  GROUP_W,
  NODE_H,
  NODE_W,
  ROOT
} from '../model';
import { GraphData, GraphNode } from '../types';
import { node } from './payloads';

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const OPS = [
  'Conv2D',
  'ReLU',
  'Add',
  'MakeTuple',
  'TupleGetItem',
  'UpdateState',
  'Load',
  'Depend',
  'MatMul'
];

function randomGraph(seed: number): GraphData {
  const r = rng(seed);
  const n = 5 + Math.floor(r() * (r() < 0.3 ? 900 : 120));
  const scopes = [
    '',
    'Default',
    'Default/a',
    'Default/a/x',
    'Default/a/y',
    'Default/b',
    'Other/c',
    'Default/b/z/w'
  ];
  const nodes: GraphNode[] = [];
  for (let i = 0; i < n; i++) {
    const inputs: string[] = [];
    const k = Math.floor(r() * 3);
    for (let j = 0; j < k && i > 0; j++) {
      inputs.push(`v${Math.floor(r() * i)}`);
    }
    if (r() < 0.05) {
      inputs.push('missing-outside-id');
    }
    const scope = scopes[Math.floor(r() * scopes.length)];
    const base = node(
      `v${i}`,
      OPS[Math.floor(r() * OPS.length)],
      inputs,
      scope || null
    );
    nodes.push(r() < 0.05 ? { ...base, kind: 'call' } : base);
  }
  return { name: `random${seed}`, nodes };
}

describe('model and layout invariants on random graphs', () => {
  for (let seed = 1; seed <= 25; seed++) {
    it(`seed ${seed}`, () => {
      const g = randomGraph(seed);
      const m = new GraphModel(g);
      m.applyDefaultExpansion();
      // small graphs are fully expanded; big ones stay near the box budget
      if (m.visible.length <= COLLAPSE_THRESHOLD) {
        expect(m.visibleItemCount()).toBe(m.visible.length);
      }
      // edges join visible nodes only, never a node to itself, never twice
      const visible = new Set(m.visible.map(n => n.id));
      const keys = new Set<string>();
      for (const [a, b] of m.edges) {
        expect(visible.has(a) && visible.has(b) && a !== b).toBe(true);
        keys.add(`${a}>${b}`);
      }
      expect(keys.size).toBe(m.edges.length);
      // every group's nodes add up to the visible count
      const counted = [...m.groups.values()].reduce((s, gr) => s + gr.nodes.length, 0);
      expect(counted).toBe(m.visible.length);
      m.storeLayouts(runLayoutJobs(m.layoutJobs()));
      expect(m.layoutJobs()).toEqual([]);
      // each visible node is drawn by exactly one box that is placed in its group layout
      for (const n of m.visible) {
        const rep = m.representative(n.id);
        const parent = rep.startsWith('n:')
          ? m.groupOfNode(n.id)
          : m.groups.get(rep.slice(2))!.parent!;
        expect(m.layouts.get(parent)!.pos[rep]).toBeDefined();
      }
      // boxes in one group never overlap
      for (const [gid, layout] of m.layouts) {
        const boxes = Object.keys(layout.pos).map(item => {
          const [cx, cy] = layout.pos[item];
          const child = m.layouts.get(item.slice(2));
          const [w, h] = item.startsWith('n:')
            ? [NODE_W, NODE_H]
            : m.isExpanded(item.slice(2)) && child
              ? [child.width, child.height]
              : [GROUP_W, GROUP_H];
          return { x: cx - w / 2, y: cy - h / 2, w, h };
        });
        for (let i = 0; i < boxes.length; i++) {
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i];
            const b = boxes[j];
            const overlap =
              a.x + a.w - 0.5 > b.x &&
              b.x + b.w - 0.5 > a.x &&
              a.y + a.h - 0.5 > b.y &&
              b.y + b.h - 0.5 > a.y;
            expect(overlap, `${gid}: boxes ${i} and ${j} overlap`).toBe(false);
          }
        }
        if (gid !== ROOT) {
          for (const b of boxes) {
            expect(
              b.x >= 0 &&
                b.y >= 0 &&
                b.x + b.w <= layout.width + 0.5 &&
                b.y + b.h <= layout.height + 0.5
            ).toBe(true);
          }
        }
      }
    });
  }
});
