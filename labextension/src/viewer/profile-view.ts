/**
 * The "Profile" tab: measured kernel times from ascend_lab.profile (the payload's optional
 * `profile` section). A step summary, a zoomable Gantt chart of kernel launches (one row
 * per CPU thread or Ascend stream, step boundaries shaded, so host gaps show as empty
 * space), a top-N table, and the rows/nodes that could not be joined. Clicking a bar or a
 * row selects its graph node (onSelect); setSelected highlights a node's bars and rows.
 * Every string from the payload is set as text.
 */
import { clear, h, hue, s } from './dom';
import { viewerTrans } from './i18n';
import { NO_TIME_COLOUR, timeLegend } from './profile-colour';
import {
  MeasuredParts,
  measuredStepsTable,
  memoryChart,
  ranksList
} from './profile-measured';
import type * as schema from './payload.generated';

// generated from graph.schema.json (see ./types.ts)
export type ProfileKernel = schema.Profile['kernels'][number];

export type ProfileStep = schema.Profile['steps'][number];

/**
 * The payload's `profile` section. The schema's fields, and what ascend_lab.profile adds
 * from the Ascend profiler's own files, which graph.schema.json does not list yet (it lets
 * them through: the section allows more properties).
 */
export interface ProfileSection extends schema.Profile {
  /** from the Ascend profiler's own files (optional; see ./profile-measured.ts) */
  measured_steps?: MeasuredParts['measured_steps'];
  memory?: MeasuredParts['memory'];
  rank?: number | null;
  ranks?: MeasuredParts['ranks'];
  /** where the step times come from: the profiler's step table, or the kernels' span as
   * the labelled fallback (ascend_lab/profiling/step_table.py; absent in older payloads) */
  step_source?: string | null;
}

/** The section if it has the fields this view reads, else an error message. */
export function checkProfile(value: unknown): ProfileSection | string {
  if (typeof value !== 'object' || value === null) {
    return 'profile must be an object';
  }
  const p = value as Record<string, unknown>;
  for (const key of ['steps', 'kernels', 'lanes', 'launches', 'notes']) {
    if (!Array.isArray(p[key])) {
      return `profile.${key} must be a list`;
    }
  }
  const kernels = p.kernels as unknown[];
  for (let i = 0; i < kernels.length; i++) {
    const k = kernels[i] as Record<string, unknown>;
    if (
      typeof k !== 'object' ||
      k === null ||
      typeof k.name !== 'string' ||
      typeof k.op_type !== 'string' ||
      typeof k.total_us !== 'number' ||
      typeof k.mean_us !== 'number' ||
      typeof k.calls !== 'number' ||
      !(k.node === null || typeof k.node === 'string')
    ) {
      return `profile.kernels[${i}] needs name, op_type, node, calls, total_us, mean_us`;
    }
  }
  const nk = kernels.length;
  const nl = (p.lanes as unknown[]).length;
  const launches = p.launches as unknown[];
  for (let i = 0; i < launches.length; i++) {
    const l = launches[i];
    if (
      !Array.isArray(l) ||
      l.length !== 5 ||
      !Number.isInteger(l[0]) ||
      l[0] < 0 ||
      l[0] >= nk ||
      !Number.isInteger(l[1]) ||
      l[1] < 0 ||
      l[1] >= nl ||
      typeof l[2] !== 'number' ||
      typeof l[3] !== 'number'
    ) {
      return `profile.launches[${i}] must be [kernel, lane, start, duration, step] within range`;
    }
  }
  return value as ProfileSection;
}

/** 1234.5 -> "1.23 ms", 12.3 -> "12.3 µs". */
export function formatUs(us: number): string {
  if (us >= 1e6) {
    return `${(us / 1e6).toFixed(2)} s`;
  }
  if (us >= 1000) {
    return `${(us / 1000).toFixed(2)} ms`;
  }
  return `${us.toFixed(us >= 100 ? 0 : 1)} \u00b5s`;
}

/** Per graph node: measured time per step (for colouring) and the node panel's rows. */
export function nodeTimes(p: ProfileSection): Map<string, number> {
  const steps = Math.max(1, p.steps.length);
  const out = new Map<string, number>();
  for (const k of p.kernels) {
    if (k.node !== null) {
      out.set(k.node, (out.get(k.node) ?? 0) + k.total_us / steps);
    }
  }
  return out;
}

