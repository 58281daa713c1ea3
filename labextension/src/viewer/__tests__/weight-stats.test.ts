import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderPayload, RenderOptions, ViewerHandle } from '../app';
import { checkWeightStats, pageWeightStatsLoader } from '../weight-stats';
import { coursePayload, node, XSS } from './payloads';
import { Payload } from '../types';

let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

afterEach(() => {
  handle?.dispose();
  handle = null;
  host?.remove();
});

/** A .mindir payload: weight `w` (and XSS-named `x`) feeding one MatMul. */
function mindirPayload(): Payload {
  const p = coursePayload();
  p.meta.source = 'mindir';
  p.graphs = {
    main: {
      name: 'main',
      nodes: [
        { ...node('w', 'Parameter', [], null), kind: 'parameter', name: 'fc.weight' },
        { ...node(XSS, 'Parameter', [], null), kind: 'parameter', name: XSS },
        node('m', 'MatMul', ['w', XSS], 'Default')
      ]
    }
  };
  p.views = { main: 'main', before: null, after: 'main' };
  p.passes = [];
  p.fusion = null;
  p.memory = null;
  return p;
}

function stats(name: string): Record<string, unknown> {
  return {
    name,
    dtype: 'Float32',
    shape: [4, 2],
    count: 8,
    min: -0.5,
    max: 2,
    mean: 0.25,
    std: 0.125,
    zeros: 1,
    nan: 0,
    inf: 2,
    histogram: { edges: [-0.5, 0.75, 2], counts: [5, 1] }
  };
}

async function panelFor(
  payload: Payload,
  id: string,
  options: RenderOptions = {}
): Promise<HTMLElement> {
  host = document.createElement('div');
  document.body.appendChild(host);
  handle = renderPayload(host, payload, { worker: false, ...options });
  const pane = handle.app!.graphView!.panes[0];
  await pane.ready;
  await pane.select(id);
  return host.querySelector<HTMLElement>('[data-view="graph"] .al-panel')!;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    await new Promise(r => setTimeout(r, 0));
  }
}

