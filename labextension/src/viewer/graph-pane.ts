/**
 * One interactive graph: layered layout (in the worker), scope groups that expand and
 * collapse, selection and highlight sets, drawn into a pan/zoom viewport (viewport.ts) and
 * driven by keys and clicks (keys.ts). Draws only the boxes in view when a graph shows very
 * many at once.
 */
import { clear, h, s } from './dom';
import { viewerTrans } from './i18n';
import { Activation, KeyTarget, clickActivation, focusable, onKey } from './keys';
import {
  Box,
  ColorMode,
  StackAction,
  drawFrame,
  drawGroup,
  drawNode,
  drawStack,
  nodeFill
} from './graph-boxes';
import { LayoutClient } from './layout-client';
import {
  GROUP_H,
  GROUP_W,
  GraphModel,
  NODE_H,
  NODE_W,
  ROOT,
  STACK_HEADER,
  STACK_PAD,
  groupItem,
  nodeItem,
  stackItem,
  stackSize
} from './model';
import { NumericsNode } from './numerics-types';
import { GraphData, GraphNode, formatBytes, formatShape, outputBytes } from './types';
import { Viewport } from './viewport';

export type { ColorMode, StackAction } from './graph-boxes';

/** Above this many boxes only those in (or near) the viewport are put in the DOM. */
export const CULL_LIMIT = 1500;

/** Idle time before collapsed groups in view are laid out ahead, and how many batches. */
const PREFETCH_DELAY_MS = 400;
const PREFETCH_BATCHES = 12;

export interface PaneOptions {
  label: string;
  layout: LayoutClient;
  onSelect?: (id: string | null, pane: GraphPane) => void;
}

export class GraphPane implements KeyTarget {
  readonly el: HTMLDivElement;
  readonly svg: SVGSVGElement;
  /** the group the boxes are drawn in, moved by the viewport's pan and zoom */
  private drawing: SVGGElement;
  private readonly view: Viewport;
  private busy: HTMLDivElement;
  model: GraphModel | null = null;
  selected: string | null = null;
  linked = new Set<string>();
  added = new Set<string>();
  modified = new Set<string>();
  matches = new Set<string>();
  colorMode: ColorMode = 'op';
  /** measured time per step of each node (profile), for colorMode 'time' */
  nodeTimes: Map<string, number> | null = null;
  /** numeric error of each node (ascend_lab.compare_numerics), for colorMode 'numerics' */
  nodeNumerics: Record<string, NumericsNode> | null = null;
  /** label edges with the shape of the value they carry */
  edgeLabels = false;
  showBookkeeping = false;
  readonly boxes = new Map<string, Box>();
  private order: Box[] = [];
  private itemEls = new Map<string, SVGGElement>();
  private layoutSeq = 0;
  private fitted = false;
  private culling = false;
  private renderQueued = false;
  /** the nodes whose largest output colour mode 'memory' scales to (those shown first) */
  private sizedNodes: GraphNode[] = [];
  private largestOutput: number | null = null;
  private disposed = false;
  /** resolves after the first complete draw of the current graph */
  ready: Promise<void> = Promise.resolve();
  lastLayoutMs = 0;

  constructor(private readonly opts: PaneOptions) {
    this.svg = s('svg', {
      class: 'al-svg',
      role: 'group',
      tabindex: 0,
      'aria-label': opts.label,
      'aria-roledescription': viewerTrans().__('graph')
    });
    this.drawing = s('g', { class: 'al-viewport' });
    this.svg.appendChild(this.drawing);
    this.view = new Viewport(this.svg, this.drawing, () => {
      if (this.culling) {
        this.queueRender();
      }
    });
    this.busy = h('div', { class: 'al-busy', role: 'status', 'aria-live': 'polite' });
    this.el = h(
      'div',
      { class: 'al-canvas', 'data-state': 'empty' },
      this.svg,
      this.busy
    );
    this.bindEvents();
  }

  /** the largest output of the graph's nodes as first shown (colour mode 'memory') */
  get maxBytes(): number {
    if (this.largestOutput === null) {
      let most = 1;
      for (const n of this.sizedNodes) {
        most = Math.max(most, outputBytes(n) ?? 0);
      }
      this.largestOutput = most;
    }
    return this.largestOutput;
  }

