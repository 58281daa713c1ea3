/**
 * The payload contract ("ascend-lab.graph/1", see ascend_lab/payload/graph.schema.json)
 * and a checker that turns untrusted JSON into typed objects with clear error messages.
 * Every string in here may come from a model file: views set them as text only.
 */

import { checkNumerics } from './numerics-types';
import type * as schema from './payload.generated';

export const SCHEMA_ID = 'ascend-lab.graph/1';

// The contract's shapes are generated from graph.schema.json (./payload.generated.ts,
// `jlpm build:viewer`; `jlpm lint` fails when it is stale): the names below are the
// viewer's names for them, never a second copy of their fields.

export type TensorType = schema.TensorType;

export type NodeKind = schema.Node['kind'];

export type GraphNode = schema.Node;

/** What a pass changed (sent with a snapshot the kernel loads on demand). */
export interface PassDiff {
  added?: string[];
  removed?: string[];
  modified?: string[];
}

export interface GraphData extends schema.Graph {
  /** Sent with a snapshot the kernel loads on demand: what its pass changed. */
  diff?: PassDiff;
}

export type Stage = schema.Pass['stage'];

export type PassInfo = schema.Pass;

export type FusionInfo = NonNullable<schema.Payload['fusion']>;

export type FusedKernel = NonNullable<FusionInfo['kernels']>[number];

export type MemoryPlan = schema.Memory;

export type MemoryTensor = MemoryPlan['tensors'][number];

/** One pairing of the alignment: node ids of A and of B (several across fusion). */
export type CompareMatch = schema.Compare['matches'][number];

export type CompareSection = schema.Compare;

export interface Payload extends schema.Payload {
  graphs: Record<string, GraphData>;
}

export class PayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function need(cond: boolean, message: string): void {
  if (!cond) {
    throw new PayloadError(message);
  }
}

const KINDS = new Set(['op', 'call', 'parameter', 'input', 'constant', 'output']);
const STAGES = new Set([
  'frontend',
  'optimize',
  'backend',
  'graph_kernel',
  'build',
  'other'
]);

function checkGraph(key: string, graph: unknown): void {
  need(isObject(graph), `graphs["${key}"] must be an object`);
  const g = graph as Record<string, unknown>;
  need(typeof g.name === 'string', `graphs["${key}"].name must be a string`);
  need(Array.isArray(g.nodes), `graphs["${key}"].nodes must be a list`);
  const seen = new Set<string>();
  (g.nodes as unknown[]).forEach((node, i) => {
    const where = `graphs["${key}"].nodes[${i}]`;
    need(isObject(node), `${where} must be an object`);
    const n = node as Record<string, unknown>;
    need(typeof n.id === 'string', `${where}.id must be a string`);
    need(typeof n.op === 'string', `${where}.op must be a string`);
    need(
      typeof n.kind === 'string' && KINDS.has(n.kind),
      `${where}.kind must be one of ${[...KINDS].join(', ')}`
    );
    need(!seen.has(n.id as string), `${where}.id "${String(n.id)}" is not unique`);
    seen.add(n.id as string);
    if (n.inputs !== undefined) {
      need(
        Array.isArray(n.inputs) &&
          (n.inputs as unknown[]).every(x => typeof x === 'string'),
        `${where}.inputs must be a list of strings`
      );
    }
    if (n.data_inputs !== undefined) {
      need(
        Array.isArray(n.data_inputs) &&
          (n.data_inputs as unknown[]).every(x => typeof x === 'string'),
        `${where}.data_inputs must be a list of strings`
      );
    }
    if (n.outputs !== undefined) {
      need(Array.isArray(n.outputs), `${where}.outputs must be a list`);
    }
    if (n.attrs !== undefined) {
      need(isObject(n.attrs), `${where}.attrs must be an object`);
    }
  });
}

