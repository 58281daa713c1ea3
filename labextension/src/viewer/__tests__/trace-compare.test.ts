// Two traces side by side (ascend_lab.compare): the `compare` payload section drawn as two
// linked panes with a summary bar; added / removed / changed coloured.
import { afterEach, describe, expect, it } from 'vitest';
import { renderPayload, ViewerHandle } from '../app';
import { compareLinks, indexCompare } from '../compare';
import { CompareSection, GraphData, Payload, checkPayload } from '../types';
import { node, XSS } from './payloads';

let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

function mount(payload: unknown, options = {}): ViewerHandle {
  host = document.createElement('div');
  document.body.appendChild(host);
  handle = renderPayload(host, payload, { worker: false, ...options });
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

const f16 = {
  dtype: 'Float16',
  shape: [1, 8, 16, 16],
  device_dtype: 'float16',
  format: 'NCHW'
};

/** fp32 (A) against AMP O2 (B): B adds a Cast, its BatchNorm is float16; A's BiasAdd and
 * ReLU are one fused kernel in B. */
function comparePayload(): Payload {
  const a: GraphData = {
    name: 'kernel_graph_a',
    nodes: [
      { ...node('x', 'Parameter', [], null), kind: 'input' },
      node('1', 'Conv2D', ['x'], 'Default/conv-Conv2d'),
      node('2', 'BatchNorm', ['1'], 'Default/bn-BatchNorm2d'),
      node('3', 'BiasAdd', ['2'], 'Default/fc-Dense'),
      node('4', 'ReLU', ['3'], 'Default/relu-ReLU'),
      node('5', 'Sqrt', ['4'], 'Default')
    ]
  };
  const b: GraphData = {
    name: 'kernel_graph_b',
    nodes: [
      { ...node('x', 'Parameter', [], null), kind: 'input' },
      node('1', 'Conv2D', ['x'], 'Default/conv-Conv2d'),
      { ...node('c', 'Cast', ['1'], 'Default'), outputs: [f16] },
      { ...node('2', 'BatchNorm', ['c'], 'Default/bn-BatchNorm2d'), outputs: [f16] },
      { ...node('k', 'Fused_BiasAdd_ReLU_fusion', ['2'], 'Default'), kind: 'call' },
      node('9', XSS, ['k'], 'Default')
    ]
  };
  const compare: CompareSection = {
    a: 'a',
    b: 'b',
    titles: ['ConvBNReLU fp32', XSS],
    matches: [
      { a: ['x'], b: ['x'], how: 'name', changes: {} },
      { a: ['1'], b: ['1'], how: 'source', changes: {} },
      { a: ['2'], b: ['2'], how: 'source', changes: { dtype: ['float32', 'float16'] } },
      {
        a: ['3', '4'],
        b: ['k'],
        how: 'fusion',
        changes: { fusion: ['BiasAdd + ReLU', 'Fused_BiasAdd_ReLU_fusion'] }
      }
    ],
    added: ['c', '9'],
    removed: ['5'],
    summary: {
      kernels: [5, 5],
      nodes: [6, 6],
      casts: [0, 1],
      casts_added: 1,
      peak: [40960, 24576],
      time_us: [null, null]
    }
  };
  return {
    schema: 'ascend-lab.graph/1',
    meta: { title: 'fp32 vs O2' },
    graphs: { a, b },
    views: { main: 'a', before: null, after: null },
    passes: [],
    fusion: null,
    memory: null,
    compare
  };
}

function click(pane: Element, id: string): void {
  (pane.querySelector(`[data-id="${id}"]`) as SVGGElement).dispatchEvent(
    new MouseEvent('click', { bubbles: true })
  );
}

function ids(pane: Element, cls: string): string[] {
  return [...pane.querySelectorAll(`.al-node.${cls}`)]
    .map(n => n.getAttribute('data-id')!)
    .sort();
}

describe('two traces side by side', () => {
  it('checks the compare section', () => {
    expect(() => checkPayload(comparePayload())).not.toThrow();
    const bad = comparePayload();
    bad.compare!.b = 'nope';
    expect(() => checkPayload(bad)).toThrow(/compare.b refers to a missing graph/);
    const bad2 = comparePayload() as unknown as { compare: { matches: unknown[] } };
    bad2.compare.matches.push({ a: 'x', b: [], how: 'name' });
    expect(() => checkPayload(bad2)).toThrow(/compare.matches\[4\]/);
  });

  it('links a node to its match, a fused kernel to the ops it replaced', () => {
    const index = indexCompare(comparePayload().compare!);
    expect(compareLinks(index, 0, '2')).toEqual([['2'], ['2']]);
    expect(compareLinks(index, 0, '4')).toEqual([['3', '4'], ['k']]);
    expect(compareLinks(index, 1, 'k')).toEqual([['3', '4'], ['k']]);
    expect(compareLinks(index, 1, 'c')).toEqual([[], []]);
  });

  it('opens on the comparison: two panes, the summary bar, linked selection', async () => {
    const h = mount(comparePayload());
    const app = h.app!;
    expect(app.current).toBe('compare');
    const view = app.compareView!;
    await Promise.all(view.panes.map(p => p.ready));
    expect([...host.querySelectorAll('.al-tab')].map(t => t.textContent)).toEqual([
      'Side by side',
      'Graph'
    ]);
    const bar = host.querySelector('.al-cmp-summary')!;
    const field = (f: string): string =>
      bar.querySelector(`[data-field="${f}"]`)!.textContent!;
    expect(field('kernels')).toBe('kernels: 5 → 5');
    expect(field('peak')).toBe('memory peak: 40.0 KiB → 24.0 KiB');
    expect(field('casts_added')).toBe('Casts added: 1');
    expect(field('added')).toBe('only in B: 2');
    expect(field('removed')).toBe('only in A: 1');
    expect(field('changed')).toBe('changed: 2');
    // every string from the payload is text, never HTML
    expect(host.querySelector('img')).toBeNull();
    expect(bar.textContent).toContain(XSS);

    const a = host.querySelector('[data-pane="a"]')!;
    const b = host.querySelector('[data-pane="b"]')!;
    click(b, 'k');
    await settle();
    expect(ids(a, 'al-linked')).toEqual(['3', '4']);
    click(a, '2');
    await settle();
    expect(ids(b, 'al-linked')).toEqual(['2']);
    expect(host.querySelector('[data-view="traces"] .al-panel')!.textContent).toContain(
      'float32 → float16'
    );
    click(b, 'c');
    await settle();
    expect(ids(a, 'al-linked')).toEqual([]);
    expect(host.querySelector('[data-view="traces"] .al-panel')!.textContent).toContain(
      'only in B'
    );
  });

  it('colours added, removed and changed nodes', async () => {
    const h = mount(comparePayload());
    const view = h.app!.compareView!;
    await Promise.all(view.panes.map(p => p.ready));
    const a = host.querySelector('[data-pane="a"]')!;
    const b = host.querySelector('[data-pane="b"]')!;
    expect(ids(b, 'al-added')).toEqual(['9', 'c']);
    expect(ids(a, 'al-added')).toEqual(['5']);
    expect(ids(b, 'al-modified')).toEqual(['2', 'k']);
    expect(ids(a, 'al-modified')).toEqual(['2', '3', '4']);
    const select = host.querySelector<HTMLSelectElement>(
      '[data-view="traces"] select'
    )!;
    expect(select.value).toBe('changed');
    expect(select.selectedOptions[0].textContent).toBe(
      'colour: added / removed / changed'
    );
    // side A's only-here nodes are drawn in the removed colour
    expect(view.panes[0].el.style.getPropertyValue('--al-added')).toBe(
      'var(--al-removed)'
    );
    expect(view.panes[1].el.style.getPropertyValue('--al-added')).toBe('');
  });

  it('leaves payloads without a compare section as they were', () => {
    const p = comparePayload();
    delete p.compare;
    const h = mount(p);
    expect(h.app!.availableViews()).toEqual(['graph']);
  });
});
