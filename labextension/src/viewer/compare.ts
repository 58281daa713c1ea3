/**
 * Two graphs side by side with linked selection: before / after fusion (through
 * fusion.kernels), and two traces compared (through the payload's `compare` alignment,
 * ascend_lab.compare). One pair of panes, one linking rule per use.
 */
import { h } from './dom';
import { FusionIndex, fusionLinks, indexFusion, kernelCount } from './fusion';
import { GraphPane } from './graph-pane';
import { viewerTrans } from './i18n';
import { LayoutClient } from './layout-client';
import { PanesView } from './panes-view';
import {
  CompareMatch,
  CompareSection,
  GraphData,
  GraphNode,
  Payload,
  formatBytes
} from './types';

const cache = new WeakMap<Payload, FusionIndex>();

export function fusionIndexFor(p: Payload): FusionIndex {
  let index = cache.get(p);
  if (!index) {
    index = indexFusion(p.fusion);
    cache.set(p, index);
  }
  return index;
}

/** What a pair of linked panes shows and how a selection on one side links the other. */
interface LinkedPanes {
  name: string;
  /** the panes' `data-pane` names */
  paneKeys: [string, string];
  /** the graphs' keys in the payload */
  keys: [string, string];
  titles: [string, string];
  graphs: [GraphData, GraphData];
  /** ids to highlight on side 0 and side 1 when `id` is selected on `side` */
  links(side: 0 | 1, id: string): [string[], string[]];
  describe(side: 0 | 1, node: GraphNode): Array<[string, string]>;
  /** per side: nodes coloured as added and as modified (colour: changed) */
  marks?: [
    { added: string[]; modified: string[] },
    { added: string[]; modified: string[] }
  ];
}

function linkedPanes(
  layout: LayoutClient,
  spec: LinkedPanes,
  onSelect: (graphKey: string, id: string | null) => void
): PanesView {
  const view = new PanesView(
    layout,
    [
      { key: spec.paneKeys[0], title: spec.titles[0] },
      { key: spec.paneKeys[1], title: spec.titles[1] }
    ],
    spec.name,
    spec.marks ? 'changed' : 'op'
  );
  const panes = view.panes;
  const sideOf = (pane: GraphPane): 0 | 1 => (pane === panes[1] ? 1 : 0);
  view.describe = (node, pane) => spec.describe(sideOf(pane), node);
  view.onSelect = (id, pane) => {
    const side = sideOf(pane);
    if (id === null) {
      panes[0].setLinked([]);
      panes[1].setLinked([]);
      return;
    }
    const links = spec.links(side, id);
    panes[0].setLinked(links[0]);
    panes[1].setLinked(links[1]);
    // make sure the linked nodes are drawn (expand their groups), without moving selection
    const other = panes[1 - side];
    let changed = false;
    for (const x of links[1 - side]) {
      changed = (other.model?.reveal(x) ?? false) || changed;
    }
    if (changed) {
      void other.relayout();
    }
    onSelect(spec.keys[side], id);
  };
  void panes[0].setGraph(spec.graphs[0], spec.marks?.[0]);
  void panes[1].setGraph(spec.graphs[1], spec.marks?.[1]);
  return view;
}

export function setupCompare(
  layout: LayoutClient,
  p: Payload,
  onSelect: (graphKey: string, id: string | null) => void
): PanesView {
  const beforeKey = p.views.before!;
  const afterKey = p.views.after!;
  const index = fusionIndexFor(p);
  const t = viewerTrans();
  const view = linkedPanes(
    layout,
    {
      name: 'compare',
      paneKeys: ['before', 'after'],
      keys: [beforeKey, afterKey],
      titles: [t.__('Before fusion'), t.__('After fusion')],
      graphs: [p.graphs[beforeKey], p.graphs[afterKey]],
      links: (side, id) => {
        const links = fusionLinks(index, side === 1 ? 'after' : 'before', id);
        return [links.before, side === 0 ? links.after : []];
      },
      describe: (side, node) => {
        const links = fusionLinks(index, side === 1 ? 'after' : 'before', node.id);
        const rows: Array<[string, string]> = [];
        if (side === 1 && links.before.length) {
          const k = p.fusion?.kernels?.find(x => x.kernel === node.id);
          rows.push(['fused kernel', k ? k.name : node.op]);
          rows.push(['fused from', links.before.join(', ')]);
        }
        if (side === 0 && links.after.length) {
          rows.push(['fused into', links.after.join(', ')]);
        }
        return rows;
      }
    },
    onSelect
  );
  const countBefore = p.fusion?.kernel_count_before ?? kernelCount(p.graphs[beforeKey]);
  const countAfter = p.fusion?.kernel_count_after ?? kernelCount(p.graphs[afterKey]);
  const fused = p.fusion?.kernels?.length ?? 0;
  view.titles[0].appendChild(
    Object.assign(document.createElement('span'), {
      className: 'al-sub',
      textContent:
        countBefore === 1 ? t.__('1 kernel') : t.__('%1 kernels', countBefore)
    })
  );
  view.titles[1].appendChild(
    Object.assign(document.createElement('span'), {
      className: 'al-sub',
      textContent: t.__('%1 kernels, %2 fused', countAfter, fused)
    })
  );
  view.titles[0].setAttribute('data-kernels', String(countBefore));
  view.titles[1].setAttribute('data-kernels', String(countAfter));
  return view;
}