/** Check the required structure of a payload; returns it typed or throws a PayloadError. */
export function checkPayload(value: unknown): Payload {
  need(isObject(value), 'the payload must be a JSON object');
  const p = value as Record<string, unknown>;
  need(
    p.schema === SCHEMA_ID,
    `unsupported payload schema ${JSON.stringify(p.schema)} (this viewer reads "${SCHEMA_ID}")`
  );
  need(
    isObject(p.meta) && typeof (p.meta as Record<string, unknown>).title === 'string',
    'meta.title must be a string'
  );
  const notes = isObject(p.meta)
    ? (p.meta as Record<string, unknown>).notes
    : undefined;
  need(
    notes === undefined ||
      (Array.isArray(notes) && (notes as unknown[]).every(x => typeof x === 'string')),
    'meta.notes must be a list of strings'
  );
  need(isObject(p.graphs), 'graphs must be an object');
  const graphs = p.graphs as Record<string, unknown>;
  for (const key of Object.keys(graphs)) {
    checkGraph(key, graphs[key]);
  }
  need(isObject(p.views), 'views must be an object');
  const views = p.views as Record<string, unknown>;
  need(typeof views.main === 'string', 'views.main must be a string');
  need(
    (views.main as string) in graphs,
    `views.main refers to a missing graph "${String(views.main)}"`
  );
  for (const side of ['before', 'after']) {
    const ref = views[side];
    if (ref !== undefined && ref !== null) {
      need(
        typeof ref === 'string' && ref in graphs,
        `views.${side} refers to a missing graph "${String(ref)}"`
      );
    }
  }
  if (p.passes !== undefined) {
    need(Array.isArray(p.passes), 'passes must be a list');
    (p.passes as unknown[]).forEach((pass, i) => {
      need(isObject(pass), `passes[${i}] must be an object`);
      const ps = pass as Record<string, unknown>;
      need(typeof ps.index === 'number', `passes[${i}].index must be an integer`);
      need(typeof ps.name === 'string', `passes[${i}].name must be a string`);
      need(
        typeof ps.stage === 'string' && STAGES.has(ps.stage),
        `passes[${i}].stage must be one of ${[...STAGES].join(', ')}`
      );
      need(
        typeof ps.changed === 'boolean',
        `passes[${i}].changed must be true or false`
      );
      if (ps.graph !== undefined && ps.graph !== null) {
        need(
          typeof ps.graph === 'string' && ps.graph in graphs,
          `passes[${i}].graph refers to a missing graph "${String(ps.graph)}"`
        );
      }
    });
  }
  if (p.fusion !== undefined && p.fusion !== null) {
    need(isObject(p.fusion), 'fusion must be an object or null');
    const kernels = (p.fusion as Record<string, unknown>).kernels;
    if (kernels !== undefined) {
      need(Array.isArray(kernels), 'fusion.kernels must be a list');
      (kernels as unknown[]).forEach((k, i) => {
        need(isObject(k), `fusion.kernels[${i}] must be an object`);
        const kk = k as Record<string, unknown>;
        need(
          typeof kk.kernel === 'string',
          `fusion.kernels[${i}].kernel must be a string`
        );
        need(typeof kk.name === 'string', `fusion.kernels[${i}].name must be a string`);
        need(
          Array.isArray(kk.originals),
          `fusion.kernels[${i}].originals must be a list`
        );
      });
    }
  }
  if (p.memory !== undefined && p.memory !== null) {
    need(isObject(p.memory), 'memory must be an object or null');
    const m = p.memory as Record<string, unknown>;
    for (const field of ['alignment', 'peak', 'lower_bound', 'no_reuse', 'steps']) {
      need(typeof m[field] === 'number', `memory.${field} must be a number`);
    }
    need(typeof m.graph === 'string', 'memory.graph must be a string');
    need(Array.isArray(m.tensors), 'memory.tensors must be a list');
    (m.tensors as unknown[]).forEach((t, i) => {
      need(isObject(t), `memory.tensors[${i}] must be an object`);
      const tt = t as Record<string, unknown>;
      for (const field of ['size', 'start', 'end', 'offset']) {
        need(
          typeof tt[field] === 'number',
          `memory.tensors[${i}].${field} must be a number`
        );
      }
      need(
        typeof tt.node === 'string' && typeof tt.id === 'string',
        `memory.tensors[${i}] needs string id and node`
      );
    });
  }
  if (p.compare !== undefined && p.compare !== null) {
    checkCompare(p.compare, graphs);
  }
  if (p.numerics !== undefined && p.numerics !== null) {
    const problem = checkNumerics(p.numerics, Object.keys(graphs));
    need(problem === null, problem ?? '');
  }
  return value as unknown as Payload;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(x => typeof x === 'string');
}

