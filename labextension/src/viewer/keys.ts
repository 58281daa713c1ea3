/**
 * Keyboard and pointer activation of one graph drawing: arrow keys move the focus to the
 * nearest drawn box in that direction, Enter / Space (or a click) opens a group, selects a
 * node or presses a stack's button, + / - zoom, F fits, Escape clears the selection. What a
 * key means is decided here (pure, unit-tested in __tests__/keys.test.ts); the pane does it.
 */
import type { Box, StackAction } from './graph-boxes';
import { nodeItem } from './layout-types';

export type Direction = 'up' | 'down' | 'left' | 'right';

export const ARROWS: Readonly<Record<string, Direction>> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right'
};

/** Boxes the focus can land on (not a frame or a stack's outline). */
export function focusable(box: Box): boolean {
  return box.kind !== 'frame' && box.kind !== 'stack';
}

/**
 * The nearest focusable box from `from` in a direction: the smallest distance along it plus
 * twice the distance across it, among boxes more than 1 unit ahead. Null when none.
 */
export function neighbour(
  boxes: ReadonlyMap<string, Box>,
  from: string,
  dir: Direction
): string | null {
  const a = boxes.get(from);
  if (!a) {
    return null;
  }
  const ax = a.x + a.w / 2;
  const ay = a.y + a.h / 2;
  let best: string | null = null;
  let bestScore = Infinity;
  for (const b of boxes.values()) {
    if (!focusable(b) || b.item === from) {
      continue;
    }
    const dx = b.x + b.w / 2 - ax;
    const dy = b.y + b.h / 2 - ay;
    const along = dir === 'down' ? dy : dir === 'up' ? -dy : dir === 'right' ? dx : -dx;
    const across = dir === 'down' || dir === 'up' ? Math.abs(dx) : Math.abs(dy);
    if (along <= 1) {
      continue;
    }
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = b.item;
    }
  }
  return best;
}

/** What activating an element of the drawing does (a click, or Enter / Space on it). */
export type Activation =
  | { kind: 'stack'; stack: string; action: StackAction }
  | { kind: 'group'; group: string }
  | { kind: 'node'; node: string };

/** A stack's button under `target`: its stack and action, or null. */
export function stackButton(target: Element): Activation | null {
  const button = target.closest('[data-stack-action]');
  return button
    ? {
        kind: 'stack',
        stack: button.getAttribute('data-stack-id')!,
        action: button.getAttribute('data-stack-action') as StackAction
      }
    : null;
}

/** A box's item id (`g:…` a group, `n:…` a node) as what activating it does, or null. */
export function itemActivation(item: string): Activation | null {
  if (item.startsWith('g:')) {
    return { kind: 'group', group: item.slice(2) };
  }
  if (item.startsWith('n:')) {
    return { kind: 'node', node: item.slice(2) };
  }
  return null;
}

/** What a click on `target` activates: a stack's button first, else the box it is in. */
export function clickActivation(target: Element): Activation | null {
  const button = stackButton(target);
  if (button) {
    return button;
  }
  const item = target.closest('[data-item]')?.getAttribute('data-item');
  return item ? itemActivation(item) : null;
}

/** What a key does, before it is done. */
export type KeyCommand =
  | { kind: 'move'; dir: Direction }
  | { kind: 'activate' }
  | { kind: 'zoom'; factor: number }
  | { kind: 'fit' }
  | { kind: 'clear' };

/** A key's command in the drawing, or null for keys it leaves alone. */
export function keyCommand(key: string): KeyCommand | null {
  if (key in ARROWS) {
    return { kind: 'move', dir: ARROWS[key] };
  }
  switch (key) {
    case 'Enter':
    case ' ':
      return { kind: 'activate' };
    case '+':
    case '=':
      return { kind: 'zoom', factor: 1.25 };
    case '-':
    case '_':
      return { kind: 'zoom', factor: 0.8 };
    case 'f':
    case 'F':
      return { kind: 'fit' };
    case 'Escape':
      return { kind: 'clear' };
    default:
      return null;
  }
}

/** What the keys act on: the pane. */
export interface KeyTarget {
  /** the selected node, if any */
  readonly selected: string | null;
  /** the boxes drawn, by item id, and the first in drawing order that takes focus */
  readonly boxes: ReadonlyMap<string, Box>;
  firstFocusable(): string | null;
  focusItem(item: string): void;
  activate(what: Activation, viaKey: boolean): void;
  zoomBy(factor: number): void;
  fit(): void;
  clearSelection(): void;
}

/** Handle a keydown in the drawing. */
export function onKey(ev: KeyboardEvent, target: KeyTarget): void {
  const command = keyCommand(ev.key);
  if (command === null) {
    return;
  }
  const active = (ev.target as Element).closest('[data-item]');
  switch (command.kind) {
    case 'move': {
      ev.preventDefault();
      const current =
        active?.getAttribute('data-item') ??
        (target.selected !== null ? nodeItem(target.selected) : null);
      const start = current ?? target.firstFocusable();
      if (!start) {
        return;
      }
      const next = current ? neighbour(target.boxes, start, command.dir) : start;
      if (next) {
        target.focusItem(next);
      }
      return;
    }
    case 'activate': {
      const button = stackButton(ev.target as Element);
      if (button) {
        ev.preventDefault();
        target.activate(button, true);
        return;
      }
      if (!active) {
        return;
      }
      ev.preventDefault();
      const what = itemActivation(active.getAttribute('data-item')!);
      if (what) {
        target.activate(what, true);
      }
      return;
    }
    case 'zoom':
      ev.preventDefault();
      target.zoomBy(command.factor);
      return;
    case 'fit':
      ev.preventDefault();
      target.fit();
      return;
    case 'clear':
      target.clearSelection();
      return;
  }
}