describe('weight statistics in the node panel', () => {
  it('asks the host for a weight on request and draws numbers and a histogram', async () => {
    const load = vi.fn((name: string) => Promise.resolve(stats(name)));
    const panel = await panelFor(mindirPayload(), 'w', { onRequestWeightStats: load });
    // shape and dtype are there before any request
    expect(panel.querySelector('[data-field="outputs"]')!.textContent).toContain(
      'Float32'
    );
    expect(load).not.toHaveBeenCalled();
    const button = panel.querySelector<HTMLButtonElement>('.al-weight-stats-button')!;
    expect(button.textContent).toBe('Statistics');
    button.click();
    await settle();
    expect(load).toHaveBeenCalledWith('fc.weight');
    const value = (key: string): string =>
      panel.querySelector(`[data-stat="${key}"]`)!.textContent!;
    expect([value('min'), value('max'), value('mean'), value('std')]).toEqual([
      '-0.500000',
      '2',
      '0.250000',
      '0.125000'
    ]);
    expect([value('count'), value('zeros'), value('nan'), value('inf')]).toEqual([
      '8',
      '1',
      '0',
      '2'
    ]);
    const bars = panel.querySelectorAll('svg.al-weight-histogram rect');
    expect(Array.from(bars).map(b => b.getAttribute('data-count'))).toEqual(['5', '1']);
    // the tallest bar is full height, the other in proportion
    expect(Number(bars[1].getAttribute('height'))).toBeCloseTo(64 / 5, 1);
  });

  it('keeps each answer: selecting the weight again asks no more', async () => {
    const load = vi.fn((name: string) => Promise.resolve(stats(name)));
    const panel = await panelFor(mindirPayload(), 'w', { onRequestWeightStats: load });
    panel.querySelector<HTMLButtonElement>('.al-weight-stats-button')!.click();
    await settle();
    await handle!.app!.graphView!.panes[0].select('w');
    panel.querySelector<HTMLButtonElement>('.al-weight-stats-button')!.click();
    await settle();
    expect(load).toHaveBeenCalledTimes(1);
    expect(panel.querySelector('[data-stat="min"]')).not.toBeNull();
  });

  it("an op's panel lists the weights it reads, each with statistics on request", async () => {
    const load = vi.fn((name: string) => Promise.resolve(stats(name)));
    const panel = await panelFor(mindirPayload(), 'm', { onRequestWeightStats: load });
    const items = Array.from(panel.querySelectorAll<HTMLElement>('.al-op-weight'));
    expect(items.map(i => i.dataset.weight)).toEqual(['fc.weight', XSS]);
    expect(items[0].textContent).toContain('fc.weight: ');
    expect(items[0].textContent).toContain('Float32');
    expect(items[1].querySelector('img')).toBeNull(); // a name is text, never markup
    expect(panel.querySelector('.al-op-weights h3')!.textContent).toBe('weights');
    expect(load).not.toHaveBeenCalled();
    items[0].querySelector<HTMLButtonElement>('.al-weight-stats-button')!.click();
    await settle();
    expect(load).toHaveBeenCalledWith('fc.weight');
    expect(items[0].querySelector('[data-stat="max"]')!.textContent).toBe('2');
    expect(items[1].querySelector('[data-stat="max"]')).toBeNull();
  });

  it('finds a weight read through Load, and lists no weights for a weight', async () => {
    const p = mindirPayload();
    p.graphs.main.nodes.push(
      node('l', 'Load', ['w'], 'Default'),
      node('a', 'Add', ['l', 'm'], 'Default')
    );
    const panel = await panelFor(p, 'a');
    const items = panel.querySelectorAll<HTMLElement>('.al-op-weight');
    expect(Array.from(items).map(i => i.dataset.weight)).toEqual(['fc.weight']);
    // no loader: one line says how to get statistics, no buttons
    expect(panel.querySelector('.al-weight-stats-button')).toBeNull();
    expect(panel.querySelectorAll('.al-weight-stats-hint')).toHaveLength(1);
    await handle!.app!.graphView!.panes[0].select('w');
    expect(panel.querySelector('.al-op-weights')).toBeNull();
  });

  it('shows a failed request as text and lets it be retried', async () => {
    let fail = true;
    const load = vi.fn((name: string) =>
      fail
        ? Promise.reject(new Error(`no weight named ${XSS}`))
        : Promise.resolve(stats(name))
    );
    const panel = await panelFor(mindirPayload(), XSS, { onRequestWeightStats: load });
    const button = panel.querySelector<HTMLButtonElement>('.al-weight-stats-button')!;
    button.click();
    await settle();
    const alert = panel.querySelector('.al-weight-stats [role="alert"]')!;
    expect(alert.textContent).toContain(XSS);
    expect(host.querySelector('img')).toBeNull();
    expect(load).toHaveBeenCalledWith(XSS);
    expect(button.disabled).toBe(false);
    fail = false;
    button.click();
    await settle();
    expect(panel.querySelector('[data-stat="max"]')!.textContent).toBe('2');
    expect(panel.querySelector('svg title')!.textContent).toBe(
      '[-0.500000, 0.750000]: 5'
    );
  });

  it('rejects an answer that is not statistics', async () => {
    const load = (): Promise<unknown> =>
      Promise.resolve({ ...stats('w'), count: 'many' });
    const panel = await panelFor(mindirPayload(), 'w', { onRequestWeightStats: load });
    panel.querySelector<HTMLButtonElement>('.al-weight-stats-button')!.click();
    await settle();
    expect(panel.querySelector('[role="alert"]')!.textContent).toContain('count');
    expect(() =>
      checkWeightStats({ ...stats('w'), histogram: { edges: [0], counts: [1] } })
    ).toThrow('histogram');
  });

  it('without a loader, a .mindir weight says how to get its statistics', async () => {
    const panel = await panelFor(mindirPayload(), 'w');
    expect(panel.querySelector('.al-weight-stats-button')).toBeNull();
    expect(panel.querySelector('.al-weight-stats-hint')!.textContent).toContain(
      '--weight-stats'
    );
  });

  it('a traced graph without a loader has no statistics section', async () => {
    const panel = await panelFor(coursePayload(), 'w');
    expect(panel.querySelector('[data-field="kind"]')!.textContent).toBe('parameter');
    expect(panel.querySelector('.al-weight-stats')).toBeNull();
  });
});

describe('pageWeightStatsLoader', () => {
  function element(json: unknown): HTMLElement {
    const el = document.createElement('script');
    el.type = 'application/json';
    el.textContent = JSON.stringify(json);
    return el;
  }

  it('reads statistics written into the page, and their errors', async () => {
    const load = pageWeightStatsLoader(
      element({ stats: { a: stats('a'), b: { error: 'b has dtype String' } } })
    )!;
    await expect(load('a')).resolves.toEqual(stats('a'));
    await expect(load('b')).rejects.toThrow('b has dtype String');
    await expect(load('constructor')).rejects.toThrow('no statistics of constructor');
  });

  it("asks a served page's endpoint", async () => {
    const fetchMock = vi.fn(async (url: string) => ({
      ok: !url.includes('bad'),
      status: 400,
      json: async () =>
        url.includes('bad') ? { message: 'no weight named bad' } : stats('a')
    }));
    vi.stubGlobal('fetch', fetchMock);
    try {
      const load = pageWeightStatsLoader(element({ endpoint: 'weight-stats' }))!;
      await expect(load('a b/c')).resolves.toEqual(stats('a'));
      expect(fetchMock).toHaveBeenCalledWith('weight-stats?name=a%20b%2Fc');
      await expect(load('bad')).rejects.toThrow('no weight named bad');
    } finally {
      vi.unstubAllGlobals();
    }
    expect(pageWeightStatsLoader(null)).toBeUndefined();
  });
});