export function describeNodeTime(
  p: ProfileSection,
  nodeId: string
): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const t = viewerTrans();
  for (const k of p.kernels) {
    if (k.node === nodeId) {
      rows.push([
        'time per call',
        typeof k.share === 'number'
          ? t.__(
              '%1 (%2 calls, total %3, %4% of the step)',
              formatUs(k.mean_us),
              k.calls,
              formatUs(k.total_us),
              (k.share * 100).toFixed(1)
            )
          : t.__(
              '%1 (%2 calls, total %3)',
              formatUs(k.mean_us),
              k.calls,
              formatUs(k.total_us)
            )
      ]);
      if (k.core) {
        rows.push(['accelerator core', k.core]);
      }
    }
  }
  for (const u of p.unmeasured_nodes ?? []) {
    if (u.node === nodeId) {
      rows.push(['time', t.__('not measured: %1', u.reason)]);
    }
  }
  return rows;
}

const STYLE = `
.al-prof { padding: 6px; overflow: auto; }
.al-prof h4 { margin: 8px 0 4px; font-size: 12px; }
.al-prof .al-prof-sum { color: var(--al-fg2); margin: 2px 0; }
.al-prof .al-prof-notes li { color: var(--al-fg2); }
.al-prof .al-prof-steps-from { color: var(--al-fg2); margin: 2px 0; }
.al-prof .al-prof-steps-from.al-prof-fallback { font-style: italic; }
.al-prof table { border-collapse: collapse; width: 100%; }
.al-prof th, .al-prof td { text-align: left; padding: 2px 6px; border-bottom: 1px solid var(--al-border); white-space: nowrap; }
.al-prof td.al-num, .al-prof th.al-num { text-align: right; }
.al-prof tr.al-prof-row { cursor: pointer; }
.al-prof tr.al-prof-row:hover, .al-prof tr.al-prof-row:focus { background: var(--al-bg2); }
.al-prof tr.al-sel { outline: 2px solid var(--al-linked); }
.al-prof .al-gantt rect.al-bar { cursor: pointer; }
.al-prof .al-gantt rect.al-sel { stroke: var(--al-linked); stroke-width: 2; }
.al-prof .al-gantt .al-stepbg { fill: var(--al-bg2); }
.al-prof .al-gantt text { fill: var(--al-fg); font-size: 10px; }
.al-prof .al-share { display: inline-block; height: 8px; background: var(--al-accent); vertical-align: middle; }
`;

const W = 760;
const LEFT = 70;
const LANE_H = 22;
const AXIS_H = 22;
const TOP_N = 20;

export class ProfileView {
  readonly el: HTMLDivElement;
  readonly svg: SVGSVGElement;
  selectedNode: string | null = null;
  selectedKernel: number | null = null;
  onSelect: (nodeId: string) => void = () => undefined;
  /** the time window shown by the Gantt chart (µs, relative) */
  window: [number, number];
  private readonly full: [number, number];
  private rows = new Map<number, HTMLTableRowElement>();
  private status: HTMLSpanElement;

