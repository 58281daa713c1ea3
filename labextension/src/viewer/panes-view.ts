/**
 * One or more graph panes with a shared toolbar (search, bookkeeping toggle, colouring,
 * fit, SVG/PNG export) and a node panel.
 */
import { clear, h } from './dom';
import { exportPng, exportSvg, svgText } from './export';
import { ColorMode, GraphPane } from './graph-pane';
import { NumericsNode } from './numerics-types';
import { numericsText } from './numerics-view';
import { viewerTrans } from './i18n';
import { LayoutClient } from './layout-client';
import { NodePanel } from './node-panel';
import { GraphNode } from './types';

/** The views' names (PanesView `name`), for labels such as "Search nodes in …". */
function viewLabel(name: string): string {
  const t = viewerTrans();
  const labels: Record<string, string> = {
    graph: t.__('graph'),
    compare: t.__('before / after fusion'),
    traces: t.__('two traces'),
    timeline: t.__('pass timeline')
  };
  return Object.prototype.hasOwnProperty.call(labels, name) ? labels[name] : name;
}

export interface PaneSpec {
  key: string;
  title: string;
}

export class PanesView {
  readonly el: HTMLDivElement;
  readonly panes: GraphPane[] = [];
  readonly titles: HTMLDivElement[] = [];
  readonly panel: NodePanel;
  readonly toolbar: HTMLDivElement;
  private results: HTMLUListElement;
  private status: HTMLSpanElement;
  private search: HTMLInputElement;
  private colorSelect: HTMLSelectElement;
  private matchList: Array<[GraphPane, string]> = [];
  private matchAt = -1;
  /** extra rows for the node panel (e.g. fusion links) */
  describe: (node: GraphNode, pane: GraphPane) => Array<[string, string]> = () => [];
  onSelect: (id: string | null, pane: GraphPane) => void = () => undefined;