  get nodeCount(): number {
    return this.itemEls.size;
  }

  /** Show a new graph; groups collapse by default on big graphs. */
  setGraph(
    graph: GraphData | null,
    changes?: { added?: string[]; modified?: string[] }
  ): Promise<void> {
    this.added = new Set(changes?.added ?? []);
    this.modified = new Set(changes?.modified ?? []);
    this.selected = null;
    this.fitted = false;
    if (!graph) {
      this.layoutSeq++;
      this.model = null;
      this.boxes.clear();
      this.order = [];
      clear(this.drawing);
      this.itemEls.clear();
      this.el.setAttribute('data-state', 'empty');
      this.ready = Promise.resolve();
      return this.ready;
    }
    this.ready = this.load(graph);
    return this.ready;
  }

  private async load(graph: GraphData): Promise<void> {
    const seq = ++this.layoutSeq;
    this.el.setAttribute('data-state', 'layout');
    if (graph.nodes.length > 2000) {
      // a big graph: index it in a task of its own so that no single task runs long
      await new Promise(resolve => setTimeout(resolve, 0));
      if (seq !== this.layoutSeq || this.disposed) {
        return;
      }
    }
    this.model = new GraphModel(graph, this.showBookkeeping);
    this.model.applyDefaultExpansion();
    // measured when colour mode 'memory' first asks, not before the first view
    this.sizedNodes = this.model.visible;
    this.largestOutput = null;
    await this.relayout();
  }

  setShowBookkeeping(show: boolean): Promise<void> {
    this.showBookkeeping = show;
    if (!this.model) {
      return Promise.resolve();
    }
    this.model.setShowBookkeeping(show);
    return this.relayout();
  }

  /** Lay out what changed (in the worker), then draw. */
  async relayout(): Promise<void> {
    const model = this.model;
    if (!model) {
      return;
    }
    const seq = ++this.layoutSeq;
    const jobs = model.layoutJobs();
    const t0 = performance.now();
    if (jobs.length) {
      this.el.setAttribute('data-state', 'layout');
      this.busy.textContent = viewerTrans().__('laying out\u2026');
      const results = await this.opts.layout.layout(jobs);
      if (seq !== this.layoutSeq || model !== this.model || this.disposed) {
        return;
      }
      model.storeLayouts(results);
    }
    this.lastLayoutMs = performance.now() - t0;
    this.busy.textContent = '';
    this.place();
    if (!this.fitted) {
      this.fitInitial();
      this.fitted = true;
      this.view.refitWhenSized(() => {
        this.fitInitial();
        this.render();
      });
    }
    this.render();
    this.el.setAttribute('data-state', 'ready');
    this.schedulePrefetch();
    this.el.dispatchEvent(
      new CustomEvent('al-rendered', {
        bubbles: true,
        detail: { layoutMs: this.lastLayoutMs }
      })
    );
  }

  private prefetching = false;
  private prefetchCount = 0;

  /**
   * While idle, lay out the contents of the collapsed groups in view (nearest the centre
   * first), two at a time in the worker, so that a click on one expands at once.
   */
  private schedulePrefetch(): void {
    if (this.prefetching || !this.opts.layout.usesWorker) {
      return;
    }
    this.prefetching = true;
    const step = async (): Promise<void> => {
      const model = this.model;
      if (!model || this.disposed) {
        this.prefetching = false;
        return;
      }
      const [cx, cy] = this.view.centre();
      const inView = (g: string): boolean => {
        const b = this.boxes.get(groupItem(g));
        return b !== undefined && this.view.inView(b, 0);
      };
      const jobs = model
        .prefetchJobs(2, g => {
          const b = this.boxes.get(groupItem(g));
          return b
            ? Math.abs(b.x + b.w / 2 - cx) + Math.abs(b.y + b.h / 2 - cy)
            : Infinity;
        })
        .filter(j => inView(j.group));
      if (!jobs.length || ++this.prefetchCount > PREFETCH_BATCHES) {
        this.prefetching = false;
        return;
      }
      try {
        const results = await this.opts.layout.layout(jobs);
        if (model === this.model) {
          model.storePrefetched(results);
        }
      } catch {
        this.prefetching = false;
        return;
      }
      setTimeout(() => void step(), 0);
    };
    this.prefetchCount = 0;
    setTimeout(() => void step(), PREFETCH_DELAY_MS);
  }

