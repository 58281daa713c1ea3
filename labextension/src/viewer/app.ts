/**
 * The viewer: tabs for the graph, before/after fusion, the pass timeline and the memory
 * map, wired together (linked selection). Hosts (anywidget, JupyterLab MIME renderer,
 * standalone HTML) only call renderPayload.
 */
import { clear, h } from './dom';
import { fusionIndexFor, setupCompare, setupTraceCompare } from './compare';
import { GraphPane } from './graph-pane';
import { LayoutClient } from './layout-client';
import { MemoryView } from './memory-view';
import { PanesView } from './panes-view';
import {
  ProfileSection,
  ProfileView,
  checkProfile,
  describeNodeTime,
  nodeTimes,
  timeLegendElement
} from './profile-view';
import { setViewerTrans, viewerTrans } from './i18n';
import { injectStyle } from './style';
import { TimelineView } from './timeline';
import { weightStatsSource } from './weight-stats';
import {
  describeNodeNumerics,
  numericsLegendElement,
  numericsOn
} from './numerics-view';
import { Payload, PayloadError, checkPayload } from './types';
import { ITrans } from '../trans';

import { ViewName } from './views';

export { VIEW_NAMES, viewName } from './views';
export type { TabName, ViewName } from './views';

export interface RenderOptions {
  view?: ViewName;
  onRequestPass?: (index: number) => Promise<unknown>;
  /** a weight's statistics by its name (see ./weight-stats.ts); hosts that can read the
   * model's weights pass it */
  onRequestWeightStats?: (name: string) => Promise<unknown>;
  /** use a web worker for layout (default true; falls back when unavailable) */
  worker?: boolean;
  /** the page's translator for the viewer's labels (see ./i18n.ts; default: unchanged) */
  trans?: ITrans;
}

export interface ViewerHandle {
  dispose(): void;
  update(payload: unknown): void;
  /** the live viewer, for tests and hosts that want to drive it */
  readonly app: ViewerApp | null;
}

function tabLabel(name: Exclude<ViewName, 'all'>): string {
  const t = viewerTrans();
  const labels: Record<Exclude<ViewName, 'all'>, string> = {
    graph: t.__('Graph'),
    compare: t.__('Before / after fusion'),
    timeline: t.__('Passes'),
    memory: t.__('Memory'),
    profile: t.__('Profile')
  };
  return labels[name];
}

export class ViewerApp {
  readonly el: HTMLDivElement;
  readonly layout: LayoutClient;
  graphView: PanesView | null = null;
  compareView: PanesView | null = null;
  timelineView: TimelineView | null = null;
  memoryView: MemoryView | null = null;
  profileView: ProfileView | null = null;
  current: Exclude<ViewName, 'all'> = 'graph';
  private tabs = new Map<string, HTMLButtonElement>();
  private containers = new Map<string, HTMLDivElement>();

  constructor(
    readonly payload: Payload,
    readonly options: RenderOptions
  ) {
    this.layout = new LayoutClient(options.worker !== false);
    const view = options.view ?? 'all';
    const available = this.availableViews();
    const shown: Array<Exclude<ViewName, 'all'>> = view === 'all' ? available : [view];
    const t = viewerTrans();
    const tabBar = h('div', {
      class: 'al-tabs',
      role: 'tablist',
      'aria-label': t.__('ascend-lab views')
    });
    this.el = h('div', {
      class: 'al-root',
      'data-viewer': 'ascend-lab',
      role: 'application',
      'aria-label': t.__('ascend-lab viewer: %1', payload.meta.title)
    });
    if (shown.length > 1) {
      this.el.appendChild(tabBar);
    }
    const notes = payload.meta.notes ?? [];
    if (notes.length) {
      // e.g. a pasted IR text: what it lacked (text, never HTML)
      const banner = h('div', { class: 'al-notes', role: 'note' });
      for (const note of notes) {
        banner.appendChild(h('div', {}, note));
      }
      this.el.appendChild(banner);
    }
    for (const name of shown) {
      const label =
        name === 'compare' && payload.compare ? t.__('Side by side') : tabLabel(name);
      const container = h('div', {
        class: 'al-view',
        role: 'tabpanel',
        'data-tab': name,
        'aria-label': label,
        hidden: true
      });
      const tab = h(
        'button',
        {
          class: 'al-tab',
          type: 'button',
          role: 'tab',
          'aria-selected': 'false',
          'data-tab': name
        },
        label
      );
      tab.addEventListener('click', () => this.show(name));
      tabBar.appendChild(tab);
      this.tabs.set(name, tab);
      this.containers.set(name, container);
      this.el.appendChild(container);
    }
    tabBar.appendChild(h('span', { class: 'al-title' }, payload.meta.title));
    this.show(shown[0]);
  }

