import { describe, expect, it } from 'vitest';
import { runLayoutJobs } from '../layout-core';
import {
  GraphModel,
  ROOT,
  blockClass,
  findStacks,
  groupItem,
  nodeItem,
  stackItem,
  structureSignature
} from '../model';
import { GraphData, GraphNode } from '../types';
import { node } from './payloads';

const LIST = 'Default/blocks-CellList';
const block = (l: number): string => `${LIST}/${l}-Block`;

/**
 * A Llama-style decoder as MindSpore scopes it: embedding, `layers` Blocks (norm,
 * attention with projections and a rotary input shared by all layers, residual adds,
 * SwiGLU), final norm and head. Block `odd` gets one extra op (a different structure).
 */
function decoderGraph(layers: number, odd = -1): GraphData {
  const nodes: GraphNode[] = [{ ...node('tok', 'Parameter', [], null), kind: 'input' }];
  const add = (id: string, op: string, inputs: string[], scope: string): string => {
    nodes.push(node(id, op, inputs, scope));
    return id;
  };
  let prev = add('emb', 'Gather', ['tok'], 'Default/embed-Embedding');
  add('emb.r', 'Reshape', ['emb'], 'Default/embed-Embedding');
  prev = 'emb.r';
  add('rope', 'Cos', ['tok'], 'Default');
  for (let l = 0; l < layers; l++) {
    const sc = block(l);
    const id = (x: string): string => `${l}.${x}`;
    add(id('n1'), 'Mul', [prev], `${sc}/attn_norm-RMSNorm`);
    add(id('n2'), 'Rsqrt', [id('n1')], `${sc}/attn_norm-RMSNorm`);
    add(id('q'), 'MatMul', [id('n2')], `${sc}/attn-Attention/q_proj-Dense`);
    add(id('qr'), 'Reshape', [id('q')], `${sc}/attn-Attention/q_proj-Dense`);
    add(id('k'), 'MatMul', [id('n2')], `${sc}/attn-Attention/k_proj-Dense`);
    add(id('kr'), 'Reshape', [id('k')], `${sc}/attn-Attention/k_proj-Dense`);
    add(id('rot'), 'Mul', [id('qr'), 'rope'], `${sc}/attn-Attention`);
    add(id('s'), 'BatchMatMul', [id('rot'), id('kr')], `${sc}/attn-Attention`);
    add(id('sm'), 'Softmax', [id('s')], `${sc}/attn-Attention`);
    add(id('o'), 'MatMul', [id('sm')], `${sc}/attn-Attention/o_proj-Dense`);
    add(id('or'), 'Reshape', [id('o')], `${sc}/attn-Attention/o_proj-Dense`);
    add(id('r1'), 'Add', [prev, id('or')], sc);
    add(id('m1'), 'Mul', [id('r1')], `${sc}/mlp_norm-RMSNorm`);
    add(id('m2'), 'Rsqrt', [id('m1')], `${sc}/mlp_norm-RMSNorm`);
    add(id('g'), 'MatMul', [id('m2')], `${sc}/mlp-SwiGLU`);
    add(id('sg'), 'Sigmoid', [id('g')], `${sc}/mlp-SwiGLU`);
    add(id('d'), 'MatMul', [id('sg')], `${sc}/mlp-SwiGLU`);
    prev = add(id('r2'), 'Add', [id('r1'), id('d')], sc);
    if (l === odd) {
      prev = add(id('x'), 'Dropout', [prev], sc);
    }
  }
  add('f1', 'Mul', [prev], 'Default/norm-RMSNorm');
  add('f2', 'Rsqrt', ['f1'], 'Default/norm-RMSNorm');
  add('head', 'MatMul', ['f2'], 'Default/lm_head-Dense');
  add('out', 'Reshape', ['head'], 'Default/lm_head-Dense');
  return { name: 'decoder', nodes };
}

/** Lay out what the model asks for, as the pane does. */
function layOut(m: GraphModel): void {
  m.storeLayouts(runLayoutJobs(m.layoutJobs()));
}

