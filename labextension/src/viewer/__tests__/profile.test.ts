import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderPayload, ViewerHandle } from '../app';
import { checkProfile, formatUs, nodeTimes } from '../profile-view';
import { NO_TIME_COLOUR, timeColour } from '../profile-colour';
import { XSS } from './payloads';
import { withoutTrace } from './profile-payloads';

// The recorded CPU profile of LeNet5 joined to its traced graph
// (tests/fixtures/profile/make_profile_payload.py).
const FIXTURE = join(
  __dirname,
  '../../../../tests/fixtures/profile/lenet-profile-payload.json'
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function lenet(): any {
  return JSON.parse(readFileSync(FIXTURE, 'utf8'));
}

let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

function mount(payload: unknown): ViewerHandle {
  host = document.createElement('div');
  document.body.appendChild(host);
  handle = renderPayload(host, payload, { worker: false });
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

describe('profile view', () => {
  it('adds a Profile tab with a Gantt bar per launch and a top-N table', () => {
    const p = lenet();
    const h = mount(p);
    expect([...host.querySelectorAll('.al-tab')].map(t => t.textContent)).toEqual([
      'Graph',
      'Profile'
    ]);
    h.app!.show('profile');
    const view = host.querySelector('[data-view="profile"]')!;
    expect(view.querySelectorAll('rect.al-bar').length).toBe(p.profile.launches.length);
    const rows = view.querySelectorAll('tr.al-prof-row');
    expect(rows.length).toBe(14);
    // slowest first: the table follows total time
    const totals = p.profile.kernels.map((k: { total_us: number }) => k.total_us);
    const first = Number(rows[0].getAttribute('data-kernel'));
    expect(p.profile.kernels[first].total_us).toBe(Math.max(...totals));
    // the nop Flatten is listed with its reason
    expect(view.querySelector('.al-prof-unmeasured')!.textContent).toContain('Flatten');
    expect(view.textContent).toContain('3 step(s) (cpu)');
  });

  it('zooms the timeline: fewer launches in a narrower window, all again on reset', () => {
    const h = mount(lenet());
    h.app!.show('profile');
    const pv = h.app!.profileView!;
    const all = pv.svg.querySelectorAll('rect.al-bar').length;
    const [a, b] = pv.window;
    pv.setWindow(a, a + (b - a) / 10);
    const some = pv.svg.querySelectorAll('rect.al-bar').length;
    expect(some).toBeGreaterThan(0);
    expect(some).toBeLessThan(all);
    pv.setWindow(-1e12, 1e12);
    expect(pv.svg.querySelectorAll('rect.al-bar').length).toBe(all);
  });

  it('links a table row to the graph node, and the graph selection back to rows and bars', async () => {
    const p = lenet();
    const h = mount(p);
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    h.app!.show('profile');
    const row = host.querySelector<HTMLTableRowElement>('tr.al-prof-row')!;
    const nodeId = row.getAttribute('data-node')!;
    row.click();
    await settle();
    expect(h.app!.current).toBe('graph');
    expect(pane.selected).toBe(nodeId);
    // the node panel shows the time per call
    expect(host.querySelector('[data-view="graph"]')!.textContent).toContain(
      'time per call'
    );
    // graph -> profile: select another node, its bars are highlighted
    const other = p.profile.kernels.find(
      (k: { node: string }) => k.node && k.node !== nodeId
    );
    await pane.select(other.node);
    await settle();
    const marked = [...host.querySelectorAll('rect.al-bar.al-sel')];
    expect(marked.length).toBe(other.calls);
    expect(new Set(marked.map(b => b.getAttribute('data-node')))).toEqual(
      new Set([other.node])
    );
  });

  it('colours nodes by measured time, with a legend and a way back to op colours', async () => {
    const p = lenet();
    const h = mount(p);
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    const select = host.querySelector<HTMLSelectElement>('[data-view="graph"] select')!;
    expect(select.value).toBe('time');
    expect(host.querySelector('.al-time-legend')!.textContent).toContain(
      'not measured'
    );
    const times = nodeTimes(p.profile);
    const slowest = [...times.entries()].sort((x, y) => y[1] - x[1])[0][0];
    const fill = (id: string): string =>
      host.querySelector(`.al-node[data-id="${id}"] rect`)!.getAttribute('fill')!;
    expect(fill(slowest)).toBe('hsl(0, 75%, 50%)');
    expect(fill('%8')).toBe(NO_TIME_COLOUR); // Flatten: not launched
    select.value = 'op';
    select.dispatchEvent(new Event('change'));
    expect(fill(slowest)).not.toBe('hsl(0, 75%, 50%)');
    expect(host.querySelector<HTMLElement>('.al-time-legend')!.hidden).toBe(true);
  });

  it('shows a profile without a trace: table and timeline, and the note', () => {
    const p = withoutTrace(lenet());
    p.profile.notes.push('no trace: kernels are not joined to graph nodes');
    const h = mount(p);
    h.app!.show('profile');
    expect(host.querySelectorAll('tr.al-prof-row').length).toBe(14);
    expect(host.querySelectorAll('rect.al-bar').length).toBe(42);
    expect(host.textContent).toContain('no trace: kernels are not joined');
    expect(host.querySelector('.al-time-legend')).toBeNull();
  });

  it('says where the step times come from, and marks the kernel-span fallback', () => {
    for (const [source, fallback] of [
      ['kernel span (fallback)', true],
      ['step_trace_time.csv', false]
    ] as [string, boolean][]) {
      const p = lenet();
      p.profile.step_source = source;
      mount(p).app!.show('profile');
      const line = host.querySelector<HTMLElement>('.al-prof-steps-from')!;
      expect(line.textContent).toBe(`step times from: ${source}`);
      expect(line.classList.contains('al-prof-fallback')).toBe(fallback);
    }
    const old = lenet(); // a payload saved before the field
    delete old.profile.step_source;
    mount(old).app!.show('profile');
    expect(host.querySelector('.al-prof-steps-from')).toBeNull();
  });

  it('sets payload strings as text and rejects a broken section in its tab only', () => {
    const p = lenet();
    p.profile.kernels[0].name = `Default/${XSS}/Conv2D-op0`;
    p.profile.notes.push(XSS);
    const h = mount(p);
    h.app!.show('profile');
    expect(host.querySelector('img')).toBeNull();
    expect(host.textContent).toContain(XSS);
    const bad = lenet();
    bad.profile.launches.push([99, 0, 1, 1, 0]);
    expect(checkProfile(bad.profile)).toMatch(/launches\[42\]/);
    const h2 = mount(bad);
    expect(h2.app!.availableViews()).toContain('profile');
    h2.app!.show('profile');
    expect(host.textContent).toContain('no usable profile');
  });

  it('formats times and colours on a log scale', () => {
    expect(formatUs(12.34)).toBe('12.3 \u00b5s');
    expect(formatUs(1234)).toBe('1.23 ms');
    const times = new Map([
      ['a', 1000],
      ['b', 10]
    ]);
    expect(timeColour(1000, times)).toBe('hsl(0, 75%, 50%)');
    expect(timeColour(undefined, times)).toBe(NO_TIME_COLOUR);
    expect(timeColour(10, times)).not.toBe(timeColour(1000, times));
  });
});