  availableViews(): Array<Exclude<ViewName, 'all'>> {
    const p = this.payload;
    const out: Array<Exclude<ViewName, 'all'>> = [];
    if (p.compare) {
      // two traces side by side: the comparison is the view (graph A alone is one click away)
      return ['compare', 'graph'];
    }
    // a profile read from a profiler folder has no graph: no empty Graph tab for it
    const main = p.graphs[p.views.main];
    if (this.profile() === null || (main?.nodes?.length ?? 0) > 0) {
      out.push('graph');
    }
    if (p.views.before && p.views.after) {
      out.push('compare');
    }
    if (p.passes && p.passes.length) {
      out.push('timeline');
    }
    if (p.memory) {
      out.push('memory');
    }
    if (this.profile() !== null) {
      out.push('profile');
    }
    return out;
  }

  /** The payload's optional `profile` section, or its problem as a string, or null. */
  profile(): ProfileSection | string | null {
    const raw = (this.payload as { profile?: unknown }).profile;
    return raw === undefined || raw === null ? null : checkProfile(raw);
  }

  /** The profile section if it is joined to graph `key`. */
  private profileOn(key: string): ProfileSection | null {
    const prof = this.profile();
    return prof !== null && typeof prof !== 'string' && prof.graph === key
      ? prof
      : null;
  }

  /** Switch to a view, creating it on first use. */
  show(name: Exclude<ViewName, 'all'>): void {
    const container = this.containers.get(name);
    if (!container) {
      return;
    }
    this.current = name;
    for (const [key, c] of this.containers) {
      c.hidden = key !== name;
      this.tabs
        .get(key)
        ?.setAttribute('aria-selected', key === name ? 'true' : 'false');
    }
    if (container.childElementCount === 0) {
      this.build(name, container);
    }
  }

  private build(name: Exclude<ViewName, 'all'>, container: HTMLDivElement): void {
    const p = this.payload;
    const t = viewerTrans();
    if (name === 'graph') {
      const key = p.views.main;
      // titled by what the user opened (the file, the net), not MindSpore's graph name
      // (e.g. 140_71_nets_LeNet5_construct_625), which stays beside it, muted
      const graphName = p.graphs[key].name;
      const title = p.meta.title || graphName;
      const view = new PanesView(this.layout, [{ key: 'main', title }], 'graph');
      if (graphName && graphName !== title) {
        view.titles[0].appendChild(h('span', { class: 'al-sub' }, graphName));
      }
      view.describe = (node, pane) => this.describeNode(key, node.id, pane);
      view.onSelect = id => {
        if (p.memory && p.memory.graph === key) {
          this.memoryView?.setSelected(id);
        }
        if (this.profileOn(key)) {
          this.profileView?.setSelected(id);
        }
      };
      this.graphView = view;
      view.panel.weightStats = weightStatsSource(p, this.options.onRequestWeightStats);
      container.appendChild(view.el);
      const prof = this.profileOn(key);
      if (prof) {
        const times = nodeTimes(prof);
        view.showTimes(times, timeLegendElement(times));
      }
      const num = numericsOn(p.numerics, key);
      if (num) {
        view.showNumerics(num.nodes, numericsLegendElement());
      }
      // the first divergent op, else the node the payload names (analyze_fail: where
      // inference stopped)
      const first = num?.first_divergence ?? p.meta.select;
      void view.panes[0]
        .setGraph(p.graphs[key])
        .then(() =>
          first ? view.panes[0].select(first, { center: true }) : undefined
        );
    } else if (name === 'compare' && p.compare) {
      const cmp = setupTraceCompare(this.layout, p, () => undefined);

      this.compareView = cmp.view;
      container.appendChild(cmp.el);
    } else if (name === 'compare') {
      if (!p.views.before || !p.views.after) {
        container.appendChild(
          h(
            'p',
            { class: 'al-error' },
            t.__(
              'This payload has no before/after fusion graphs (trace with fusion=True).'
            )
          )
        );
        return;
      }
      this.compareView = setupCompare(this.layout, p, (key, id) => {
        if (p.memory && p.memory.graph === key) {
          this.memoryView?.setSelected(id);
        }
      });
      container.appendChild(this.compareView.el);
    } else if (name === 'timeline') {
      if (!p.passes || !p.passes.length) {
        container.appendChild(
          h('p', { class: 'al-error' }, t.__('This payload has no compile passes.'))
        );
        return;
      }
      this.timelineView = new TimelineView(this.layout, p, this.options.onRequestPass);
      container.appendChild(this.timelineView.el);
    } else if (name === 'profile') {
      this.buildProfile(container);
    } else {
      if (!p.memory) {
        container.appendChild(
          h(
            'p',
            { class: 'al-error' },
            t.__('This payload has no memory plan (trace with memory=True).')
          )
        );
        return;
      }
      const graph = p.graphs[p.memory.graph];
      const byId = new Map((graph?.nodes ?? []).map(n => [n.id, n]));
      const mv = new MemoryView(p.memory, id => {
        const n = byId.get(id);
        return n ? `${n.op} (${n.name ?? n.id})` : id;
      });
      mv.onSelect = nodeId => void this.selectInGraph(p.memory!.graph, nodeId);
      const sel = this.selectedIn(p.memory.graph);
      if (sel !== null) {
        mv.setSelected(sel);
      }
      this.memoryView = mv;
      container.appendChild(mv.el);
    }
  }