  constructor(
    readonly profile: ProfileSection,
    private nodeLabel: (id: string) => string
  ) {
    const p = profile;
    let t0 = Infinity;
    let t1 = -Infinity;
    for (const st of p.steps) {
      t0 = Math.min(t0, st.start_us);
      t1 = Math.max(t1, st.start_us + st.wall_us);
    }
    for (const l of p.launches) {
      t0 = Math.min(t0, l[2]);
      t1 = Math.max(t1, l[2] + l[3]);
    }
    if (!Number.isFinite(t0)) {
      t0 = 0;
      t1 = 1;
    }
    this.full = [t0, Math.max(t1, t0 + 1)];
    this.window = [...this.full];
    const t = viewerTrans();
    this.svg = s('svg', {
      class: 'al-svg al-gantt',
      width: W,
      height: AXIS_H + Math.max(1, p.lanes.length) * LANE_H + 8,
      role: 'img',
      'aria-label': t.__(
        'Kernel launches over time: %1 launches on %2 lane(s)',
        p.launches.length,
        p.lanes.length
      )
    });
    this.svg.addEventListener('wheel', ev => this.wheel(ev), { passive: false });
    this.status = h('span', { class: 'al-status', role: 'status' });
    const zoomIn = h(
      'button',
      { type: 'button', title: t.__('Zoom in (or wheel)') },
      '+'
    );
    const zoomOut = h('button', { type: 'button', title: t.__('Zoom out') }, '\u2212');
    const reset = h(
      'button',
      { type: 'button', title: t.__('Show all steps') },
      t.__('All')
    );
    const left = h('button', { type: 'button', title: t.__('Earlier') }, '\u2190');
    const right = h('button', { type: 'button', title: t.__('Later') }, '\u2192');
    zoomIn.addEventListener('click', () => this.zoom(0.5));
    zoomOut.addEventListener('click', () => this.zoom(2));
    reset.addEventListener('click', () => this.setWindow(...this.full));
    left.addEventListener('click', () => this.pan(-0.4));
    right.addEventListener('click', () => this.pan(0.4));
    const toolbar = h(
      'div',
      { class: 'al-toolbar', role: 'toolbar', 'aria-label': t.__('Timeline tools') },
      zoomIn,
      zoomOut,
      left,
      right,
      reset,
      this.status
    );
    this.el = h(
      'div',
      { class: 'al-view al-prof', 'data-view': 'profile' },
      h('style', {}, STYLE),
      this.summary(),
      ranksList(p),
      measuredStepsTable(p),
      h(
        'h4',
        {},
        t.__('Timeline (kernel launches per thread / stream; shaded: measured steps)')
      ),
      toolbar,
      this.svg,
      h(
        'h4',
        {},
        t.__('Top %1 kernels by total time', Math.min(TOP_N, p.kernels.length))
      ),
      this.table(),
      memoryChart(p),
      this.leftovers()
    );
    this.draw();
  }

  private summary(): HTMLElement {
    const p = this.profile;
    const box = h('div', { class: 'al-prof-head' });
    const n = p.steps.length;
    if (n) {
      const mean = (f: (st: ProfileStep) => number): number =>
        p.steps.reduce((a, st) => a + f(st), 0) / n;
      box.appendChild(
        h(
          'p',
          { class: 'al-prof-sum' },
          viewerTrans().__(
            '%1 step(s) (%2), mean %3: kernels %4, communication %5, host/launch gaps %6',
            n,
            p.source,
            formatUs(mean(st => st.wall_us)),
            formatUs(mean(st => st.busy_us)),
            formatUs(mean(st => st.communication_us ?? 0)),
            formatUs(mean(st => st.gap_us))
          )
        )
      );
      if (typeof p.step_source === 'string' && p.step_source) {
        box.appendChild(
          h(
            'p',
            {
              class:
                'al-prof-steps-from' +
                (p.step_source.includes('fallback') ? ' al-prof-fallback' : '')
            },
            viewerTrans().__('step times from: %1', p.step_source)
          )
        );
      }
    }
    if (p.notes.length) {
      const ul = h('ul', { class: 'al-prof-notes' });
      for (const note of p.notes) {
        ul.appendChild(h('li', {}, note));
      }
      box.appendChild(ul);
    }
    return box;
  }

