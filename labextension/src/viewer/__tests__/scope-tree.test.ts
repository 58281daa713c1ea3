import { describe, expect, it } from 'vitest';
import { GraphModel } from '../model';
import { ROOT, groupItem, nodeItem } from '../layout-types';
import { ScopeTree, displayScope, scopeOf } from '../scope-tree';
import { GraphNode } from '../types';
import { node } from './payloads';

/** A tree over `nodes` drawn in their own scopes, edges from their inputs. */
function treeOf(nodes: GraphNode[]): ScopeTree {
  const edges: Array<[string, string]> = [];
  for (const n of nodes) {
    for (const i of n.inputs ?? []) {
      edges.push([i, n.id]);
    }
  }
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  return new ScopeTree(nodes, edges, scopeOf, index);
}

describe('the scope tree', () => {
  it('nests groups by scope path and counts the nodes below each', () => {
    const t = treeOf([
      node('a', 'Conv2D', [], 'Default/block/conv'),
      node('b', 'ReLU', ['a'], 'Default/block/conv'),
      node('c', 'Add', ['b'], 'Default/block'),
      node('d', 'Neg', ['c'], 'Default/other'),
      node('e', 'Mul', ['d'], 'Default/other')
    ]);
    expect([...t.groups.keys()].sort()).toEqual([
      ROOT,
      'Default',
      'Default/block',
      'Default/block/conv',
      'Default/other'
    ]);
    expect(t.groups.get('Default')!.count).toBe(5);
    expect(t.groups.get('Default/block')!.count).toBe(3);
    expect(t.groups.get('Default/block/conv')!.depth).toBe(3);
    expect(t.groupOfNode('a')).toBe('Default/block/conv');
    expect(t.chain('Default/block/conv')).toEqual([
      ROOT,
      'Default',
      'Default/block',
      'Default/block/conv'
    ]);
    expect(t.subtreeGroups('Default/block')).toEqual([
      'Default/block',
      'Default/block/conv'
    ]);
    // a node the tree does not hold sits at the top level
    expect(t.groupOfNode('nowhere')).toBe(ROOT);
  });

  it('folds a group holding one node into its parent', () => {
    const t = treeOf([
      node('a', 'Conv2D', [], 'Default/conv-Conv2d'),
      node('b', 'ReLU', ['a'], 'Default/relu-ReLU'),
      node('c', 'Add', ['b'], 'Default/add-Add')
    ]);
    expect([...t.groups.keys()].sort()).toEqual([ROOT, 'Default']);
    expect(t.groups.get('Default')!.nodes).toEqual(['a', 'b', 'c']);
    expect(t.groupOfNode('b')).toBe('Default');
  });

  it('keeps each edge in the lowest group holding both ends, as item edges', () => {
    const t = treeOf([
      node('a', 'Conv2D', [], 'Default/x'),
      node('b', 'ReLU', ['a'], 'Default/x'),
      node('c', 'Add', ['b'], 'Default/y'),
      node('d', 'Neg', ['c'], 'Default/y'),
      node('e', 'Mul', ['b', 'd'], 'Default/y')
    ]);
    expect(t.itemEdges('Default/x')).toEqual([[nodeItem('a'), nodeItem('b')]]);
    // b -> c and b -> e cross from x to y: one edge between the two groups
    expect(t.itemEdges('Default')).toEqual([
      [groupItem('Default/x'), groupItem('Default/y')]
    ]);
    expect(t.itemEdges(ROOT)).toEqual([]);
    expect(t.subtreeNodes('Default', id => id.toUpperCase())).toEqual([
      { id: 'a', op: 'A', path: 'x' },
      { id: 'b', op: 'B', path: 'x' },
      { id: 'c', op: 'C', path: 'y' },
      { id: 'd', op: 'D', path: 'y' },
      { id: 'e', op: 'E', path: 'y' }
    ]);
  });

  it('cuts a scope too long for a screen into artificial layers, in graph order', () => {
    const nodes = [node('op0', 'Concat', [], 'Default')];
    for (let i = 1; i < 200; i++) {
      nodes.push(node(`op${i}`, 'Concat', [`op${i - 1}`], 'Default'));
    }
    // handed over in another order: the layers follow the graph's
    const index = new Map(nodes.map((n, i) => [n.id, i]));
    const edges = nodes.slice(1).map((n, i): [string, string] => [`op${i}`, n.id]);
    const t = new ScopeTree(nodes.slice().reverse(), edges, scopeOf, index);
    const layers = t.groups.get('Default')!.children;
    expect(layers.length).toBeGreaterThan(1);
    expect(layers.every(c => t.groups.get(c)!.artificial)).toBe(true);
    expect(t.groups.get('Default')!.nodes).toEqual([]);
    expect(t.groups.get(layers[0])!.nodes[0]).toBe('op0');
    expect(t.groupOfNode('op0')).toBe(layers[0]);
    expect(t.groups.get(layers[0])!.label).toBe('ops 1\u201340');
  });

  it('places a fused-kernel call of an old payload where its op neighbours are', () => {
    const B = 'Default/layer1/0-Bottleneck';
    const c1 = node('c1', 'Conv2D', [], `${B}/conv1-Conv2d`);
    const c2 = node('c2', 'Conv2D', ['k'], `${B}/conv2-Conv2d`);
    const k = { ...node('k', 'Fused_ReLU', ['c1'], 'Default'), kind: 'call' as const };
    const around = {
      byId: new Map([c1, c2, k].map(n => [n.id, n])),
      preds: new Map([['k', ['c1']]]),
      succs: new Map([['k', ['c2']]])
    };
    expect(displayScope(k, around)).toBe(B);
    // a repaired scope (ascend_lab.analysis.scopes) wins; plain ops keep their own
    expect(displayScope({ ...k, repaired_scope: '/Default/head/' }, around)).toBe(
      'Default/head'
    );
    expect(displayScope(c1, around)).toBe(`${B}/conv1-Conv2d`);
  });
});