describe('structure signatures (pure)', () => {
  const sig = (ops: string[], edges: Array<[number, number]>, prefix: string): string =>
    structureSignature(
      ops.map((op, i) => ({ id: `${prefix}${i}`, op, path: i < 2 ? 'norm' : '' })),
      edges.map(([a, b]) => [`${prefix}${a}`, `${prefix}${b}`] as [string, string])
    );
  const ops = ['Mul', 'Rsqrt', 'MatMul', 'Add'];
  const chain: Array<[number, number]> = [
    [0, 1],
    [1, 2],
    [2, 3]
  ];

  it('is the same for two instances whatever their node ids', () => {
    expect(sig(ops, chain, 'a')).toBe(sig(ops, chain, 'b'));
  });

  it('differs when an op, a scope or the wiring differs', () => {
    const base = sig(ops, chain, 'a');
    expect(sig(['Mul', 'Rsqrt', 'MatMul', 'Sub'], chain, 'b')).not.toBe(base);
    expect(
      sig(
        ops,
        [
          [0, 1],
          [0, 2],
          [2, 3]
        ],
        'b'
      )
    ).not.toBe(base);
    const moved = structureSignature(
      ops.map((op, i) => ({ id: `c${i}`, op, path: i < 1 ? 'norm' : '' })),
      chain.map(([a, b]) => [`c${a}`, `c${b}`] as [string, string])
    );
    expect(moved).not.toBe(base);
  });

  it('ignores edges that leave the subtree', () => {
    const nodes = [
      { id: 'a', op: 'Mul', path: '' },
      { id: 'b', op: 'Add', path: '' }
    ];
    expect(structureSignature(nodes, [['a', 'b']])).toBe(
      structureSignature(nodes, [
        ['a', 'b'],
        ['outside', 'a'],
        ['b', 'elsewhere']
      ])
    );
  });
});

describe('findStacks (pure)', () => {
  it('stacks runs of list members of one class and one signature, in index order', () => {
    const labels = [
      'embed-Embedding',
      '3-Block',
      '2-Block',
      '0-Block',
      '1-Block',
      '10-Block',
      '11-Block'
    ];
    const children = labels.map(label => ({ id: `P/${label}`, label }));
    const stacks = findStacks('P', children, () => 'same', 3);
    // 10 and 11 follow a gap: a run of two, too short
    expect(stacks).toEqual([
      {
        id: 'P/0-Block',
        parent: 'P',
        label: 'Block',
        members: ['P/0-Block', 'P/1-Block', 'P/2-Block', 'P/3-Block']
      }
    ]);
    expect(blockClass('12-Block')).toBe('Block');
    expect(blockClass('attn_norm-RMSNorm')).toBe('RMSNorm');
  });

  it('leaves out a member whose structure differs, and too short lists', () => {
    const children = ['0-Block', '1-Block', '2-Block', '3-Block'].map(label => ({
      id: label,
      label
    }));
    const stacks = findStacks('', children, id =>
      id === '0-Block' ? 'wider' : 'same'
    );
    expect(stacks.map(s => s.members)).toEqual([['1-Block', '2-Block', '3-Block']]);
    expect(findStacks('', children.slice(0, 2), () => 'same')).toEqual([]);
  });

  it("breaks runs at ResNet's downsampling Bottlenecks, keeping the flow in order", () => {
    const down = new Set([0, 3, 7, 13]);
    const children = Array.from({ length: 16 }, (_, i) => ({
      id: `L/${i}-Bottleneck`,
      label: `${i}-Bottleneck`
    }));
    const stacks = findStacks('L', children, id =>
      down.has(Number(id.slice(2).split('-')[0])) ? 'down' : 'identity'
    );
    expect(stacks.map(st => st.members.map(m => m.slice(2)))).toEqual([
      ['4-Bottleneck', '5-Bottleneck', '6-Bottleneck'],
      [
        '8-Bottleneck',
        '9-Bottleneck',
        '10-Bottleneck',
        '11-Bottleneck',
        '12-Bottleneck'
      ]
    ]);
  });

  it('never stacks named attributes (attn_norm and mlp_norm, layer1 … layer4)', () => {
    const labels = ['layer1-Seq', 'layer2-Seq', 'layer3-Seq', 'a-RMSNorm', 'b-RMSNorm'];
    const called: string[] = [];
    const stacks = findStacks(
      '',
      labels.map(label => ({ id: label, label })),
      id => {
        called.push(id);
        return 'same';
      }
    );
    expect(stacks).toEqual([]);
    expect(called).toEqual([]);
  });
});

