/**
 * The sizes, ids and job shapes that the graph model, the layout (in the worker) and the
 * graph pane share: plain constants and types, no code that needs the DOM or the model.
 */
import { NODE_H, NODE_W } from './layers';

/** Above this many visible boxes, groups start collapsed. */
export const COLLAPSE_THRESHOLD = 300;

export { NODE_H, NODE_W };
export const GROUP_W = 190;
export const GROUP_H = 48;
export const GROUP_PAD = 14;
export const GROUP_HEADER = 22;

export const ROOT = '';

/** Sibling groups of one class with one structure stack from this many instances on. */
export const STACK_MIN = 3;
/** A stack's frame: header row, padding around the instance drawn, cards peeking out. */
export const STACK_HEADER = 34;
export const STACK_PAD = 8;
export const STACK_CARD = 9;
export const STACK_CARDS = 2;

export interface ScopeGroup {
  id: string;
  label: string;
  parent: string | null;
  depth: number;
  children: string[];
  nodes: string[];
  /** visible nodes anywhere below */
  count: number;
  /** an artificial layer ("ops 1–40") of a scope holding too much at once (layers.ts) */
  artificial?: boolean;
}

export interface LayoutItem {
  id: string;
  w: number;
  h: number;
  /** size comes from the job of this group in the same batch */
  ref?: string;
  /** added to the referenced group's size (a stack around its drawn instance) */
  pad?: [number, number];
}

export interface LayoutJob {
  group: string;
  items: LayoutItem[];
  edges: Array<[string, string]>;
}

export interface GroupLayout {
  group: string;
  width: number;
  height: number;
  /** item id -> centre, relative to the group's top-left corner */
  pos: Record<string, [number, number]>;
}

export const nodeItem = (id: string): string => `n:${id}`;
export const groupItem = (id: string): string => `g:${id}`;
export const stackItem = (id: string): string => `k:${id}`;

/** Size of a stack drawn around an instance of size (w, h). */
export function stackSize(w: number, h: number): [number, number] {
  const cards = STACK_CARD * STACK_CARDS;
  return [w + 2 * STACK_PAD + cards, h + STACK_HEADER + STACK_PAD + cards];
}