  private table(): HTMLTableElement {
    const p = this.profile;
    const order = p.kernels
      .map((k, i) => [k, i] as [ProfileKernel, number])
      .sort((a, b) => b[0].total_us - a[0].total_us)
      .slice(0, TOP_N);
    const top = order.length ? order[0][0].total_us : 1;
    const t = viewerTrans();
    const table = h(
      'table',
      { class: 'al-prof-table', 'aria-label': t.__('Slowest kernels') },
      h(
        'tr',
        {},
        h('th', {}, t.__('kernel')),
        h('th', {}, t.__('type')),
        h('th', {}, t.__('node')),
        h('th', { class: 'al-num' }, t.__('calls')),
        h('th', { class: 'al-num' }, t.__('per call')),
        h('th', { class: 'al-num' }, t.__('total')),
        h('th', {}, t.__('share of step'))
      )
    );
    for (const [k, i] of order) {
      const share =
        typeof k.share === 'number' ? `${(k.share * 100).toFixed(1)}%` : '-';
      const row = h(
        'tr',
        {
          class: 'al-prof-row',
          tabindex: 0,
          'data-kernel': i,
          'data-node': k.node ?? '',
          title: k.name
        },
        h('td', {}, k.name.split('/').slice(-2).join('/')),
        h('td', {}, k.core ? `${k.op_type} (${k.core})` : k.op_type),
        h('td', {}, k.node ? this.nodeLabel(k.node) : t.__('not joined')),
        h('td', { class: 'al-num' }, String(k.calls)),
        h('td', { class: 'al-num' }, formatUs(k.mean_us)),
        h('td', { class: 'al-num' }, formatUs(k.total_us)),
        h(
          'td',
          {},
          h('span', {
            class: 'al-share',
            style: `width:${Math.max(1, Math.round((60 * k.total_us) / top))}px`
          }),
          ` ${share}`
        )
      );
      row.addEventListener('click', () => this.pick(i));
      row.addEventListener('keydown', (ev: KeyboardEvent) => {
        if (ev.key === 'Enter') {
          this.pick(i);
        }
      });
      this.rows.set(i, row);
      table.appendChild(row);
    }
    return table;
  }

  private leftovers(): HTMLElement {
    const p = this.profile;
    const box = h('div', {});
    const rows = p.unjoined_rows ?? [];
    const nodes = p.unmeasured_nodes ?? [];
    if (rows.length) {
      box.appendChild(
        h(
          'h4',
          {},
          viewerTrans().__('Profiler rows not on a graph node (%1)', rows.length)
        )
      );
      const ul = h('ul', { class: 'al-prof-unjoined' });
      for (const r of rows) {
        ul.appendChild(h('li', {}, `${r.name}: ${r.reason}`));
      }
      box.appendChild(ul);
    }
    if (nodes.length) {
      box.appendChild(
        h(
          'h4',
          {},
          viewerTrans().__('Graph kernels without a measured time (%1)', nodes.length)
        )
      );
      const ul = h('ul', { class: 'al-prof-unmeasured' });
      for (const u of nodes) {
        ul.appendChild(h('li', {}, `${u.name ?? u.node ?? '?'}: ${u.reason}`));
      }
      box.appendChild(ul);
    }
    return box;
  }

  /** Redraw the Gantt chart for the current window (bars outside it are skipped). */
  draw(): void {
    const p = this.profile;
    clear(this.svg);
    const [w0, w1] = this.window;
    const span = Math.max(1e-6, w1 - w0);
    const sx = (t: number): number => LEFT + ((W - LEFT - 8) * (t - w0)) / span;
    const height = AXIS_H + Math.max(1, p.lanes.length) * LANE_H;
    for (const st of p.steps) {
      const a = Math.max(st.start_us, w0);
      const b = Math.min(st.start_us + st.wall_us, w1);
      if (b > a) {
        this.svg.appendChild(
          s(
            'rect',
            {
              class: 'al-stepbg',
              x: sx(a),
              y: AXIS_H,
              width: sx(b) - sx(a),
              height: height - AXIS_H
            },
            s(
              'title',
              {},
              viewerTrans().__(
                'step %1: %2, gaps %3',
                st.index,
                formatUs(st.wall_us),
                formatUs(st.gap_us)
              )
            )
          )
        );
      }
    }
    p.lanes.forEach((lane, i) => {
      this.svg.appendChild(s('text', { x: 4, y: AXIS_H + i * LANE_H + 15 }, lane));
    });
    for (let t = 0; t <= 4; t++) {
      const at = w0 + (span * t) / 4;
      this.svg.appendChild(
        s(
          'text',
          {
            x: sx(at),
            y: 12,
            'text-anchor': t === 4 ? 'end' : t === 0 ? 'start' : 'middle'
          },
          formatUs(at - this.full[0])
        )
      );
    }
    let shown = 0;
    for (const [ki, li, start, dur] of p.launches) {
      if (start + dur < w0 || start > w1) {
        continue;
      }
      const k = p.kernels[ki];
      const x = sx(Math.max(start, w0));
      const width = Math.max(1, sx(Math.min(start + dur, w1)) - x);
      const bar = s(
        'rect',
        {
          class: 'al-bar',
          x: x.toFixed(1),
          y: AXIS_H + li * LANE_H + 3,
          width: width.toFixed(1),
          height: LANE_H - 6,
          fill: `hsl(${hue(k.op_type)}, 60%, 50%)`,
          'data-kernel': ki,
          'data-node': k.node ?? ''
        },
        s('title', {}, `${k.name} (${k.op_type}): ${formatUs(dur)}`)
      );
      bar.addEventListener('click', () => this.pick(ki));
      this.svg.appendChild(bar);
      shown++;
    }
    const tr = viewerTrans();
    const dropped = p.launches_dropped
      ? tr.__(', %1 not in the payload', p.launches_dropped)
      : '';
    this.status.textContent =
      tr.__(
        '%1 of %2 launches shown, window %3',
        shown,
        p.launches.length,
        formatUs(span)
      ) + dropped;
    this.highlight();
  }

