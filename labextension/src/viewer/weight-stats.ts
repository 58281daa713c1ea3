/**
 * A weight's statistics in the node panel, on request: a "Statistics" button when the host
 * can compute them (`onRequestWeightStats(name)`: the JupyterLab document asks the server,
 * `ascend-lab view --serve` its own server, a page written with `--weight-stats` reads them
 * from the page), else a line saying how to get them. Drawn as numbers and a small SVG
 * histogram; every string is set as text.
 */
import { clear, h, s } from './dom';
import { viewerTrans } from './i18n';
import { GraphNode, Payload } from './types';

/** What ascend_lab/viewfile/weight_stats.py answers for one weight. */
export interface WeightStats {
  name: string;
  dtype: string;
  shape: number[];
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
  zeros: number;
  nan: number;
  inf: number;
  histogram: { edges: number[]; counts: number[] };
}

export type WeightStatsLoader = (name: string) => Promise<unknown>;

/** How the node panel gets a weight's statistics: a loader, or a hint saying how. */
export interface WeightStatsSource {
  load: WeightStatsLoader | null;
  hint: string;
}

const MAX_BINS = 256;

function isNumberOrNull(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isFinite(v));
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** The statistics in `raw`, checked (a host's answer is data, not trusted code). */
export function checkWeightStats(raw: unknown): WeightStats {
  const t = viewerTrans();
  const bad = (what: string): Error =>
    new Error(t.__('unexpected statistics answer (%1)', what));
  if (typeof raw !== 'object' || raw === null) {
    throw bad('not an object');
  }
  const r = raw as Record<string, unknown>;
  for (const key of ['count', 'zeros', 'nan', 'inf']) {
    if (!isCount(r[key])) {
      throw bad(key);
    }
  }
  for (const key of ['min', 'max', 'mean', 'std']) {
    if (!isNumberOrNull(r[key])) {
      throw bad(key);
    }
  }
  const hist = r.histogram as { edges?: unknown; counts?: unknown } | undefined;
  const edges = hist?.edges;
  const counts = hist?.counts;
  if (
    !Array.isArray(edges) ||
    !Array.isArray(counts) ||
    counts.length > MAX_BINS ||
    (counts.length > 0 && edges.length !== counts.length + 1) ||
    !edges.every(e => typeof e === 'number' && Number.isFinite(e)) ||
    !counts.every(isCount)
  ) {
    throw bad('histogram');
  }
  return {
    name: String(r.name ?? ''),
    dtype: String(r.dtype ?? ''),
    shape: Array.isArray(r.shape) ? r.shape.map(Number) : [],
    count: r.count as number,
    min: r.min as number | null,
    max: r.max as number | null,
    mean: r.mean as number | null,
    std: r.std as number | null,
    zeros: r.zeros as number,
    nan: r.nan as number,
    inf: r.inf as number,
    histogram: { edges: edges as number[], counts: counts as number[] }
  };
}

/**
 * The node panel's source of statistics for a payload: only a `.mindir` has weights with
 * values; null for anything else. The loader's answers are kept per weight.
 */
export function weightStatsSource(
  payload: Payload,
  load: WeightStatsLoader | undefined
): WeightStatsSource | null {
  if (!load && payload.meta.source !== 'mindir') {
    return null;
  }
  const t = viewerTrans();
  const cache = new Map<string, Promise<unknown>>();
  return {
    load: load
      ? name => {
          let answer = cache.get(name);
          if (!answer) {
            answer = load(name);
            cache.set(name, answer);
            answer.catch(() => cache.delete(name)); // a failed request may be retried
          }
          return answer;
        }
      : null,
    hint: t.__(
      'Statistics are not in this page. Write it with `ascend-lab view MODEL.mindir --weight-stats -o PAGE.html`, or open the file with `ascend-lab view --serve` or in JupyterLab.'
    )
  };
}

function number(v: number | null): string {
  if (v === null) {
    return '\u2014';
  }
  if (Number.isInteger(v) && Math.abs(v) < 1e15) {
    return String(v);
  }
  return Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6
    ? v.toPrecision(6)
    : v.toExponential(5);
}

/** A bar chart of the histogram: one bar per bin, its range and count in a tooltip. */
export function histogramSvg(stats: WeightStats): SVGSVGElement {
  const { edges, counts } = stats.histogram;
  const width = 256;
  const height = 64;
  const svg = s('svg', {
    class: 'al-weight-histogram',
    width,
    height: height + 14,
    viewBox: `0 0 ${width} ${height + 14}`,
    role: 'img',
    'aria-label': viewerTrans().__('Histogram of %1 values', stats.name)
  });
  const top = Math.max(1, ...counts);
  const bar = width / Math.max(1, counts.length);
  counts.forEach((c, i) => {
    const barHeight = c === 0 ? 0 : Math.max(1, (c / top) * height);
    const rect = s('rect', {
      x: (i * bar).toFixed(2),
      y: (height - barHeight).toFixed(2),
      width: Math.max(0.5, bar - 1).toFixed(2),
      height: barHeight.toFixed(2),
      fill: 'currentColor',
      'data-count': c
    });
    rect.appendChild(
      s('title', {}, `[${number(edges[i])}, ${number(edges[i + 1])}]: ${c}`)
    );
    svg.appendChild(rect);
  });
  if (edges.length) {
    svg.appendChild(
      s('text', { x: 0, y: height + 12, 'font-size': 10 }, number(edges[0]))
    );
    svg.appendChild(
      s(
        'text',
        { x: width, y: height + 12, 'font-size': 10, 'text-anchor': 'end' },
        number(edges[edges.length - 1])
      )
    );
  }
  return svg;
}

/** The numbers and the histogram of `stats`. */
export function statsElement(stats: WeightStats): HTMLElement {
  const t = viewerTrans();
  const rows: Array<[string, string, string]> = [
    ['min', t.__('min'), number(stats.min)],
    ['max', t.__('max'), number(stats.max)],
    ['mean', t.__('mean'), number(stats.mean)],
    ['std', t.__('std'), number(stats.std)],
    ['count', t.__('values'), String(stats.count)],
    ['zeros', t.__('zeros'), String(stats.zeros)],
    ['nan', 'NaN', String(stats.nan)],
    ['inf', 'Inf', String(stats.inf)]
  ];
  const table = h('table', { class: 'al-node-table al-weight-table' });
  for (const [key, label, value] of rows) {
    table.appendChild(
      h('tr', {}, h('td', {}, label), h('td', { 'data-stat': key }, value))
    );
  }
  const box = h('div', { class: 'al-weight-stats-result' }, table);
  if (stats.histogram.counts.length) {
    box.appendChild(histogramSvg(stats));
  }
  return box;
}

/**
 * The panel's statistics section for weight `node` (`heading`: under its own "Statistics"
 * title, as in a weight's panel; without, as a button in an op's list of weights).
 */
export function weightStatsSection(
  node: GraphNode,
  source: WeightStatsSource,
  heading = true
): HTMLElement {
  const t = viewerTrans();
  const name = node.name ?? node.id;
  const section = h('div', { class: 'al-weight-stats', 'data-weight': name });
  if (heading) {
    section.appendChild(h('h3', {}, t.__('Statistics')));
  }
  const load = source.load;
  if (!load) {
    section.appendChild(
      h('p', { class: 'al-muted al-weight-stats-hint' }, source.hint)
    );
    return section;
  }
  const body = h('div', {});
  const button = h(
    'button',
    { type: 'button', class: 'al-weight-stats-button' },
    t.__('Statistics')
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    clear(body);
    body.appendChild(
      h('p', { class: 'al-muted' }, t.__('Computing statistics of %1 …', name))
    );
    load(name)
      .then(raw => {
        clear(body);
        body.appendChild(statsElement(checkWeightStats(raw)));
      })
      .catch((err: unknown) => {
        clear(body);
        const message = err instanceof Error ? err.message : String(err);
        body.appendChild(
          h(
            'p',
            { class: 'al-error', role: 'alert' },
            t.__('No statistics: %1', message)
          )
        );
        button.disabled = false;
      });
  });
  section.append(button, body);
  return section;
}