/** The alignment of a `compare` section, indexed by node id on each side. */
export interface CompareIndex {
  byA: Map<string, CompareMatch>;
  byB: Map<string, CompareMatch>;
  removed: Set<string>;
  added: Set<string>;
}

export function indexCompare(c: CompareSection): CompareIndex {
  const byA = new Map<string, CompareMatch>();
  const byB = new Map<string, CompareMatch>();
  for (const m of c.matches) {
    m.a.forEach(x => byA.set(x, m));
    m.b.forEach(y => byB.set(y, m));
  }
  return { byA, byB, removed: new Set(c.removed), added: new Set(c.added) };
}

/** What to highlight on each side when `id` is selected on `side` (0 = A, 1 = B). */
export function compareLinks(
  index: CompareIndex,
  side: 0 | 1,
  id: string
): [string[], string[]] {
  const m = (side === 0 ? index.byA : index.byB).get(id);
  return m ? [[...m.a], [...m.b]] : [[], []];
}

function changedMatches(c: CompareSection): CompareMatch[] {
  return c.matches.filter(m => m.changes && Object.keys(m.changes).length > 0);
}

function changedIds(c: CompareSection, side: 'a' | 'b'): string[] {
  return changedMatches(c).flatMap(m => m[side]);
}

function pair(
  values: Array<number | null> | undefined,
  fmt: (v: number) => string
): string {
  const [a, b] = values ?? [null, null];
  const f = (v: number | null | undefined): string =>
    v === null || v === undefined ? '?' : fmt(v);
  return `${f(a)} → ${f(b)}`;
}

/** The summary bar: kernels, peak memory, Casts, time per step, and the node counts. */
export function compareSummary(c: CompareSection): HTMLDivElement {
  const t = viewerTrans();
  const s = c.summary ?? {};
  const item = (field: string, label: string, value: string): HTMLSpanElement =>
    h('span', { class: 'al-cmp-item', 'data-field': field }, `${label}: ${value}`);
  const bar = h(
    'div',
    {
      class: 'al-cmp-summary',
      role: 'status',
      'aria-label': t.__('Comparison summary')
    },
    h('span', { class: 'al-cmp-item' }, `A = ${c.titles[0]} · B = ${c.titles[1]}`),
    item('kernels', t.__('kernels'), pair(s.kernels, String)),
    item('peak', t.__('memory peak'), pair(s.peak, formatBytes)),
    item('casts', t.__('Cast kernels'), pair(s.casts, String)),
    item('casts_added', t.__('Casts added'), String(s.casts_added ?? 0)),
    item('matched', t.__('matched'), String(c.matches.length)),
    item('removed', t.__('only in A'), String(c.removed.length)),
    item('added', t.__('only in B'), String(c.added.length)),
    item('changed', t.__('changed'), String(changedMatches(c).length))
  );
  if (s.time_us && s.time_us.some(v => v !== null)) {
    bar.appendChild(
      item(
        'time',
        t.__('time per step'),
        pair(s.time_us, v => `${v.toFixed(1)} µs`)
      )
    );
  }
  return bar;
}

/** Two traces side by side (ascend_lab.compare): panes A and B linked through the alignment. */
export function setupTraceCompare(
  layout: LayoutClient,
  p: Payload,
  onSelect: (graphKey: string, id: string | null) => void
): { view: PanesView; el: HTMLDivElement } {
  const c = p.compare!;
  const index = indexCompare(c);
  const t = viewerTrans();
  const view = linkedPanes(
    layout,
    {
      name: 'traces',
      paneKeys: ['a', 'b'],
      keys: [c.a, c.b],
      titles: [`A: ${c.titles[0]}`, `B: ${c.titles[1]}`],
      graphs: [p.graphs[c.a], p.graphs[c.b]],
      links: (side, id) => compareLinks(index, side, id),
      describe: (side, node) => {
        const m = (side === 0 ? index.byA : index.byB).get(node.id);
        if (!m) {
          return [['compare', side === 0 ? t.__('only in A') : t.__('only in B')]];
        }
        const rows: Array<[string, string]> = [
          [side === 0 ? 'in B' : 'in A', (side === 0 ? m.b : m.a).join(', ')],
          ['matched by', m.how]
        ];
        for (const [field, [va, vb]] of Object.entries(m.changes ?? {})) {
          rows.push([field, `${va} → ${vb}`]);
        }
        return rows;
      },
      marks: [
        { added: c.removed, modified: changedIds(c, 'a') },
        { added: c.added, modified: changedIds(c, 'b') }
      ]
    },
    onSelect
  );
  const option = view.toolbar.querySelector('option[value="changed"]');
  if (option) {
    option.textContent = t.__('colour: added / removed / changed');
  }
  // side A's "only here" nodes are removed ones: coloured as removed, not as added
  view.panes[0].el.classList.add('al-cmp-a');
  view.panes[0].el.style.setProperty('--al-added', 'var(--al-removed)');
  const el = h(
    'div',
    { class: 'al-cmp', 'data-compare': 'traces' },
    compareSummary(c),
    view.el
  );
  return { view, el };
}
