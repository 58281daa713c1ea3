import { afterEach, describe, expect, it } from 'vitest';
import { ViewerHandle } from '../app';
import { Box } from '../graph-boxes';
import { clickActivation, keyCommand, neighbour } from '../keys';
import { mountPayload } from './mount';
import { coursePayload } from './payloads';

let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

function mount(payload: unknown): ViewerHandle {
  ({ handle, host } = mountPayload(payload));
  return handle;
}

afterEach(() => {
  handle?.dispose();
  handle = null;
  host?.remove();
});

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    await new Promise(r => setTimeout(r, 0));
  }
}

const box = (item: string, x: number, y: number, kind: Box['kind'] = 'node'): Box => ({
  item,
  kind,
  x,
  y,
  w: 20,
  h: 10,
  depth: 0
});

describe('arrow keys (pure)', () => {
  // a: the start; b straight below; c below and far to the right; d above; f a frame below
  const boxes = new Map(
    [
      box('n:a', 100, 100),
      box('n:b', 100, 160),
      box('n:c', 300, 130),
      box('n:d', 100, 20),
      box('g:e', 40, 100),
      box('g:f', 100, 120, 'frame'),
      box('k:s', 100, 125, 'stack')
    ].map(b => [b.item, b])
  );

  it('moves to the nearest box along the direction, twice penalising the distance across', () => {
    expect(neighbour(boxes, 'n:a', 'down')).toBe('n:b');
    expect(neighbour(boxes, 'n:a', 'up')).toBe('n:d');
    expect(neighbour(boxes, 'n:a', 'right')).toBe('n:c');
    expect(neighbour(boxes, 'n:a', 'left')).toBe('g:e');
  });

  it('never lands on a frame or a stack outline, nor moves from a box not drawn', () => {
    expect(neighbour(boxes, 'n:b', 'down')).toBeNull();
    expect(neighbour(boxes, 'n:gone', 'down')).toBeNull();
  });

  it('maps keys to commands and leaves other keys alone', () => {
    expect(keyCommand('ArrowLeft')).toEqual({ kind: 'move', dir: 'left' });
    expect(keyCommand(' ')).toEqual({ kind: 'activate' });
    expect(keyCommand('=')).toEqual({ kind: 'zoom', factor: 1.25 });
    expect(keyCommand('_')).toEqual({ kind: 'zoom', factor: 0.8 });
    expect(keyCommand('F')).toEqual({ kind: 'fit' });
    expect(keyCommand('Escape')).toEqual({ kind: 'clear' });
    expect(keyCommand('a')).toBeNull();
  });

  it('reads what a click activates: a stack button before the box it sits in', () => {
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    g.setAttribute('data-item', 'g:Default/block');
    const button = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    button.setAttribute('data-stack-action', 'next');
    button.setAttribute('data-stack-id', 'Default/0-Block');
    const label = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    g.append(button, label);
    expect(clickActivation(button)).toEqual({
      kind: 'stack',
      stack: 'Default/0-Block',
      action: 'next'
    });
    expect(clickActivation(label)).toEqual({ kind: 'group', group: 'Default/block' });
    g.setAttribute('data-item', 'n:7');
    expect(clickActivation(label)).toEqual({ kind: 'node', node: '7' });
    expect(clickActivation(g.ownerDocument.createElement('div'))).toBeNull();
  });
});

describe('keys in a drawn graph', () => {
  it('supports keyboard zoom, fit and navigation', async () => {
    const h = mount(coursePayload());
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    const vp = host.querySelector('.al-viewport')!;
    const before = vp.getAttribute('transform');
    pane.svg.dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true }));
    expect(vp.getAttribute('transform')).not.toBe(before);
    pane.svg.dispatchEvent(new KeyboardEvent('keydown', { key: 'f', bubbles: true }));
    expect(vp.getAttribute('transform')).toBe(before);
    const conv = host.querySelector('[data-id="1"]') as SVGGElement;
    conv.focus();
    conv.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })
    );
    const focused = document.activeElement as Element;
    expect(focused.getAttribute('data-id')).toBe('k1');
    focused.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
    );
    await settle();
    expect(pane.selected).toBe('k1');
    expect(conv.getAttribute('role')).toBe('button');
    expect(conv.getAttribute('aria-label')).toContain('Conv2D');
  });
});