describe('repeated-block stacks in the graph model', () => {
  it('finds the layers of a decoder, minus the one that differs', () => {
    const m = new GraphModel(decoderGraph(6, 4));
    expect([...m.stacks.values()]).toEqual([
      {
        id: block(0),
        parent: LIST,
        label: 'Block',
        members: [0, 1, 2, 3].map(block)
      }
    ]);
    expect(m.signature(block(1))).toBe(m.signature(block(2)));
    expect(m.signature(block(4))).not.toBe(m.signature(block(1)));
    expect(m.isStackHidden(block(0))).toBe(false);
    expect(m.isStackHidden(block(3))).toBe(true);
    expect(m.isStackHidden(block(4))).toBe(false);
    // after the odd layer the run is broken: layer 5 is drawn on its own
    expect(m.isStackHidden(block(5))).toBe(false);
    expect(m.stackFor(block(5))).toBeUndefined();
  });

  it('lays out a stack before a layer that differs, in the order of the data flow', () => {
    const m = new GraphModel(decoderGraph(6, 4));
    m.applyDefaultExpansion();
    const list = m.layoutJobs().find(j => j.group === LIST)!;
    const k = stackItem(block(0));
    expect(list.items.map(i => i.id)).toEqual([
      k,
      groupItem(block(4)),
      groupItem(block(5))
    ]);
    expect(list.edges).toEqual([
      [k, groupItem(block(4))],
      [groupItem(block(4)), groupItem(block(5))]
    ]);
  });

  it('draws one instance expanded in the stack and routes edges through the stack', () => {
    const m = new GraphModel(decoderGraph(8));
    m.applyDefaultExpansion();
    expect(m.isExpanded(block(0))).toBe(true);
    // the list draws one item: the stack, sized from its instance's layout
    const jobs = m.layoutJobs();
    const list = jobs.find(j => j.group === LIST)!;
    expect(list.items.map(i => i.id)).toEqual([stackItem(block(0))]);
    expect(list.items[0].ref).toBe(block(0));
    expect(jobs.map(j => j.group)).not.toContain(block(3));
    // Default: embedding -> the list (the stack) -> final norm; rotary feeds every layer
    const def = jobs.find(j => j.group === 'Default')!;
    const k = stackItem(block(0));
    const listItem = groupItem(LIST);
    expect(def.edges).toContainEqual([groupItem('Default/embed-Embedding'), listItem]);
    expect(def.edges).toContainEqual([nodeItem('rope'), listItem]);
    expect(def.edges).toContainEqual([listItem, groupItem('Default/norm-RMSNorm')]);
    expect(def.edges.some(([a, b]) => a === b)).toBe(false);
    // node edges as drawn: into the drawn instance, out of the hidden last layer
    expect(m.representative('3.q')).toBe(k);
    expect(m.representative('0.q')).toBe(nodeItem('0.q'));
    expect(m.drawnEdge('emb.r', '0.n1')).toEqual([nodeItem('emb.r'), nodeItem('0.n1')]);
    expect(m.drawnEdge('7.r2', 'f1')).toEqual([k, nodeItem('f1')]);
    expect(m.drawnEdge('rope', '0.rot')).toEqual([nodeItem('rope'), nodeItem('0.rot')]);
    expect(m.drawnEdge('rope', '5.rot')).toEqual([nodeItem('rope'), k]);
    // between instances: inside the stack, not drawn
    expect(m.drawnEdge('0.r2', '1.n1')).toBeNull();
    expect(m.drawnEdge('2.r2', '3.n1')).toBeNull();
    layOut(m);
    const size = m.layouts.get(block(0))!;
    const stackBox = m.layouts.get(LIST)!;
    expect(stackBox.width).toBeGreaterThan(size.width);
    expect(stackBox.height).toBeGreaterThan(size.height);
    // one stack header and one instance instead of eight blocks
    expect(m.visibleItemCount()).toBeLessThan(m.visible.length / 4);
  });

  it('steps to another layer without a layout run: the drawn layer is renamed', () => {
    const m = new GraphModel(decoderGraph(8));
    m.applyDefaultExpansion();
    layOut(m);
    const before = m.layouts.get(block(0))!;
    const attn = m.layouts.get(`${block(0)}/attn-Attention`)!;
    expect(m.stepInstance(block(0), 1)).toBe(block(1));
    expect(m.layoutJobs()).toEqual([]);
    const after = m.layouts.get(block(1))!;
    expect([after.width, after.height]).toEqual([before.width, before.height]);
    expect(after.pos[nodeItem('1.r1')]).toEqual(before.pos[nodeItem('0.r1')]);
    expect(after.pos[groupItem(`${block(1)}/attn-Attention`)]).toEqual(
      before.pos[groupItem(`${block(0)}/attn-Attention`)]
    );
    expect(m.layouts.get(`${block(1)}/attn-Attention`)!.pos[nodeItem('1.sm')]).toEqual(
      attn.pos[nodeItem('0.sm')]
    );
    expect(m.isExpanded(`${block(1)}/attn-Attention`)).toBe(
      m.isExpanded(`${block(0)}/attn-Attention`)
    );
    expect(m.representative('1.sm')).toBe(nodeItem('1.sm'));
    expect(m.representative('0.sm')).toBe(stackItem(block(0)));
    // a selection follows to the same place in the next layer
    expect(m.twinNode('0.sm', block(0), block(1))).toBe('1.sm');
    expect(m.twinNode('0.r2', block(0), block(5))).toBe('5.r2');
    expect(m.twinNode('emb', block(0), block(1))).toBeNull();
    // backwards wraps around to the last layer
    expect(m.stepInstance(block(0), -2)).toBe(block(7));
    expect(m.layoutJobs()).toEqual([]);
  });

  it('opens the layer a search hit or a selection is in (reveal)', () => {
    const m = new GraphModel(decoderGraph(8));
    m.applyDefaultExpansion();
    layOut(m);
    expect(m.reveal('5.sg')).toBe(true);
    expect(m.shownInstanceOf(block(0))).toBe(block(5));
    expect(m.representative('5.sg')).toBe(nodeItem('5.sg'));
    // expanding a hidden layer directly draws it too
    m.setExpanded(block(6), true);
    expect(m.shownInstanceOf(block(0))).toBe(block(6));
    expect(m.isExpanded(block(6))).toBe(true);
  });

  it('shows all layers on request, each opening like the drawn one, and stacks again', () => {
    const m = new GraphModel(decoderGraph(8));
    m.applyDefaultExpansion();
    layOut(m);
    m.showAll(block(0));
    const list = m.layoutJobs().find(j => j.group === LIST)!;
    expect(list.items.map(i => i.id)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map(l => groupItem(block(l)))
    );
    expect(list.edges).toContainEqual([groupItem(block(2)), groupItem(block(3))]);
    expect(m.representative('3.q')).not.toBe(stackItem(block(0)));
    expect(m.drawnEdge('2.r2', '3.n1')).not.toBeNull();
    layOut(m);
    m.restack(block(0));
    expect(m.representative('3.q')).toBe(stackItem(block(0)));
    expect(
      m
        .layoutJobs()
        .find(j => j.group === LIST)!
        .items.map(i => i.id)
    ).toEqual([stackItem(block(0))]);
  });

  it('keeps the drawn layer when bookkeeping is shown (a rebuild)', () => {
    const m = new GraphModel(decoderGraph(5));
    m.applyDefaultExpansion();
    m.showInstance(block(0), block(2));
    m.setShowBookkeeping(true);
    expect(m.shownInstanceOf(block(0))).toBe(block(2));
    expect(m.layoutJobs().some(j => j.group === ROOT)).toBe(true);
  });
});
