import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderPayload, ViewerHandle } from '../app';
import { bigPayload, coursePayload, node, XSS } from './payloads';

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

/** The pane's next render: it dispatches `al-rendered` once a layout is drawn. */
function nextRender(el: Element): Promise<Event> {
  return new Promise(resolve =>
    el.addEventListener('al-rendered', resolve, { once: true })
  );
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    await new Promise(r => setTimeout(r, 0));
  }
}

describe('renderPayload in a DOM', () => {
  it('draws the main graph with op and shape, bookkeeping hidden', async () => {
    const h = mount(coursePayload());
    await h.app!.graphView!.panes[0].ready;
    const nodes = host.querySelectorAll('[data-view="graph"] .al-node');
    // after-fusion graph: x, Conv2D, fused kernel, the XSS op; Return and weight w hidden
    expect(nodes.length).toBe(4);
    const ops = [...nodes].map(n => n.getAttribute('data-op'));
    expect(ops).toContain('Fused_BatchNorm_ReLU_fusion');
    expect(ops).not.toContain('Return');
    expect(host.querySelector('.al-node[data-id="w"]')).toBeNull();
    expect(host.textContent).toContain('Float32(1, 8, 16, 16)');
    expect(host.querySelectorAll('.al-edge').length).toBe(3);
    expect([...host.querySelectorAll('.al-tab')].map(t => t.textContent)).toEqual([
      'Graph',
      'Before / after fusion',
      'Passes',
      'Memory'
    ]);
    const bk = host.querySelector<HTMLInputElement>(
      '[data-view="graph"] input[type="checkbox"]'
    )!;
    bk.click();
    await settle();
    expect(host.querySelectorAll('[data-view="graph"] .al-node').length).toBe(6);
    bk.click();
    await settle();
    expect(bk.checked).toBe(false);
    // selecting a hidden node shows the hidden nodes, and the toggle says so
    await h.app!.graphView!.panes[0].select('6');
    await settle();
    expect(bk.checked).toBe(true);
    expect(host.querySelector('.al-node.al-selected')!.getAttribute('data-op')).toBe(
      'Return'
    );
  });

  it('renders payload strings as text, never as HTML', async () => {
    const p = coursePayload();
    p.meta.title = `</script>${XSS}`;
    p.graphs.after.nodes[4].attrs = { [XSS]: XSS };
    const h = mount(p);
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    expect(host.querySelector('img')).toBeNull();
    expect(host.querySelector('script')).toBeNull();
    const xssNode = host.querySelector('[data-id="5"]')!;
    expect(xssNode.getAttribute('data-op')).toBe(XSS);
    expect(xssNode.querySelector('title')!.textContent).toContain(XSS);
    await pane.select('5');
    const panel = host.querySelector('[data-view="graph"] .al-panel')!;
    expect(panel.querySelector('h3')!.textContent).toBe(XSS);
    expect(panel.textContent).toContain(XSS);
    expect(host.querySelector('.al-title')!.textContent).toBe(`</script>${XSS}`);
    expect(host.querySelector('img')).toBeNull();
  });

  it('shows node details in the panel and links memory to the graph', async () => {
    const h = mount(coursePayload());
    const app = h.app!;
    const pane = app.graphView!.panes[0];
    await pane.ready;
    (host.querySelector('[data-id="1"]') as SVGGElement).dispatchEvent(
      new MouseEvent('click', { bubbles: true })
    );
    await settle();
    expect(pane.selected).toBe('1');
    const field = (k: string): string =>
      host.querySelector(`[data-view="graph"] [data-field="${k}"]`)!.textContent!;
    expect(field('scope')).toBe('Default/conv-Conv2d');
    expect(field('source')).toBe('net.py:12');
    expect(field('device')).toBe('float32 NCHW');
    expect(field('memory')).toBe('8192 B @ 0, steps 0-1');
    app.show('memory');
    const rects = host.querySelectorAll('.al-memrect');
    expect(rects.length).toBe(3);
    expect(
      host.querySelector('.al-memrect.al-selected')!.getAttribute('data-node')
    ).toBe('1');
    expect(host.querySelector('[data-field="peak"]')!.textContent).toBe(
      'peak 16.0 KiB'
    );
    expect(host.querySelector('[data-field="no_reuse"]')!.textContent).toContain(
      '33% saved'
    );
    // the step axis numbers steps from 0, like the matplotlib map: 0 .. steps - 1
    const labels = [...host.querySelectorAll('.al-livecurve text')].map(
      n => n.textContent
    );
    const steps = coursePayload().memory!.steps;
    expect(labels).toContain('step 0');
    expect(labels).toContain(`step ${steps - 1}`);
    expect(labels).not.toContain(`step ${steps}`);
    (host.querySelector('[data-tensor="t2"]') as SVGRectElement).dispatchEvent(
      new MouseEvent('click', { bubbles: true })
    );
    await settle();
    expect(app.current).toBe('graph');
    expect(pane.selected).toBe('k1');
    expect(host.querySelector('.al-node.al-selected')!.getAttribute('data-id')).toBe(
      'k1'
    );
  });

  it('links fused kernels and their originals in the compare view', async () => {
    const h = mount(coursePayload(), { view: 'compare' });
    const view = h.app!.compareView!;
    await Promise.all(view.panes.map(p => p.ready));
    expect(host.querySelectorAll('.al-tab').length).toBe(0);
    expect(view.titles[0].getAttribute('data-kernels')).toBe('4');
    expect(view.titles[1].getAttribute('data-kernels')).toBe('3');
    const after = host.querySelector('[data-pane="after"]')!;
    const before = host.querySelector('[data-pane="before"]')!;
    (after.querySelector('[data-id="k1"]') as SVGGElement).dispatchEvent(
      new MouseEvent('click', { bubbles: true })
    );
    await settle();
    const linked = [...before.querySelectorAll('.al-node.al-linked')]
      .map(n => n.getAttribute('data-id'))
      .sort();
    expect(linked).toEqual(['2', '4']);
    // and back: an original highlights its kernel
    (before.querySelector('[data-id="4"]') as SVGGElement).dispatchEvent(
      new MouseEvent('click', { bubbles: true })
    );
    await settle();
    expect(
      [...after.querySelectorAll('.al-node.al-linked')].map(n =>
        n.getAttribute('data-id')
      )
    ).toEqual(['k1']);
    expect(
      host.querySelector('[data-view="compare"] .al-panel')!.textContent
    ).toContain('fused intok1');
  });

  it('replays passes: highlights changes and requests missing snapshots', async () => {
    const requested: number[] = [];
    const p = coursePayload();
    const onRequestPass = vi.fn(async (i: number) => {
      requested.push(i);
      return p.graphs.before;
    });
    const h = mount(p, { view: 'timeline', onRequestPass });
    const tl = h.app!.timelineView!;
    await settle();
    await tl.graphs.panes[0].ready;
    // starts at the first step; skip-unchanged hides pass 1
    expect(host.querySelector('[data-field="pass-name"]')!.textContent).toBe(
      '00_bootstrap'
    );
    expect(tl.slider.max).toBe('2');
    expect(host.querySelectorAll('.al-passlist li[data-pass]').length).toBe(3);
    await tl.go(2);
    await tl.graphs.panes[0].ready;
    expect(host.querySelector('[data-field="pass-name"]')!.textContent).toBe(
      'graph_kernel_cluster'
    );
    expect(
      [...host.querySelectorAll('.al-node.al-added')].map(n =>
        n.getAttribute('data-id')
      )
    ).toEqual(['k1']);
    expect(
      [...host.querySelectorAll('.al-node.al-modified')].map(n =>
        n.getAttribute('data-id')
      )
    ).toEqual(['5']);
    expect(host.querySelector('[data-view="timeline"]')!.textContent).toContain(
      'removed: Default/bn-BatchNorm2d/BatchNorm'
    );
    tl.slider.value = '0';
    tl.slider.dispatchEvent(new Event('input'));
    await settle();
    expect(host.querySelector('[data-field="pass-name"]')!.textContent).toBe(
      '00_bootstrap'
    );
    await tl.go(3);
    await settle();
    expect(requested).toEqual([3]);
    expect(tl.graphs.panes[0].model!.graph).toBe(p.graphs.before);
    // unchecking "skip unchanged" brings pass 1 back
    const skip = host.querySelector<HTMLInputElement>(
      '.al-timeline input[type="checkbox"]'
    )!;
    skip.click();
    await settle();
    expect(tl.slider.max).toBe('3');
  });

  it('keeps the DOM small for a 10,000-node graph and expands one group on click', async () => {
    const h = mount(bigPayload(10000));
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    const boxes = host.querySelectorAll('.al-node, .al-group').length;
    expect(boxes).toBeLessThanOrEqual(300);
    // the Bottleneck drawn (collapsed) in layer 6's "10 × Bottleneck" stack
    const group = host.querySelector(
      '.al-group[data-group="Default/layer6-SequentialCell/0-Bottleneck"]'
    ) as SVGGElement;
    expect(group).not.toBeNull();
    const rendered = nextRender(pane.el);
    group.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await rendered;
    expect(
      host.querySelector(
        '.al-frame[data-frame="Default/layer6-SequentialCell/0-Bottleneck"]'
      )
    ).not.toBeNull();
    expect(host.querySelectorAll('.al-node').length).toBeGreaterThan(0);
  });

  it('searches by op, scope and name, and labels edges with shapes on demand', async () => {
    const h = mount(coursePayload());
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    const search = host.querySelector<HTMLInputElement>(
      '[data-view="graph"] input[type="search"]'
    )!;
    search.value = 'conv-conv2d';
    search.dispatchEvent(new Event('input'));
    expect(
      [...host.querySelectorAll('.al-node.al-match')].map(n =>
        n.getAttribute('data-id')
      )
    ).toEqual(['1']);
    expect(host.querySelector('.al-results [role="status"]')!.textContent).toBe(
      '1 match'
    );
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await settle();
    expect(pane.selected).toBe('1');
    search.value = 'IMG SRC';
    search.dispatchEvent(new Event('input'));
    expect(
      [...host.querySelectorAll('.al-node.al-match')].map(n =>
        n.getAttribute('data-id')
      )
    ).toEqual(['5']);
    expect(host.querySelectorAll('.al-edge-label').length).toBe(0);
    const shapes = [
      ...host.querySelectorAll<HTMLInputElement>(
        '[data-view="graph"] input[type="checkbox"]'
      )
    ][1];
    shapes.click();
    const labels = [...host.querySelectorAll('.al-edge-label')].map(t => t.textContent);
    expect(labels).toContain('Float32(1, 8, 16, 16)');
  });

  it('draws only the boxes in view when very many are shown', async () => {
    // a flat graph (no scopes) cannot be collapsed: 3000 boxes, culled to the viewport
    const p = bigPayload(10);
    p.graphs.main.nodes = Array.from({ length: 3000 }, (_, i) =>
      node(`n${i}`, 'Add', i ? [`n${i - 1}`] : [], null)
    );
    const h = mount(p);
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    const drawn = host.querySelectorAll('.al-node').length;
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(200);
    // a flat graph: nothing to expand, so select() centres without a new layout
    await pane.select('n2500', { center: true });
    pane.render();
    expect(host.querySelector('.al-node[data-id="n2500"]')).not.toBeNull();
    expect(host.querySelector('.al-node[data-id="n0"]')).toBeNull();
  });

  it('shows a clear message for a bad payload and recovers on update', async () => {
    const h = mount({ schema: 'something-else' });
    expect(host.querySelector('[role="alert"]')!.textContent).toContain(
      'bad payload: unsupported payload schema'
    );
    h.update(coursePayload());
    expect(host.querySelector('[role="alert"]')).toBeNull();
    await h.app!.graphView!.panes[0].ready;
    expect(host.querySelectorAll('.al-node').length).toBe(4);
  });

  it('exports the current graph as a standalone SVG document', async () => {
    const h = mount(coursePayload());
    await h.app!.graphView!.panes[0].ready;
    const text = h.app!.graphView!.svgText();
    expect(text.startsWith('<svg')).toBe(true);
    expect(text).toContain('viewBox=');
    expect(text).not.toContain('var(--al-');
    expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('viewer sources', () => {
  it('never use innerHTML or friends', () => {
    const dir = join(__dirname, '..');
    const files = readdirSync(dir).filter(
      f => f.endsWith('.ts') && !f.endsWith('.generated.ts')
    );
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write/
      );
    }
  });
});
