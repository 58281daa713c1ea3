import { describe, expect, it } from 'vitest';
import { runLayoutJobs } from '../layout-core';
import {
  COLLAPSE_THRESHOLD,
  GraphModel,
  ROOT,
  groupItem,
  nodeItem,
  stackItem
} from '../model';
import { checkPayload, outputBytes, PayloadError } from '../types';
import { fusionLinks, indexFusion, kernelCount } from '../fusion';
import { mergeDiff, timelineSteps } from '../timeline';
import { bigGraph, bigPayload, coursePayload, node } from './payloads';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

describe('checkPayload', () => {
  it('accepts a valid payload', () => {
    const p = coursePayload();
    expect(checkPayload(p)).toBe(p);
    expect(checkPayload(bigPayload(500)).graphs.main.nodes.length).toBe(500);
  });

  const broken: Array<[string, (p: Loose) => void, RegExp]> = [
    [
      'wrong schema',
      p => (p.schema = 'ascend-lab.graph/9'),
      /unsupported payload schema/
    ],
    ['missing meta', p => delete p.meta, /meta.title/],
    [
      'missing main graph',
      p => (p.views.main = 'nope'),
      /views.main refers to a missing graph "nope"/
    ],
    [
      'node without op',
      p => delete p.graphs.before.nodes[2].op,
      /graphs\["before"\].nodes\[2\].op must be a string/
    ],
    ['bad kind', p => (p.graphs.after.nodes[0].kind = 'weird'), /kind must be one of/],
    ['duplicate id', p => (p.graphs.after.nodes[1].id = 'x'), /"x" is not unique/],
    ['bad pass stage', p => (p.passes[0].stage = 'x'), /passes\[0\].stage/],
    ['pass without changed', p => delete p.passes[1].changed, /passes\[1\].changed/],
    [
      'kernel without originals',
      p => delete p.fusion.kernels[0].originals,
      /fusion.kernels\[0\].originals/
    ],
    [
      'tensor without offset',
      p => delete p.memory.tensors[1].offset,
      /memory.tensors\[1\].offset/
    ],
    ['not an object', () => undefined, /JSON object/]
  ];
  for (const [name, breakIt, message] of broken) {
    it(`rejects: ${name}`, () => {
      const p = coursePayload() as unknown as Loose;
      breakIt(p);
      const value = name === 'not an object' ? [1, 2] : p;
      expect(() => checkPayload(value)).toThrow(PayloadError);
      expect(() => checkPayload(value)).toThrow(message);
    });
  }

  it('computes output bytes from dtype and shape', () => {
    expect(outputBytes(node('a', 'Conv2D'))).toBe(4 * 8 * 16 * 16);
    expect(
      outputBytes({
        ...node('a', 'Conv2D'),
        outputs: [{ dtype: 'Float16', shape: [-1, 3] }]
      })
    ).toBeNull();
  });
});