describe('the scope tree in the graph model', () => {
  it('draws a fused kernel call in the scope its neighbours share', () => {
    const B = 'Default/layer1/0-Bottleneck';
    const g = {
      name: 'g',
      nodes: [
        node('c1', 'Conv2D', [], `${B}/conv1-Conv2d`),
        node('b1', 'BatchNorm', ['c1'], `${B}/bn1-BatchNorm2d`),
        { ...node('k', 'Fused_ReLU', ['b1'], 'Default'), kind: 'call' as const },
        node('c2', 'Conv2D', ['k'], `${B}/conv2-Conv2d`),
        { ...node('k2', 'Fused_Add', ['c2', 'c1'], 'Default'), kind: 'call' as const },
        node('n', 'Neg', ['k2'], 'Other')
      ]
    };
    const m = new GraphModel(g);
    expect(m.groupOfNode('k')).toBe(B);
    // a call between two blocks, fed by another call: placed by its op neighbours only
    const chain = {
      name: 'chain',
      nodes: [
        node('a1', 'Conv2D', [], 'Default/layers/0-Block/conv'),
        node('a2', 'BatchNorm', ['a1'], 'Default/layers/0-Block/bn'),
        { ...node('add0', 'Fused_Add_ReLU', ['a2'], 'Default'), kind: 'call' as const },
        node('b1', 'Conv2D', ['add0'], 'Default/layers/1-Block/conv'),
        node('b2', 'BatchNorm', ['b1'], 'Default/layers/1-Block/bn'),
        {
          ...node('add1', 'Fused_Add_ReLU', ['b2', 'add0'], 'Default'),
          kind: 'call' as const
        }
      ]
    };
    const mc = new GraphModel(chain);
    expect(mc.groupOfNode('add0')).toBe('Default/layers');
    expect(mc.groupOfNode('add1')).toBe('Default/layers/1-Block');
    // neighbours in different top-level scopes share nothing deeper: stays where it was
    expect(m.displayScope(m.byId.get('k2')!)).toBe('Default');
    expect(m.byId.get('k')!.scope).toBe('Default');
  });
});