  private buildProfile(container: HTMLDivElement): void {
    const prof = this.profile();
    if (prof === null || typeof prof === 'string') {
      container.appendChild(
        h(
          'p',
          { class: 'al-error' },
          prof === null
            ? viewerTrans().__('This payload has no profile.')
            : viewerTrans().__('This payload has no usable profile: %1', prof)
        )
      );
      return;
    }
    const graph = prof.graph ? this.payload.graphs[prof.graph] : undefined;
    const byId = new Map((graph?.nodes ?? []).map(n => [n.id, n]));
    const pv = new ProfileView(prof, id => {
      const n = byId.get(id);
      return n ? `${n.op} ${n.id}` : id;
    });
    if (prof.graph) {
      const key = prof.graph;
      pv.onSelect = nodeId => void this.selectInGraph(key, nodeId);
      const sel = this.selectedIn(key);
      if (sel !== null) {
        pv.setSelected(sel);
      }
    }
    this.profileView = pv;
    container.appendChild(pv.el);
  }

  private describeNode(
    graphKey: string,
    id: string,
    pane: GraphPane
  ): Array<[string, string]> {
    void pane;
    const rows: Array<[string, string]> = [];
    const mem = this.payload.memory;
    if (mem && mem.graph === graphKey) {
      const ts = mem.tensors.filter(t => t.node === id);
      if (ts.length) {
        const t = viewerTrans();
        rows.push([
          'memory',
          ts
            .map(x => t.__('%1 B @ %2, steps %3-%4', x.size, x.offset, x.start, x.end))
            .join('\n')
        ]);
      }
    }
    const prof = this.profileOn(graphKey);
    if (prof) {
      rows.push(...describeNodeTime(prof, id));
    }
    const num = numericsOn(this.payload.numerics, graphKey);
    if (num) {
      rows.push(...describeNodeNumerics(num, id));
    }
    const index = fusionIndexFor(this.payload);
    if (graphKey === this.payload.views.after && index.toOriginals.has(id)) {
      rows.push(['fused from', (index.toOriginals.get(id) ?? []).join(', ')]);
    }
    return rows;
  }

  private selectedIn(graphKey: string): string | null {
    for (const view of [this.graphView, this.compareView]) {
      for (const pane of view?.panes ?? []) {
        if (
          pane.model?.graph === this.payload.graphs[graphKey] &&
          pane.selected !== null
        ) {
          return pane.selected;
        }
      }
    }
    return null;
  }

  /** Select a node of a graph in whichever view shows that graph (memory map -> graph). */
  async selectInGraph(graphKey: string, nodeId: string): Promise<void> {
    const p = this.payload;
    let target: 'graph' | 'compare' | null = null;
    if (this.containers.has('graph') && p.views.main === graphKey) {
      target = 'graph';
    } else if (
      this.containers.has('compare') &&
      (p.views.after === graphKey || p.views.before === graphKey)
    ) {
      target = 'compare';
    }
    if (!target) {
      return;
    }
    this.show(target);
    const view = target === 'graph' ? this.graphView! : this.compareView!;
    const pane =
      target === 'graph'
        ? view.panes[0]
        : view.panes[p.views.after === graphKey ? 1 : 0];
    await pane.ready;
    await pane.select(nodeId, { center: true });
  }

  dispose(): void {
    this.graphView?.dispose();
    this.compareView?.dispose();
    this.timelineView?.dispose();
    this.layout.dispose();
    this.el.remove();
  }
}

/**
 * Render a payload ("ascend-lab.graph/1") into `host`. Payload strings are only ever set as
 * text. Returns a handle to update or dispose the view.
 */
export function renderPayload(
  host: HTMLElement,
  payload: unknown,
  options: RenderOptions = {}
): ViewerHandle {
  injectStyle(host);
  if (options.trans) {
    setViewerTrans(options.trans);
  }
  let app: ViewerApp | null = null;
  let errorEl: HTMLElement | null = null;
  const mount = (value: unknown): void => {
    const keep = app?.current;
    app?.dispose();
    app = null;
    errorEl?.remove();
    errorEl = null;
    try {
      const checked = checkPayload(value);
      app = new ViewerApp(checked, options);
      host.appendChild(app.el);
      if (keep && options.view === 'all') {
        app.show(keep);
      }
    } catch (err) {
      const t = viewerTrans();
      const message =
        err instanceof PayloadError
          ? t.__('ascend-lab viewer: bad payload: %1', err.message)
          : t.__('ascend-lab viewer error: %1', String(err));
      errorEl = h('div', { class: 'al-root al-error', role: 'alert' }, message);
      host.appendChild(errorEl);
    }
  };
  mount(payload);
  return {
    dispose(): void {
      app?.dispose();
      app = null;
      errorEl?.remove();
      clear(host);
    },
    update(value: unknown): void {
      mount(value);
    },
    get app(): ViewerApp | null {
      return app;
    }
  };
}