describe('GraphModel', () => {
  it('hides bookkeeping nodes and bridges data edges through them', () => {
    const g = {
      name: 'g',
      nodes: [
        node('a', 'Conv2D', [], 'S'),
        node('b', 'ReLU', [], 'S'),
        node('t', 'MakeTuple', ['a', 'b'], 'S'),
        node('u', 'UpdateState', ['t', 'a'], 'S'),
        node('c', 'Add', ['t', 'u'], 'S'),
        node('l', 'Load', ['c', 'u'], 'S'),
        node('d', 'Mul', ['l', 'k'], 'S'),
        { ...node('k', 'Constant', [], 'S'), kind: 'constant' as const }
      ]
    };
    const m = new GraphModel(g);
    expect(m.visible.map(n => n.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(m.edges).toEqual([
      ['a', 'c'],
      ['b', 'c'],
      ['c', 'd']
    ]);
    m.setShowBookkeeping(true);
    expect(m.visible.length).toBe(8);
    expect(m.edges).toContainEqual(['k', 'd']);
    expect(m.edges).toContainEqual(['t', 'u']);
    expect(m.edges).toContainEqual(['u', 'l']);
  });

  it('groups nodes by scope, folds one-node scopes, expands small graphs fully', () => {
    const p = coursePayload();
    const m = new GraphModel(p.graphs.before);
    m.applyDefaultExpansion();
    // Default/conv-Conv2d, bn and relu each hold one visible node: shown directly in Default
    expect([...m.groups.keys()].sort()).toEqual(['', 'Default']);
    expect(m.groups.get('Default')!.nodes.sort()).toEqual(['1', '2', '4', '5']);
    expect(m.isExpanded('Default')).toBe(true);
    expect(m.representative('4')).toBe(nodeItem('4'));
  });

  it('collapses big graphs to at most the threshold of boxes', () => {
    const m = new GraphModel(bigGraph(10000));
    // 1 input + 9999 ops, of which 999 are MakeTuple (every 10th op of a block): hidden
    expect(m.visible.length).toBe(9001);
    m.applyDefaultExpansion();
    const boxes = m.visibleItemCount();
    expect(boxes).toBeLessThanOrEqual(COLLAPSE_THRESHOLD);
    expect(boxes).toBeGreaterThan(10);
    expect(m.isExpanded('Default')).toBe(true);
    expect(m.isExpanded('Default/layer0-SequentialCell')).toBe(true);
    const blocks = [...m.groups.keys()].filter(g => g.endsWith('-Bottleneck'));
    expect(blocks.length).toBe(100);
    // the ten identical Bottlenecks of each layer are one stack drawing one of them
    expect(m.stacks.size).toBe(10);
    const drawn = blocks.filter(g => !m.isStackHidden(g));
    expect(drawn.length).toBe(10);
    const open = drawn.filter(g => m.isExpanded(g));
    expect(open.length).toBeGreaterThan(0);
    expect(open.length).toBeLessThan(10);
    const closed = drawn.find(g => !m.isExpanded(g))!;
    const inside = m.groups.get(closed)!.nodes[0];
    expect(m.representative(inside)).toBe(groupItem(closed));
    const hidden = 'Default/layer0-SequentialCell/5-Bottleneck';
    expect(m.isStackHidden(hidden)).toBe(true);
    expect(m.representative(m.groups.get(hidden)!.nodes[0])).toBe(
      stackItem('Default/layer0-SequentialCell/0-Bottleneck')
    );
    const small = new GraphModel(bigGraph(COLLAPSE_THRESHOLD));
    small.applyDefaultExpansion();
    expect([...small.groups.keys()].every(g => small.isExpanded(g))).toBe(true);
    // every node drawn once its stacks show all their instances
    expect(small.stacks.size).toBeGreaterThan(0);
    expect(small.visibleItemCount()).toBeLessThan(small.visible.length);
    for (const id of small.stacks.keys()) {
      small.showAll(id);
    }
    expect(small.visibleItemCount()).toBe(small.visible.length);
  });

  it('re-lays out only the expanded group and its ancestors', () => {
    const m = new GraphModel(bigGraph(10000));
    m.applyDefaultExpansion();
    const first = m.layoutJobs();
    expect(first[first.length - 1].group).toBe(ROOT);
    m.storeLayouts(runLayoutJobs(first));
    expect(m.layoutJobs()).toEqual([]);
    // a block drawn collapsed (the instance its layer's stack draws)
    const block = 'Default/layer6-SequentialCell/0-Bottleneck';
    expect(m.isExpanded(block)).toBe(false);
    m.setExpanded(block, true);
    const jobs = m.layoutJobs().map(j => j.group);
    expect(jobs).toEqual([block, 'Default/layer6-SequentialCell', 'Default', ROOT]);
    const blockJob = m.layoutJobs()[0];
    expect(blockJob.items.length).toBeLessThan(100);
    m.storeLayouts(runLayoutJobs(m.layoutJobs()));
    // collapse again: the block keeps its layout, only ancestors are redone
    m.setExpanded(block, false);
    expect(m.layoutJobs().map(j => j.group)).toEqual([
      'Default/layer6-SequentialCell',
      'Default',
      ROOT
    ]);
    m.reveal('n4321');
    expect(m.representative('n4321')).toBe(nodeItem('n4321'));
    // n4321 sits in a hidden instance of layer 4's stack: its stack now draws it, laid out
    // by renaming the layout of the instance drawn before (same structure, no job)
    expect(m.shownInstanceOf('Default/layer4-SequentialCell/0-Bottleneck')).toBe(
      m.groupOfNode('n4321').split('/').slice(0, 3).join('/')
    );
  });
});

describe('prefetch', () => {
  it('lays out collapsed groups ahead so an expand only redoes ancestors', () => {
    const m = new GraphModel(bigGraph(10000));
    m.applyDefaultExpansion();
    m.storeLayouts(runLayoutJobs(m.layoutJobs()));
    const block = 'Default/layer6-SequentialCell/0-Bottleneck';
    const jobs = m.prefetchJobs(500);
    expect(jobs.length).toBeGreaterThan(20);
    expect(jobs.map(j => j.group)).toContain(block);
    // only what is drawn: no instance hidden in a stack
    expect(jobs.every(j => !m.isExpanded(j.group) && !m.isStackHidden(j.group))).toBe(
      true
    );
    const ranked = m.prefetchJobs(2, g => (g === block ? 0 : 1));
    expect(ranked.map(j => j.group)[0]).toBe(block);
    m.storePrefetched(runLayoutJobs(ranked));
    expect(m.prefetchJobs(500).length).toBe(jobs.length - 2);
    m.setExpanded(block, true);
    expect(m.layoutJobs().map(j => j.group)).toEqual([
      'Default/layer6-SequentialCell',
      'Default',
      ROOT
    ]);
    // toggling bookkeeping changes every group's contents: prefetched layouts are dropped
    m.setShowBookkeeping(true);
    expect(m.prefetched.size).toBe(0);
  });
});

describe('layout', () => {
  it('places every item without overlap and sizes parents from children', () => {
    const m = new GraphModel(coursePayload().graphs.before);
    m.applyDefaultExpansion();
    const results = runLayoutJobs(m.layoutJobs());
    const def = results.find(r => r.group === 'Default')!;
    const root = results.find(r => r.group === ROOT)!;
    expect(Object.keys(def.pos).sort()).toEqual(['n:1', 'n:2', 'n:4', 'n:5']);
    const ys = ['n:1', 'n:2', 'n:4', 'n:5'].map(k => def.pos[k][1]);
    expect(ys).toEqual([...ys].sort((a, b) => a - b)); // a chain flows top to bottom
    expect(new Set(ys).size).toBe(4);
    expect(root.width).toBeGreaterThanOrEqual(def.width);
    expect(root.height).toBeGreaterThan(def.height);
  });
});

describe('fusion links and timeline steps', () => {
  it('links kernels and originals many-to-many', () => {
    const index = indexFusion({
      kernels: [
        { kernel: 'k1', name: 'Fused_A', originals: ['a', 'b'] },
        { kernel: 'k2', name: 'Fused_B', originals: ['b', 'c'] }
      ]
    });
    expect(fusionLinks(index, 'after', 'k1')).toEqual({
      before: ['a', 'b'],
      after: ['k1']
    });
    expect(fusionLinks(index, 'before', 'b')).toEqual({
      before: ['a', 'b', 'c'],
      after: ['k1', 'k2']
    });
    expect(fusionLinks(index, 'before', 'zz')).toEqual({ before: [], after: [] });
    expect(fusionLinks(index, 'after', 'a')).toEqual({ before: [], after: [] });
  });

  it('counts kernels without bookkeeping or parameters', () => {
    const p = coursePayload();
    expect(kernelCount(p.graphs.before)).toBe(4);
    expect(kernelCount(p.graphs.after)).toBe(3);
  });

  it('takes bookkeeping from the payload, not from the op name', () => {
    const graph = {
      name: 'g',
      nodes: [
        node('1', 'Load', [], 'Default', { bookkeeping: false }),
        node('2', 'SomeNewMonadOp', [], 'Default', { bookkeeping: true }),
        node('3', 'ReLU', ['1'], 'Default')
      ]
    };
    expect(kernelCount(graph)).toBe(2);
  });

  it('skips unchanged passes but keeps the first', () => {
    const passes = coursePayload().passes!;
    expect(timelineSteps(passes, false)).toEqual([0, 1, 2, 3]);
    expect(timelineSteps(passes, true)).toEqual([0, 2, 3]);
  });
});

describe('mergeDiff', () => {
  it('fills a lazily built pass from the snapshot the kernel sent', () => {
    const pass = {
      index: 3,
      name: '12_auto_monad',
      stage: 'frontend' as const,
      changed: true
    };
    mergeDiff(pass, { added: ['%4'], removed: ['Default/Load'], modified: [] });
    expect(pass).toMatchObject({
      added: ['%4'],
      removed: ['Default/Load'],
      modified: []
    });
  });

  it('keeps a diff the payload already had and ignores a missing one', () => {
    const pass = {
      index: 1,
      name: 'p',
      stage: 'build' as const,
      changed: true,
      added: ['a']
    };
    mergeDiff(pass, { added: ['b'], modified: ['c'] });
    mergeDiff(pass, undefined);
    expect(pass).toMatchObject({ added: ['a'], modified: ['c'] });
  });
});