/** The `compare` section: graph keys exist, ids are strings, changes are pairs of text. */
function checkCompare(value: unknown, graphs: Record<string, unknown>): void {
  need(isObject(value), 'compare must be an object or null');
  const c = value as Record<string, unknown>;
  for (const side of ['a', 'b']) {
    need(
      typeof c[side] === 'string' && (c[side] as string) in graphs,
      `compare.${side} refers to a missing graph "${String(c[side])}"`
    );
  }
  need(
    isStringList(c.titles) && c.titles.length === 2,
    'compare.titles must be two strings'
  );
  need(isStringList(c.added), 'compare.added must be a list of strings');
  need(isStringList(c.removed), 'compare.removed must be a list of strings');
  need(Array.isArray(c.matches), 'compare.matches must be a list');
  (c.matches as unknown[]).forEach((m, i) => {
    need(isObject(m), `compare.matches[${i}] must be an object`);
    const mm = m as Record<string, unknown>;
    need(
      isStringList(mm.a) && isStringList(mm.b) && typeof mm.how === 'string',
      `compare.matches[${i}] needs lists a and b and a string how`
    );
    if (mm.changes !== undefined) {
      need(
        isObject(mm.changes) &&
          Object.values(mm.changes).every(v => isStringList(v) && v.length === 2),
        `compare.matches[${i}].changes must map fields to [A's, B's]`
      );
    }
  });
  if (c.summary !== undefined && c.summary !== null) {
    need(isObject(c.summary), 'compare.summary must be an object');
    const s = c.summary as Record<string, unknown>;
    for (const field of ['kernels', 'nodes', 'casts', 'peak', 'time_us']) {
      if (s[field] !== undefined) {
        need(
          Array.isArray(s[field]) &&
            (s[field] as unknown[]).every(v => v === null || typeof v === 'number'),
          `compare.summary.${field} must be a list of numbers`
        );
      }
    }
  }
}

export function formatShape(t: TensorType | undefined): string {
  if (!t) {
    return '';
  }
  const shape =
    t.shape === null || t.shape === undefined ? '?' : `(${t.shape.join(', ')})`;
  return t.dtype ? `${t.dtype}${shape}` : shape;
}

export function formatBytes(n: number): string {
  if (!isFinite(n)) {
    return '?';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0
    ? `${v} B`
    : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

const DTYPE_BYTES: Record<string, number> = {
  bool: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  float16: 2,
  bfloat16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  int64: 8,
  uint64: 8,
  float64: 8,
  complex64: 8,
  complex128: 16
};

/** Bytes of a node's outputs, or null when unknown. */
export function outputBytes(node: GraphNode): number | null {
  let total = 0;
  let known = false;
  for (const t of node.outputs ?? []) {
    const size = DTYPE_BYTES[(t.device_dtype ?? t.dtype ?? '').toLowerCase()];
    if (size === undefined || !t.shape || t.shape.some(d => d < 0)) {
      continue;
    }
    total += t.shape.reduce((a, b) => a * b, size);
    known = true;
  }
  return known ? total : null;
}