  /** Absolute boxes from the per-group layouts. */
  private place(): void {
    const model = this.model!;
    this.boxes.clear();
    // a stack: its frame, then the instance it draws at (pad, header) inside it
    const placeStack = (item: string, cx: number, cy: number, depth: number): void => {
      const instance = model.shownInstanceOf(item.slice(2));
      const open = model.isExpanded(instance);
      const child = open ? model.layouts.get(instance) : undefined;
      if (open && !child) {
        return;
      }
      const iw = child ? child.width : GROUP_W;
      const ih = child ? child.height : GROUP_H;
      const [w, hgt] = stackSize(iw, ih);
      const x = cx - w / 2;
      const y = cy - hgt / 2;
      this.boxes.set(item, { item, kind: 'stack', x, y, w, h: hgt, depth });
      const inner = groupItem(instance);
      const ix = x + STACK_PAD;
      const iy = y + STACK_HEADER;
      const box: Box = {
        item: inner,
        kind: child ? 'frame' : 'group',
        x: ix,
        y: iy,
        w: iw,
        h: ih,
        depth: depth + 1
      };
      this.boxes.set(inner, box);
      if (child) {
        walk(instance, ix, iy, depth + 2);
      }
    };
    const walk = (group: string, ox: number, oy: number, depth: number): void => {
      const layout = model.layouts.get(group);
      if (!layout) {
        return;
      }
      for (const item of Object.keys(layout.pos)) {
        const [cx, cy] = layout.pos[item];
        if (item.startsWith('n:')) {
          this.boxes.set(item, {
            item,
            kind: 'node',
            x: ox + cx - NODE_W / 2,
            y: oy + cy - NODE_H / 2,
            w: NODE_W,
            h: NODE_H,
            depth
          });
        } else if (item.startsWith('k:')) {
          placeStack(item, ox + cx, oy + cy, depth);
        } else {
          const id = item.slice(2);
          if (model.isExpanded(id)) {
            const child = model.layouts.get(id);
            if (!child) {
              continue;
            }
            const x = ox + cx - child.width / 2;
            const y = oy + cy - child.height / 2;
            this.boxes.set(item, {
              item,
              kind: 'frame',
              x,
              y,
              w: child.width,
              h: child.height,
              depth
            });
            walk(id, x, y, depth + 1);
          } else {
            this.boxes.set(item, {
              item,
              kind: 'group',
              x: ox + cx - GROUP_W / 2,
              y: oy + cy - GROUP_H / 2,
              w: GROUP_W,
              h: GROUP_H,
              depth
            });
          }
        }
      }
    };
    walk(ROOT, 0, 0, 0);
    const back = (b: Box): number => (b.kind === 'frame' || b.kind === 'stack' ? 0 : 1);
    this.order = [...this.boxes.values()].sort(
      (a, b) => back(a) - back(b) || a.depth - b.depth
    );
    this.culling = this.order.length > CULL_LIMIT;
  }

