import { afterEach, describe, expect, it } from 'vitest';
import { ViewerHandle } from '../app';
import { checkPayload, PayloadError } from '../types';
import {
  describeNodeNumerics,
  errorLevel,
  NO_NUMERICS_COLOUR,
  NONFINITE_COLOUR,
  numericsColour
} from '../numerics-view';
import { fixturePayload, mountPayload, settle } from './mount';
import { XSS } from './payloads';

// A real trace of tests/numerics/nets.Stack with compare_numerics(net, port) where the
// port drops block 2's residual (tests/fixtures/numerics/make_numerics_payload.py).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const stack = (): any =>
  fixturePayload('numerics/stack-residual-numerics-payload.json');

let handle: ViewerHandle | null = null;
let host: HTMLDivElement | null = null;

function mount(payload: unknown): ViewerHandle {
  ({ handle, host } = mountPayload(payload));
  return handle;
}

afterEach(() => {
  handle?.dispose();
  handle = null;
  host?.remove();
});

describe('numerics colours', () => {
  it('goes from green (agree) to red (rel err 1), dark red for NaN/Inf, grey for none', () => {
    expect(errorLevel(0)).toBe(0);
    expect(errorLevel(1)).toBe(1);
    expect(errorLevel(1e-4)).toBeCloseTo(3 / 7);
    expect(numericsColour({ cell: 'a', max_rel: 0, diverged: false })).toBe(
      'hsl(120, 70%, 48%)'
    );
    expect(numericsColour({ cell: 'a', max_rel: 2, diverged: true })).toBe(
      'hsl(0, 70%, 42%)'
    );
    expect(numericsColour({ cell: 'a', max_rel: null, diverged: true })).toBe(
      NONFINITE_COLOUR
    );
    expect(numericsColour(undefined)).toBe(NO_NUMERICS_COLOUR);
  });
});

describe('numerics in the graph view', () => {
  it('colours nodes by error and selects the first divergence with both sides in the panel', async () => {
    const p = stack();
    const h = mount(p);
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    await settle();
    const select = host!.querySelector<HTMLSelectElement>(
      '[data-view="graph"] select'
    )!;
    expect(select.value).toBe('numerics');
    expect(host!.querySelector('.al-numerics-legend')!.textContent).toContain(
      'not compared'
    );
    const first = p.numerics.first_divergence as string;
    expect(pane.selected).toBe(first);
    const panel = host!.querySelector('[data-view="graph"]')!.textContent!;
    expect(panel).toContain('blocks.2 (Residual)');
    expect(panel).toContain('first divergence');
    expect(panel).toContain('Float32 [4, 16]');
    const fill = (id: string): string | null =>
      host!.querySelector(`.al-node[data-id="${id}"] rect`)?.getAttribute('fill') ??
      null;
    // a node whose Cell agrees (max rel 0), drawn next to the first divergence
    const clean = Object.entries(p.numerics.nodes).find(
      ([id, e]) => (e as { max_rel: number }).max_rel === 0 && fill(id) !== null
    );
    expect(clean).toBeDefined();
    expect(fill(clean![0])).toBe('hsl(120, 70%, 48%)');
    expect(fill(first)).not.toBe('hsl(120, 70%, 48%)');
    select.value = 'op';
    select.dispatchEvent(new Event('change'));
    expect(host!.querySelector<HTMLElement>('.al-numerics-legend')!.hidden).toBe(true);
  });

  it('shows a payload without the section as before', () => {
    const p = stack();
    delete p.numerics;
    mount(p);
    expect(host!.querySelector('.al-numerics-legend')).toBeNull();
    expect(host!.querySelector('option[value="numerics"]')).toBeNull();
  });

  it('sets strings from the section as text', async () => {
    const p = stack();
    const first = p.numerics.first_divergence as string;
    p.numerics.nodes[first].cell = XSS;
    p.numerics.titles = [XSS, 'b'];
    const h = mount(p);
    await h.app!.graphView!.panes[0].ready;
    await settle();
    expect(host!.querySelector('img')).toBeNull();
    expect(host!.textContent).toContain(XSS);
    expect(describeNodeNumerics(p.numerics, first)[0][1]).toContain(XSS);
  });

  it('refuses a section naming a missing graph or with bad numbers', () => {
    const p = stack();
    p.numerics.graph = 'nope';
    expect(() => checkPayload(p)).toThrow(PayloadError);
    const q = stack();
    const id = Object.keys(q.numerics.nodes)[0];
    q.numerics.nodes[id].max_rel = 'big';
    expect(() => checkPayload(q)).toThrow(/numerics.nodes/);
  });
});