/**
 * The loader of a standalone page, from its `<script type="application/json"
 * id="ascend-lab-weight-stats">`: `{"stats": {name: stats or {"error": message}}}` (written
 * by `ascend-lab view --weight-stats`), or `{"endpoint": "weight-stats"}` (a page served by
 * `ascend-lab view --serve`, which answers `endpoint?name=`, with the page's own `?token=`).
 * Undefined without it.
 */
export function pageWeightStatsLoader(
  el: Element | null
): WeightStatsLoader | undefined {
  if (!el) {
    return undefined;
  }
  const data = JSON.parse(el.textContent ?? '') as {
    stats?: Record<string, unknown>;
    endpoint?: unknown;
  };
  const stats = data.stats;
  if (stats && typeof stats === 'object') {
    return name => {
      const entry = Object.prototype.hasOwnProperty.call(stats, name)
        ? stats[name]
        : null;
      if (entry === null || typeof entry !== 'object') {
        return Promise.reject(
          new Error(viewerTrans().__('this page has no statistics of %1', name))
        );
      }
      const error = (entry as { error?: unknown }).error;
      return typeof error === 'string'
        ? Promise.reject(new Error(error))
        : Promise.resolve(entry);
    };
  }
  if (typeof data.endpoint === 'string') {
    const endpoint = data.endpoint;
    // `--serve` answers only requests carrying the token of the URL it printed
    const token = new URLSearchParams(window.location.search).get('token');
    const auth = token ? `&token=${encodeURIComponent(token)}` : '';
    return async name => {
      const response = await fetch(
        `${endpoint}?name=${encodeURIComponent(name)}${auth}`
      );
      const body = (await response.json()) as { message?: unknown };
      if (!response.ok) {
        throw new Error(
          typeof body?.message === 'string' ? body.message : String(response.status)
        );
      }
      return body;
    };
  }
  return undefined;
}
