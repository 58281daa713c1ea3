/**
 * Parts of the Profile tab read from the Ascend profiler's own files (payload
 * `profile.measured_steps`, `profile.memory`, `profile.ranks`; see
 * ascend_lab/profiling/payload.py): the measured step breakdown of step_trace_time.csv,
 * memory over time (memory_record.csv / operator_memory.csv) and the rank folders beside.
 * Every string from the payload is set as text.
 */
import { h, s } from './dom';
import { viewerTrans } from './i18n';

export interface MeasuredStep {
  step: number | null;
  rank: number | null;
  computing_us: number | null;
  communication_not_overlapped_us: number | null;
  overlapped_us?: number | null;
  free_us: number | null;
  bubble_us?: number | null;
  total_us?: number | null;
}

export interface MemorySeries {
  unit?: string;
  series: Record<string, Array<[number, number]>>;
  peak_mb?: Record<string, number>;
}

export interface RankEntry {
  rank: number | null;
  path: string;
  analysed: boolean;
  measured_steps?: MeasuredStep[];
}

export interface MeasuredParts {
  measured_steps?: MeasuredStep[];
  memory?: MemorySeries | null;
  rank?: number | null;
  ranks?: RankEntry[];
}

function us(value: number | null | undefined): string {
  if (typeof value !== 'number') {
    return '-';
  }
  return value >= 1000
    ? `${(value / 1000).toFixed(3)} ms`
    : `${value.toFixed(1)} \u00b5s`;
}

function cell(tag: 'td' | 'th', text: string): HTMLElement {
  return h(tag, {}, text);
}

/** The measured steps as a table (null when the profile has none). */
export function measuredStepsTable(p: MeasuredParts): HTMLElement | null {
  const steps = Array.isArray(p.measured_steps) ? p.measured_steps : [];
  if (!steps.length) {
    return null;
  }
  const t = viewerTrans();
  const head = [
    t.__('step'),
    t.__('rank'),
    t.__('computing'),
    t.__('communication (not overlapped)'),
    t.__('overlapped'),
    t.__('free'),
    t.__('bubble'),
    t.__('total')
  ];
  const table = h('table', { class: 'al-prof-table al-prof-measured' });
  table.appendChild(h('tr', {}, ...head.map(x => cell('th', x))));
  for (const m of steps) {
    table.appendChild(
      h(
        'tr',
        { class: 'al-prof-measured-row' },
        cell('td', m.step === null || m.step === undefined ? '-' : String(m.step)),
        cell('td', m.rank === null || m.rank === undefined ? '-' : String(m.rank)),
        cell('td', us(m.computing_us)),
        cell('td', us(m.communication_not_overlapped_us)),
        cell('td', us(m.overlapped_us)),
        cell('td', us(m.free_us)),
        cell('td', us(m.bubble_us)),
        cell('td', us(m.total_us))
      )
    );
  }
  return h(
    'div',
    {},
    h('h4', {}, t.__('Measured steps (the profiler\u2019s step_trace_time.csv)')),
    table
  );
}

const MW = 760;
const MH = 160;
const PAD = 40;

/** Memory over time as one line per series (null when the profile has none). */
export function memoryChart(p: MeasuredParts): HTMLElement | null {
  const series = p.memory && typeof p.memory === 'object' ? p.memory.series : null;
  const names = series ? Object.keys(series).filter(k => Array.isArray(series[k])) : [];
  const numeric = (pt: unknown): pt is [number, number] =>
    Array.isArray(pt) && typeof pt[0] === 'number' && typeof pt[1] === 'number';
  const clean: Record<string, Array<[number, number]>> = {};
  for (const n of names) {
    clean[n] = (series![n] as unknown[]).filter(numeric);
  }
  const points = names.flatMap(n => clean[n]);
  if (!series || !points.length) {
    return null;
  }
  const t = viewerTrans();
  let t0 = Infinity;
  let t1 = -Infinity;
  let top = 0;
  for (const [x, y] of points) {
    t0 = Math.min(t0, x);
    t1 = Math.max(t1, x);
    top = Math.max(top, y);
  }
  const span = Math.max(t1 - t0, 1);
  const high = Math.max(top, 1e-9);
  const svg = s('svg', {
    class: 'al-svg al-prof-memory',
    width: MW,
    height: MH + 24,
    role: 'img',
    'aria-label': t.__(
      'Memory over time: %1 series, peak %2 MB',
      names.length,
      top.toFixed(1)
    )
  });
  names.forEach((name, i) => {
    const line = clean[name]
      .map(
        ([x, y]) =>
          `${(PAD + ((x - t0) / span) * (MW - PAD - 8)).toFixed(1)},` +
          `${(8 + (1 - y / high) * MH).toFixed(1)}`
      )
      .join(' ');
    const poly = s('polyline', {
      points: line,
      fill: 'none',
      stroke: `hsl(${(i * 97) % 360} 60% 45%)`,
      'stroke-width': 1.5,
      'data-series': name
    });
    poly.appendChild(s('title', {}, name));
    svg.appendChild(poly);
  });
  const axis = s('text', { x: 2, y: 16, class: 'al-axis' }, `${top.toFixed(1)} MB`);
  svg.appendChild(axis);
  const legend = h(
    'p',
    { class: 'al-prof-memory-legend' },
    names
      .map(
        n =>
          `${n}: ${t.__('peak %1 MB', Number(p.memory!.peak_mb?.[n] ?? 0).toFixed(1))}`
      )
      .join(' \u00b7 ')
  );
  return h('div', {}, h('h4', {}, t.__('Memory over time')), svg, legend);
}

/** The rank folders found beside this one (null with fewer than two). */
export function ranksList(p: MeasuredParts): HTMLElement | null {
  const ranks = Array.isArray(p.ranks) ? p.ranks : [];
  if (ranks.length < 2) {
    return null;
  }
  const t = viewerTrans();
  const ul = h('ul', { class: 'al-prof-ranks' });
  for (const r of ranks) {
    const name = r.rank === null || r.rank === undefined ? '?' : String(r.rank);
    const shown =
      r.rank === p.rank ? t.__('rank %1 (shown)', name) : t.__('rank %1', name);
    const state = r.analysed ? '' : ` \u2014 ${t.__('not analysed yet')}`;
    ul.appendChild(h('li', { title: r.path }, `${shown}${state}`));
  }
  return h(
    'div',
    {},
    h('h4', {}, t.__('Ranks (%1 profiler folders)', ranks.length)),
    ul
  );
}
