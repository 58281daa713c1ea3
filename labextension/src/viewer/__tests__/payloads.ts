// Synthetic payloads ("ascend-lab.graph/1") for the unit tests.
import { GraphData, GraphNode, Payload } from '../types';

export const XSS = '<img src=x onerror=alert(1)>';

export function node(
  id: string,
  op: string,
  inputs: string[] = [],
  scope: string | null = 'Default',
  extra: Partial<GraphNode> = {}
): GraphNode {
  const bookkeeping = [
    'Load',
    'UpdateState',
    'Depend',
    'MakeTuple',
    'TupleGetItem',
    'Return',
    'MakeTupleV2'
  ].includes(op);
  return {
    id,
    op,
    kind: 'op',
    name: scope ? `${scope}/${op}-${id}` : null,
    scope,
    bookkeeping,
    inputs,
    outputs: [
      {
        dtype: 'Float32',
        shape: [1, 8, 16, 16],
        device_dtype: 'float32',
        format: 'NCHW'
      }
    ],
    input_types: [],
    attrs: { pad_mode: 'same' },
    source: ['net.py:12'],
    subgraph: null,
    step: null,
    ...extra
  };
}

/** The course's Conv2d + BN + ReLU net, before and after a fusion, with passes and memory. */
export function coursePayload(): Payload {
  const before: GraphData = {
    name: 'kernel_graph_before',
    nodes: [
      { ...node('x', 'Parameter', [], null), kind: 'input' },
      { ...node('w', 'Parameter', [], null), kind: 'parameter' },
      node('1', 'Conv2D', ['x', 'w'], 'Default/conv-Conv2d'),
      node('2', 'BatchNorm', ['1'], 'Default/bn-BatchNorm2d'),
      node('3', 'TupleGetItem', ['2'], 'Default/bn-BatchNorm2d'),
      node('4', 'ReLU', ['3'], 'Default/relu-ReLU'),
      node('5', XSS, ['4'], 'Default'),
      node('6', 'Return', ['5'], null)
    ]
  };
  const after: GraphData = {
    name: 'kernel_graph_after',
    nodes: [
      { ...node('x', 'Parameter', [], null), kind: 'input' },
      { ...node('w', 'Parameter', [], null), kind: 'parameter' },
      node('1', 'Conv2D', ['x', 'w'], 'Default/conv-Conv2d', { step: 0 }),
      {
        ...node('k1', 'Fused_BatchNorm_ReLU_fusion', ['1'], 'Default', { step: 1 }),
        kind: 'call',
        subgraph: 'Fused_BatchNorm_ReLU_fusion'
      },
      node('5', XSS, ['k1'], 'Default', { step: 2 }),
      node('6', 'Return', ['5'], null)
    ]
  };
  return {
    schema: 'ascend-lab.graph/1',
    meta: {
      title: 'Conv2d + BN + ReLU',
      device: 'CPU',
      fusion: true,
      source: 'synthetic'
    },
    graphs: { before, after },
    views: { main: 'after', before: 'before', after: 'after' },
    passes: [
      {
        index: 0,
        name: '00_bootstrap',
        stage: 'frontend',
        graph: 'before',
        changed: true,
        added: ['1', '2'],
        removed: [],
        modified: []
      },
      {
        index: 1,
        name: '01_type_inference',
        stage: 'frontend',
        graph: null,
        changed: false
      },
      {
        index: 2,
        name: 'graph_kernel_cluster',
        stage: 'graph_kernel',
        graph: 'after',
        changed: true,
        added: ['k1'],
        removed: ['Default/bn-BatchNorm2d/BatchNorm'],
        modified: ['5']
      },
      {
        index: 3,
        name: 'hwopt_d_after',
        stage: 'backend',
        graph: null,
        changed: true,
        added: [],
        removed: [],
        modified: []
      }
    ],
    fusion: {
      kernels: [
        {
          kernel: 'k1',
          name: 'Fused_BatchNorm_ReLU_fusion',
          originals: ['2', '4'],
          ops: ['BatchNorm', 'ReLU']
        }
      ],
      kernel_count_before: 4,
      kernel_count_after: 3
    },
    memory: {
      graph: 'after',
      alignment: 512,
      strategy: 'greedy-by-size',
      peak: 16384,
      lower_bound: 16384,
      no_reuse: 24576,
      steps: 3,
      live_bytes: [8192, 16384, 16384],
      tensors: [
        {
          id: 't1',
          node: '1',
          label: 'Conv2D out',
          size: 8192,
          start: 0,
          end: 1,
          offset: 0
        },
        {
          id: 't2',
          node: 'k1',
          label: 'fused out',
          size: 8192,
          start: 1,
          end: 2,
          offset: 8192
        },
        { id: 't3', node: '5', size: 8192, start: 2, end: 2, offset: 0 }
      ]
    }
  };
}

/** A big graph with nested scopes: stages x blocks x ops, plus bookkeeping nodes. */
export function bigGraph(total = 10000, stages = 10, blocks = 10): GraphData {
  const nodes: GraphNode[] = [{ ...node('in', 'Parameter', [], null), kind: 'input' }];
  const perBlock = Math.max(2, Math.floor(total / (stages * blocks)));
  let prev = 'in';
  let n = 0;
  for (let s = 0; s < stages && nodes.length < total; s++) {
    for (let b = 0; b < blocks && nodes.length < total; b++) {
      const scope = `Default/layer${s}-SequentialCell/${b}-Bottleneck`;
      for (let i = 0; i < perBlock && nodes.length < total; i++) {
        const id = `n${n++}`;
        const op =
          i % 10 === 9 ? 'MakeTuple' : ['Conv2D', 'BatchNorm', 'ReLU', 'Add'][i % 4];
        const unit = Math.floor(i / 4);
        nodes.push(
          node(id, op, [prev], unit % 3 === 0 ? `${scope}/unit${unit}-Conv2d` : scope)
        );
        prev = id;
      }
    }
  }
  return { name: `synthetic_${total}`, nodes };
}

export function bigPayload(total = 10000): Payload {
  const g = bigGraph(total);
  return {
    schema: 'ascend-lab.graph/1',
    meta: { title: `synthetic ${total}` },
    graphs: { main: g },
    views: { main: 'main' }
  };
}