  constructor(
    layout: LayoutClient,
    specs: PaneSpec[],
    name: string,
    defaultColor: ColorMode = 'op'
  ) {
    const t = viewerTrans();
    const viewName = viewLabel(name);
    this.panel = new NodePanel();
    this.search = h('input', {
      type: 'search',
      placeholder: t.__('search op, scope, name'),
      'aria-label': t.__('Search nodes in %1', viewName)
    });
    this.colorSelect = h(
      'select',
      { 'aria-label': t.__('Colour nodes by') },
      h('option', { value: 'op' }, t.__('colour: op type')),
      h('option', { value: 'memory' }, t.__('colour: output size')),
      h('option', { value: 'changed' }, t.__('colour: changed in pass'))
    );
    this.colorSelect.value = defaultColor;
    const bk = h('input', {
      type: 'checkbox',
      'aria-label': t.__(
        'Show bookkeeping nodes (Load, UpdateState, Depend, MakeTuple, TupleGetItem, Return), constants and weights (parameters)'
      )
    });
    const shapes = h('input', {
      type: 'checkbox',
      'aria-label': t.__('Label edges with the shape of the value they carry')
    });
    const fit = h(
      'button',
      { type: 'button', title: t.__('Fit to view (f)') },
      t.__('Fit')
    );
    const svgBtn = h(
      'button',
      { type: 'button', title: t.__('Export the graph as SVG') },
      'SVG'
    );
    const pngBtn = h(
      'button',
      { type: 'button', title: t.__('Export the graph as PNG') },
      'PNG'
    );
    this.status = h('span', { class: 'al-status', role: 'status' });
    this.toolbar = h(
      'div',
      {
        class: 'al-toolbar',
        role: 'toolbar',
        'aria-label': t.__('%1 tools', viewName)
      },
      this.search,
      h('label', {}, bk, t.__('bookkeeping, constants, weights')),
      h('label', {}, shapes, t.__('edge shapes')),
      this.colorSelect,
      fit,
      svgBtn,
      pngBtn,
      this.status
    );
    this.results = h('ul', {
      class: 'al-results',
      'aria-label': t.__('Search results')
    });
    const panesEl = h('div', { class: 'al-panes' });
    for (const spec of specs) {
      const pane = new GraphPane({
        label: t.__('%1 graph', spec.title),
        layout,
        onSelect: (id, p) => this.selected(id, p)
      });
      pane.colorMode = defaultColor;
      const title = h('div', { class: 'al-pane-title' }, spec.title);
      panesEl.appendChild(
        h('div', { class: 'al-pane', 'data-pane': spec.key }, title, pane.el)
      );
      this.panes.push(pane);
      this.titles.push(title);
      pane.el.addEventListener('al-rendered', () => {
        // selecting a hidden node (e.g. from the memory map) turns the toggle on
        bk.checked = pane.showBookkeeping;
        this.updateStatus();
      });
    }
    this.el = h(
      'div',
      { class: 'al-view', 'data-view': name },
      this.toolbar,
      this.results,
      h('div', { class: 'al-body' }, panesEl, this.panel.el)
    );
    this.search.addEventListener('input', () => this.runSearch());
    this.search.addEventListener('keydown', (ev: KeyboardEvent) => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        this.nextMatch();
      }
    });
    this.colorSelect.addEventListener('change', () => {
      for (const p of this.panes) {
        p.setColorMode(this.colorSelect.value as ColorMode);
      }
    });
    bk.addEventListener('change', () => {
      for (const p of this.panes) {
        void p.setShowBookkeeping(bk.checked);
      }
    });
    shapes.addEventListener('change', () => {
      for (const p of this.panes) {
        p.setEdgeLabels(shapes.checked);
      }
    });
    fit.addEventListener('click', () => this.panes.forEach(p => p.fit()));
    svgBtn.addEventListener('click', () =>
      exportSvg(this.svgText(), `ascend-lab-${name}`)
    );
    pngBtn.addEventListener(
      'click',
      () => void exportPng(this.svgText(), `ascend-lab-${name}`)
    );
  }

  /** The first pane as a standalone SVG document (whole graph). */
  /** Offer "colour: measured time" (a profile), switch to it and show its `legend`. */
  showTimes(times: Map<string, number>, legend: HTMLElement): void {
    for (const p of this.panes) {
      p.nodeTimes = times;
    }
    this.offerColour('time', viewerTrans().__('colour: measured time'), legend);
  }

  /** Offer "colour: numeric error" (ascend_lab.compare_numerics), switch to it. */
  showNumerics(nodes: Record<string, NumericsNode>, legend: HTMLElement): void {
    for (const p of this.panes) {
      p.nodeNumerics = nodes;
    }
    this.offerColour('numerics', numericsText().option, legend);
  }

  /** Add colour mode `mode` to the menu once (with its `legend`), and switch to it. */
  private offerColour(mode: ColorMode, label: string, legend: HTMLElement): void {
    if (!this.colorSelect.querySelector(`option[value="${mode}"]`)) {
      this.colorSelect.appendChild(h('option', { value: mode }, label));
      this.colorSelect.after(legend);
      this.colorSelect.addEventListener('change', () => {
        legend.hidden = this.colorSelect.value !== mode;
      });
    }
    this.colorSelect.value = mode;
    legend.hidden = false;
    for (const p of this.panes) {
      p.setColorMode(mode);
    }
  }

  svgText(index = 0): string {
    const pane = this.panes[index];
    const b = pane.bounds();
    return svgText(pane.svg, this.el, { x: 0, y: 0, width: b.width, height: b.height });
  }

  private selected(id: string | null, pane: GraphPane): void {
    for (const p of this.panes) {
      if (p !== pane && p.selected !== null) {
        p.selected = null;
        p.refreshClasses();
      }
    }
    const node = id === null ? null : (pane.model?.byId.get(id) ?? null);
    this.panel.show(
      node,
      node ? this.describe(node, pane) : [],
      node ? weightsOf(node, pane) : []
    );
    this.onSelect(id, pane);
  }

  updateStatus(): void {
    const t = viewerTrans();
    const parts = this.panes.map(p => {
      const m = p.model;
      if (!m) {
        return '';
      }
      const hidden = m.graph.nodes.length - m.visible.length;
      const shown = m.visible.length;
      const scopes = m.groups.size - 1;
      return [
        shown === 1 ? t.__('1 node') : t.__('%1 nodes', shown),
        hidden ? t.__(' (+%1 hidden: bookkeeping, constants, weights)', hidden) : '',
        ', ',
        scopes === 1 ? t.__('1 scope') : t.__('%1 scopes', scopes)
      ].join('');
    });
    this.status.textContent = parts.filter(Boolean).join(' | ');
  }

  private runSearch(): void {
    const q = this.search.value.trim().toLowerCase();
    clear(this.results);
    this.matchList = [];
    this.matchAt = -1;
    for (const pane of this.panes) {
      const ids: string[] = [];
      if (q && pane.model) {
        for (const n of pane.model.graph.nodes) {
          const hay =
            `${n.op}\u0000${n.scope ?? ''}\u0000${n.name ?? ''}\u0000${n.id}`.toLowerCase();
          if (hay.includes(q)) {
            ids.push(n.id);
          }
        }
      }
      pane.setMatches(ids);
      for (const id of ids) {
        this.matchList.push([pane, id]);
      }
    }
    const shown = this.matchList.slice(0, 50);
    shown.forEach(([pane, id], i) => {
      const node = pane.model!.byId.get(id)!;
      const li = h(
        'li',
        { tabindex: 0, role: 'button' },
        `${node.op} \u2014 ${node.name ?? node.scope ?? node.id}`
      );
      const go = (): void => {
        this.matchAt = i;
        void pane.select(id, { center: true });
      };
      li.addEventListener('click', go);
      li.addEventListener('keydown', (ev: KeyboardEvent) => {
        if (ev.key === 'Enter') {
          go();
        }
      });
      this.results.appendChild(li);
    });
    if (q) {
      const t = viewerTrans();
      const found = this.matchList.length;
      const more = found > shown.length ? t.__(' (first %1 listed)', shown.length) : '';
      this.results.insertBefore(
        h(
          'li',
          { class: 'al-muted', role: 'status' },
          (found === 1 ? t.__('1 match') : t.__('%1 matches', found)) + more
        ),
        this.results.firstChild
      );
    }
  }

  private nextMatch(): void {
    if (!this.matchList.length) {
      return;
    }
    this.matchAt = (this.matchAt + 1) % this.matchList.length;
    const [pane, id] = this.matchList[this.matchAt];
    void pane.select(id, { center: true });
  }

  dispose(): void {
    this.panes.forEach(p => p.dispose());
    this.el.remove();
  }
}

/** The weights (parameters) `node` reads: directly, or through a `Load` (frontend graphs). */
export function weightsOf(node: GraphNode, pane: GraphPane): GraphNode[] {
  const byId = pane.model?.byId;
  const found: GraphNode[] = [];
  if (!byId || node.kind === 'parameter') {
    return found;
  }
  for (const id of node.inputs ?? []) {
    let source = byId.get(id);
    if (source && source.op === 'Load' && source.inputs?.length) {
      source = byId.get(source.inputs[0]);
    }
    if (source && source.kind === 'parameter' && !found.includes(source)) {
      found.push(source);
    }
  }
  return found;
}