  private queueRender(): void {
    if (this.renderQueued) {
      return;
    }
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  bounds(): { width: number; height: number } {
    const root = this.model?.layouts.get(ROOT);
    return { width: root?.width ?? 0, height: root?.height ?? 0 };
  }

  /** The whole graph in view. */
  fit(): void {
    this.view.fit(this.bounds());
  }

  /** The first view of a graph (viewport.ts firstViewTransform). */
  fitInitial(): void {
    this.view.fitInitial(this.bounds());
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    this.view.zoomBy(factor, cx, cy);
  }

  /** Scroll so that an item is in the middle of the view. */
  centerOn(item: string): void {
    const box = this.boxes.get(item);
    if (box) {
      this.view.centreOn(box);
    }
  }

  private fillFor(node: GraphNode): string {
    return nodeFill(node, this);
  }

  /** Draw the placed boxes and edges (only the visible part when culling). */
  render(): void {
    const model = this.model;
    clear(this.drawing);
    this.itemEls.clear();
    if (!model) {
      return;
    }
    const frames = s('g', { class: 'al-frames' });
    const edges = s('g', { class: 'al-edges', 'aria-hidden': 'true' });
    const boxes = s('g', { class: 'al-boxes' });
    this.drawing.append(frames, edges, boxes);
    const margin = 200;
    const drawn = new Set<string>();
    for (const box of this.order) {
      if (this.culling && !this.view.inView(box, margin)) {
        continue;
      }
      drawn.add(box.item);
      if (box.kind === 'stack') {
        const [g, head] = drawStack(box, model);
        this.itemEls.set(box.item, head);
        frames.appendChild(g);
      } else if (box.kind === 'frame') {
        frames.appendChild(drawFrame(box, model));
      } else {
        const g =
          box.kind === 'group'
            ? drawGroup(box, model)
            : drawNode(box, model, this.fillFor(model.byId.get(box.item.slice(2))!));
        this.itemEls.set(box.item, g);
        boxes.appendChild(g);
      }
    }
    const seen = new Set<string>();
    for (const [u, v] of model.edges) {
      const ends = model.drawnEdge(u, v);
      if (!ends) {
        continue;
      }
      const [a, b] = ends;
      const key = `${a}\u0000${b}`;
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      if (this.culling && !drawn.has(a) && !drawn.has(b)) {
        continue;
      }
      const ba = this.boxes.get(a);
      const bb = this.boxes.get(b);
      if (!ba || !bb) {
        continue;
      }
      const x1 = ba.x + ba.w / 2;
      const y1 = ba.y + ba.h;
      const x2 = bb.x + bb.w / 2;
      const y2 = bb.y;
      const dy = Math.max(20, Math.abs(y2 - y1) / 2);
      edges.appendChild(
        s('path', {
          class: 'al-edge',
          d: `M${x1.toFixed(1)},${y1.toFixed(1)} C${x1.toFixed(1)},${(y1 + dy).toFixed(1)} ${x2.toFixed(1)},${(y2 - dy).toFixed(1)} ${x2.toFixed(1)},${y2.toFixed(1)}`
        })
      );
      if (this.edgeLabels && a.startsWith('n:')) {
        const shape = formatShape(model.byId.get(u)?.outputs?.[0]);
        if (shape) {
          edges.appendChild(
            s(
              'text',
              {
                class: 'al-edge-label',
                x: ((x1 + x2) / 2 + 4).toFixed(1),
                y: ((y1 + y2) / 2).toFixed(1)
              },
              shape
            )
          );
        }
      }
    }
    this.refreshClasses();
  }

  setEdgeLabels(show: boolean): void {
    this.edgeLabels = show;
    this.render();
  }

  /** Re-apply selection/highlight classes without re-drawing. */
  refreshClasses(): void {
    for (const [item, g] of this.itemEls) {
      const isNode = item.startsWith('n:');
      const id = item.slice(2);
      let linked = false;
      let match = false;
      if (isNode) {
        linked = this.linked.has(id);
        match = this.matches.has(id);
      } else if (this.model) {
        // a collapsed group is highlighted when it hides a highlighted node
        for (const l of this.linked) {
          if (this.model.representative(l) === item) {
            linked = true;
            break;
          }
        }
        for (const m of this.matches) {
          if (this.model.representative(m) === item) {
            match = true;
            break;
          }
        }
      }
      g.classList.toggle('al-selected', isNode && this.selected === id);
      g.classList.toggle('al-linked', linked);
      g.classList.toggle('al-match', match);
      g.classList.toggle('al-added', isNode && this.added.has(id));
      g.classList.toggle('al-modified', isNode && this.modified.has(id));
      if (isNode) {
        g.setAttribute('aria-pressed', this.selected === id ? 'true' : 'false');
      }
    }
  }

  setColorMode(mode: ColorMode): void {
    this.colorMode = mode;
    this.render();
  }

  setLinked(ids: Iterable<string>): void {
    this.linked = new Set(ids);
    this.refreshClasses();
  }

  setMatches(ids: Iterable<string>): void {
    this.matches = new Set(ids);
    this.refreshClasses();
  }

  async toggleGroup(group: string): Promise<void> {
    if (!this.model) {
      return;
    }
    this.model.setExpanded(group, !this.model.isExpanded(group));
    await this.relayout();
    const el = this.itemEls.get(groupItem(group));
    el?.focus({ preventScroll: true });
  }

  /** A stack's button: draw the previous / next instance, or show them all. */
  async stackAction(stack: string, action: StackAction): Promise<void> {
    const model = this.model;
    if (!model || !model.stacks.has(stack)) {
      return;
    }
    let focus: string;
    if (action === 'all') {
      model.showAll(stack);
      focus = groupItem(model.shownInstanceOf(stack));
    } else if (action === 'stack') {
      model.restack(stack);
      focus = stackItem(stack);
    } else {
      const from = model.shownInstanceOf(stack);
      const to = model.stepInstance(stack, action === 'next' ? 1 : -1);
      focus = '';
      // a selection in the layer drawn before moves to the same node of the new one
      const twin =
        this.selected === null ? null : model.twinNode(this.selected, from, to);
      if (twin !== null) {
        this.selected = twin;
        this.opts.onSelect?.(twin, this);
      }
    }
    await this.relayout();
    const el = focus
      ? this.itemEls.get(focus)
      : this.drawing.querySelector<SVGGElement>(
          `[data-stack-action="${action}"][data-stack-id="${CSS.escape(stack)}"]`
        );
    el?.focus({ preventScroll: true });
  }

  /** Select a node (expanding its groups if needed); notify listeners unless silent. */
  async select(
    id: string | null,
    opts: { center?: boolean; silent?: boolean; focus?: boolean } = {}
  ): Promise<void> {
    const model = this.model;
    if (!model) {
      return;
    }
    if (id !== null && !model.byId.has(id)) {
      id = null;
    }
    if (id !== null && model.isHidden(model.byId.get(id)!)) {
      await this.setShowBookkeeping(true);
    }
    this.selected = id;
    if (id !== null && model.reveal(id)) {
      await this.relayout();
    }
    if (id !== null && opts.center) {
      this.centerOn(nodeItem(id));
    }
    this.refreshClasses();
    if (id !== null && opts.focus) {
      this.itemEls.get(nodeItem(id))?.focus({ preventScroll: true });
    }
    if (!opts.silent) {
      this.opts.onSelect?.(id, this);
    }
  }

  /** The first box in drawing order that takes the focus (keys.ts). */
  firstFocusable(): string | null {
    return this.order.find(focusable)?.item ?? null;
  }

  /** Focus a drawn box, scrolling it into view (drawing it first when culled). */
  focusItem(item: string): void {
    if (this.culling && !this.itemEls.has(item)) {
      this.centerOn(item);
      this.render();
    }
    const el = this.itemEls.get(item);
    if (el) {
      el.focus({ preventScroll: true });
      if (!this.view.onScreen(this.boxes.get(item)!)) {
        this.centerOn(item);
      }
    }
  }

  /** A click, or Enter / Space: press a stack's button, open a group or select a node. */
  activate(what: Activation, viaKey: boolean): void {
    if (what.kind === 'stack') {
      void this.stackAction(what.stack, what.action);
    } else if (what.kind === 'group') {
      void this.toggleGroup(what.group);
    } else {
      void this.select(what.node, viaKey ? { focus: true } : {});
    }
  }

  clearSelection(): void {
    void this.select(null);
  }

  private bindEvents(): void {
    this.view.bindPointer();
    this.svg.addEventListener('click', (ev: MouseEvent) => {
      const what = clickActivation(ev.target as Element);
      if (what) {
        this.activate(what, false);
      }
    });
    this.svg.addEventListener('keydown', (ev: KeyboardEvent) => onKey(ev, this));
  }

  /** Bytes of a node's outputs as text, for panels. */
  static bytesLabel(node: GraphNode): string {
    const b = outputBytes(node);
    return b === null ? '?' : formatBytes(b);
  }

  dispose(): void {
    this.disposed = true;
    this.view.dispose();
    this.layoutSeq++;
    this.el.remove();
  }
}