  setWindow(a: number, b: number): void {
    const [f0, f1] = this.full;
    const span = Math.min(f1 - f0, Math.max(0.5, b - a));
    let start = Math.max(f0, Math.min(a, f1 - span));
    if (!Number.isFinite(start)) {
      start = f0;
    }
    this.window = [start, start + span];
    this.draw();
  }

  zoom(factor: number, centre?: number): void {
    const [a, b] = this.window;
    const c = centre ?? (a + b) / 2;
    this.setWindow(c - (c - a) * factor, c + (b - c) * factor);
  }

  pan(fraction: number): void {
    const [a, b] = this.window;
    const d = (b - a) * fraction;
    this.setWindow(a + d, b + d);
  }

  private wheel(ev: WheelEvent): void {
    ev.preventDefault();
    const rect = this.svg.getBoundingClientRect();
    const [a, b] = this.window;
    const frac = rect.width
      ? (ev.clientX - rect.left - LEFT) / (rect.width - LEFT - 8)
      : 0.5;
    this.zoom(ev.deltaY < 0 ? 0.8 : 1.25, a + (b - a) * Math.min(1, Math.max(0, frac)));
  }

  private pick(kernel: number): void {
    const k = this.profile.kernels[kernel];
    this.selectedKernel = kernel;
    this.selectedNode = k.node;
    this.highlight();
    if (k.node !== null) {
      this.onSelect(k.node);
    }
  }

  /** Highlight the bars and rows of a graph node (from a selection in the graph). */
  setSelected(nodeId: string | null): void {
    this.selectedNode = nodeId;
    this.selectedKernel = null;
    this.highlight();
  }

  private isSelected(kernel: number): boolean {
    const k = this.profile.kernels[kernel];
    return (
      kernel === this.selectedKernel ||
      (this.selectedNode !== null && k.node === this.selectedNode)
    );
  }

  private highlight(): void {
    for (const bar of Array.from(this.svg.querySelectorAll('rect.al-bar'))) {
      const ki = Number(bar.getAttribute('data-kernel'));
      bar.classList.toggle('al-sel', this.isSelected(ki));
    }
    for (const [ki, row] of this.rows) {
      const on = this.isSelected(ki);
      row.classList.toggle('al-sel', on);
      row.setAttribute('aria-selected', on ? 'true' : 'false');
    }
  }
}

/** The legend shown next to "colour: measured time" in the graph's toolbar. */
export function timeLegendElement(times: Map<string, number>): HTMLSpanElement {
  const el = h('span', {
    class: 'al-time-legend',
    'aria-label': viewerTrans().__('Measured time colours')
  });
  for (const [us, colour] of timeLegend(times)) {
    el.appendChild(
      h('span', {
        style: `display:inline-block;width:10px;height:10px;margin:0 2px 0 6px;background:${colour}`
      })
    );
    el.appendChild(document.createTextNode(viewerTrans().__('%1/step', formatUs(us))));
  }
  el.appendChild(
    h('span', {
      style: `display:inline-block;width:10px;height:10px;margin:0 2px 0 6px;background:${NO_TIME_COLOUR}`
    })
  );
  el.appendChild(document.createTextNode(viewerTrans().__('not measured')));
  return el;
}
