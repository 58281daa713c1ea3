/**
 * The payload's optional `numerics` section (ascend_lab.compare_numerics): per node of one
 * graph, the numeric error of the Cell call it belongs to, and both sides' statistics.
 * Payloads without it show as before.
 */

import type * as schema from './payload.generated';

// generated from graph.schema.json (see ./types.ts)
export type NumericsStats = schema.NumericsStats;

export type NumericsNode = schema.Numerics['nodes'][string];

export type NumericsSection = schema.Numerics;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function numberOrNull(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'number';
}

/** An error message when the section cannot be shown, else null. */
export function checkNumerics(value: unknown, graphKeys: string[]): string | null {
  if (!isObject(value)) {
    return 'numerics must be an object or null';
  }
  if (typeof value.graph !== 'string' || !graphKeys.includes(value.graph)) {
    return `numerics.graph refers to a missing graph "${String(value.graph)}"`;
  }
  const titles = value.titles;
  if (
    !Array.isArray(titles) ||
    titles.length !== 2 ||
    !titles.every(x => typeof x === 'string')
  ) {
    return 'numerics.titles must be two strings';
  }
  if (!(
    value.first_divergence === null || typeof value.first_divergence === 'string'
  )) {
    return 'numerics.first_divergence must be a node id or null';
  }
  if (!isObject(value.nodes)) {
    return 'numerics.nodes must be an object';
  }
  for (const [id, e] of Object.entries(value.nodes)) {
    if (
      !isObject(e) ||
      typeof e.cell !== 'string' ||
      typeof e.diverged !== 'boolean' ||
      !numberOrNull(e.max_rel) ||
      !numberOrNull(e.max_abs) ||
      !numberOrNull(e.cosine)
    ) {
      return `numerics.nodes["${id}"] needs cell, diverged and numbers`;
    }
  }
  return null;
}
