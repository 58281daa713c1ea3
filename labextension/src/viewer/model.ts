/**
 * Graph model for the view: bookkeeping filtering (with edges bridged through hidden
 * nodes), the scope tree (collapsible groups), default expansion on big graphs, and the
 * per-group layout jobs. Pure data, no DOM: unit-tested directly.
 */
import { GraphData, GraphNode } from './types';

/** Above this many visible boxes, groups start collapsed. */
export const COLLAPSE_THRESHOLD = 300;

export const NODE_W = 168;
export const NODE_H = 42;
export const GROUP_W = 190;
export const GROUP_H = 48;
export const GROUP_PAD = 14;
export const GROUP_HEADER = 22;

export const ROOT = '';

export interface ScopeGroup {
  id: string;
  label: string;
  parent: string | null;
  depth: number;
  children: string[];
  nodes: string[];
  /** visible nodes anywhere below */
  count: number;
}

export interface LayoutItem {
  id: string;
  w: number;
  h: number;
  /** size comes from the job of this group in the same batch */
  ref?: string;
}

export interface LayoutJob {
  group: string;
  items: LayoutItem[];
  edges: Array<[string, string]>;
}

export interface GroupLayout {
  group: string;
  width: number;
  height: number;
  /** item id -> centre, relative to the group's top-left corner */
  pos: Record<string, [number, number]>;
}

export const nodeItem = (id: string): string => `n:${id}`;
export const groupItem = (id: string): string => `g:${id}`;

/** Inputs of a hidden bookkeeping node that carry data (UpdateState carries only state). */
function dataInputs(node: GraphNode): string[] {
  const inputs = node.inputs ?? [];
  switch (node.op) {
    case 'UpdateState':
      return [];
    case 'MakeTuple':
    case 'MakeTupleV2':
      return inputs;
    default:
      return inputs.slice(0, 1);
  }
}

export function scopeOf(node: GraphNode): string {
  return (node.scope ?? '').replace(/^\/+|\/+$/g, '');
}

export class GraphModel {
  readonly graph: GraphData;
  readonly byId = new Map<string, GraphNode>();
  readonly index = new Map<string, number>();
  showBookkeeping: boolean;
  groups = new Map<string, ScopeGroup>();
  visible: GraphNode[] = [];
  /** visible edges (source id, target id), bridged through hidden nodes */
  edges: Array<[string, string]> = [];
  readonly expanded = new Set<string>([ROOT]);
  readonly layouts = new Map<string, GroupLayout>();
  /** layouts of collapsed groups' contents, computed ahead of an expand (idle time) */
  readonly prefetched = new Map<string, GroupLayout>();
  private nodeGroup = new Map<string, string>();
  private chainCache = new Map<string, string[]>();
  private edgesByGroup = new Map<string, Array<[string, string]>>();
  preds = new Map<string, string[]>();
  succs = new Map<string, string[]>();

  constructor(graph: GraphData, showBookkeeping = false) {
    this.graph = graph;
    graph.nodes.forEach((n, i) => {
      this.byId.set(n.id, n);
      this.index.set(n.id, i);
    });
    this.showBookkeeping = showBookkeeping;
    this.rebuild();
  }

  /**
   * Bookkeeping nodes, constants (monads, scalars) and weights (parameters) are hidden
   * unless asked for: the node panel still lists them among a node's input ids.
   */
  isHidden(node: GraphNode): boolean {
    return (
      !this.showBookkeeping &&
      (node.bookkeeping === true ||
        node.kind === 'constant' ||
        node.kind === 'parameter')
    );
  }

  setShowBookkeeping(show: boolean): void {
    if (show !== this.showBookkeeping) {
      this.showBookkeeping = show;
      this.rebuild();
    }
  }

  /** Recompute visible nodes, edges and the scope tree (keeps expansion state). */
  rebuild(): void {
    this.layouts.clear();
    this.prefetched.clear();
    this.visible = this.graph.nodes.filter(n => !this.isHidden(n));
    // edges, bridged through hidden nodes
    const memo = new Map<string, string[]>();
    const sourcesOf = (id: string, depth: number): string[] => {
      const node = this.byId.get(id);
      if (!node) {
        return [];
      }
      if (!this.isHidden(node)) {
        return [id];
      }
      const cached = memo.get(id);
      if (cached) {
        return cached;
      }
      memo.set(id, []);
      const out = new Set<string>();
      if (depth < 64) {
        for (const src of dataInputs(node)) {
          for (const s of sourcesOf(src, depth + 1)) {
            if (out.size < 64) {
              out.add(s);
            }
          }
        }
      }
      const result = [...out];
      memo.set(id, result);
      return result;
    };
    const edges: Array<[string, string]> = [];
    const seen = new Set<string>();
    this.preds.clear();
    this.succs.clear();
    for (const node of this.visible) {
      for (const input of node.inputs ?? []) {
        for (const src of sourcesOf(input, 0)) {
          const key = `${src}\u0000${node.id}`;
          if (src !== node.id && !seen.has(key)) {
            seen.add(key);
            edges.push([src, node.id]);
            (this.preds.get(node.id) ?? this.preds.set(node.id, []).get(node.id)!).push(
              src
            );
            (this.succs.get(src) ?? this.succs.set(src, []).get(src)!).push(node.id);
          }
        }
      }
    }
    this.edges = edges;
    this.buildGroups();
    this.groupEdges();
  }

  private ensureGroup(path: string): ScopeGroup {
    let group = this.groups.get(path);
    if (group) {
      return group;
    }
    const cut = path.lastIndexOf('/');
    const parentPath = cut < 0 ? ROOT : path.slice(0, cut);
    const parent = this.ensureGroup(parentPath);
    group = {
      id: path,
      label: path.slice(cut + 1),
      parent: parent.id,
      depth: parent.depth + 1,
      children: [],
      nodes: [],
      count: 0
    };
    parent.children.push(path);
    this.groups.set(path, group);
    return group;
  }

  /**
   * The scope a node is drawn in: the payload's repaired scope when it has one. For older
   * payloads: fused-kernel calls come out of graph-kernel fusion with
   * a shallow scope (`Default`); they are drawn in the deepest scope shared by their
   * neighbours (e.g. the Bottleneck they sit in) so that blocks stay blocks.
   */
  displayScope(node: GraphNode): string {
    if (node.repaired_scope !== undefined) {
      // the graph model repaired it from the data flow (ascend_lab.scopes): one rule
      return node.repaired_scope.replace(/^\/+|\/+$/g, '');
    }
    const own = scopeOf(node);
    if (node.kind !== 'call') {
      return own;
    }
    let common: string[] | null = null;
    let distinct = 0;
    for (const id of [
      ...(this.preds.get(node.id) ?? []),
      ...(this.succs.get(node.id) ?? [])
    ]) {
      const other = this.byId.get(id);
      // other calls have shallow scopes too; values from outside the net say nothing
      if (!other || other.kind !== 'op') {
        continue;
      }
      const parts = scopeOf(other).split('/');
      if (common === null) {
        common = parts;
        distinct = 1;
      } else if (parts.join('/') !== common.join('/') || distinct > 1) {
        distinct = 2;
        let i = 0;
        while (i < common.length && i < parts.length && common[i] === parts[i]) {
          i += 1;
        }
        common = common.slice(0, i);
      }
    }
    // next to a single op's cell (bn1-BatchNorm2d): sit beside it, in the parent
    const shared = common
      ? common.slice(0, distinct === 1 ? -1 : undefined).join('/')
      : '';
    return shared.startsWith(`${own}/`) || (own === '' && shared !== '') ? shared : own;
  }

  private buildGroups(): void {
    this.groups = new Map();
    this.chainCache.clear();
    this.groups.set(ROOT, {
      id: ROOT,
      label: '',
      parent: null,
      depth: 0,
      children: [],
      nodes: [],
      count: 0
    });
    this.nodeGroup.clear();
    for (const node of this.visible) {
      const group = this.ensureGroup(this.displayScope(node));
      group.nodes.push(node.id);
      this.nodeGroup.set(node.id, group.id);
      let g: ScopeGroup | undefined = group;
      while (g) {
        g.count += 1;
        g = g.parent === null ? undefined : this.groups.get(g.parent);
      }
    }
    // a group holding exactly one node is just noise: show the node in the parent
    for (const group of [...this.groups.values()].sort((a, b) => b.depth - a.depth)) {
      if (
        group.id !== ROOT &&
        group.count === 1 &&
        group.nodes.length === 1 &&
        group.children.length === 0
      ) {
        const parent = this.groups.get(group.parent!)!;
        parent.children = parent.children.filter(c => c !== group.id);
        parent.nodes.push(group.nodes[0]);
        this.nodeGroup.set(group.nodes[0], parent.id);
        this.groups.delete(group.id);
      }
    }
    for (const id of [...this.expanded]) {
      if (!this.groups.has(id)) {
        this.expanded.delete(id);
      }
    }
    this.expanded.add(ROOT);
  }

  groupOfNode(id: string): string {
    return this.nodeGroup.get(id) ?? ROOT;
  }

  /** Group ids from the top level down to the node's own group (root excluded). */
  ancestors(id: string): string[] {
    return this.groupChain(this.groupOfNode(id)).slice(1);
  }

  /** Group ids from the root down to `group` (cached; do not modify). */
  private groupChain(group: string): string[] {
    const cached = this.chainCache.get(group);
    if (cached) {
      return cached;
    }
    const chain: string[] = [];
    let g: string | null = group;
    while (g !== null) {
      chain.push(g);
      g = this.groups.get(g)?.parent ?? null;
    }
    chain.reverse(); // root first
    this.chainCache.set(group, chain);
    return chain;
  }

  /** For each edge, the item-level edge in the lowest group containing both ends. */
  private groupEdges(): void {
    this.edgesByGroup = new Map();
    const seen = new Set<string>();
    for (const [u, v] of this.edges) {
      const cu = this.groupChain(this.groupOfNode(u));
      const cv = this.groupChain(this.groupOfNode(v));
      let i = 0;
      while (i < cu.length && i < cv.length && cu[i] === cv[i]) {
        i += 1;
      }
      const lca = cu[i - 1];
      const a = i < cu.length ? groupItem(cu[i]) : nodeItem(u);
      const b = i < cv.length ? groupItem(cv[i]) : nodeItem(v);
      if (a === b) {
        continue;
      }
      const key = `${lca}\u0000${a}\u0000${b}`;
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      (this.edgesByGroup.get(lca) ?? this.edgesByGroup.set(lca, []).get(lca)!).push([
        a,
        b
      ]);
    }
  }

  isExpanded(group: string): boolean {
    return this.expanded.has(group);
  }

  /** The box that shows this node now: the node itself or its outermost collapsed group. */
  representative(id: string): string {
    const chain = this.groupChain(this.groupOfNode(id));
    for (let i = 1; i < chain.length; i++) {
      if (!this.expanded.has(chain[i])) {
        return groupItem(chain[i]);
      }
    }
    return nodeItem(id);
  }

  /** Boxes drawn with the current expansion (nodes + collapsed groups, frames excluded). */
  visibleItemCount(): number {
    let count = 0;
    const walk = (id: string): void => {
      const g = this.groups.get(id)!;
      count += g.nodes.length;
      for (const c of g.children) {
        if (this.expanded.has(c)) {
          walk(c);
        } else {
          count += 1;
        }
      }
    };
    walk(ROOT);
    return count;
  }

  /**
   * Default expansion: everything if the graph is small, else expand groups breadth-first
   * (biggest first) while the number of drawn boxes stays under the threshold.
   */
  applyDefaultExpansion(threshold = COLLAPSE_THRESHOLD): void {
    this.expanded.clear();
    this.expanded.add(ROOT);
    this.layouts.clear();
    if (this.visible.length <= threshold) {
      for (const id of this.groups.keys()) {
        this.expanded.add(id);
      }
      return;
    }
    let count = this.visibleItemCount();
    let frontier = [...this.groups.get(ROOT)!.children];
    while (frontier.length) {
      const next: string[] = [];
      frontier.sort((a, b) => this.groups.get(a)!.count - this.groups.get(b)!.count);
      for (const id of frontier) {
        const g = this.groups.get(id)!;
        const extra = g.nodes.length + g.children.length - 1;
        if (count + extra <= threshold) {
          this.expanded.add(id);
          count += extra;
          next.push(...g.children);
        }
      }
      frontier = next;
    }
  }

  /** Expand or collapse one group; only its ancestors need a new layout. */
  setExpanded(group: string, expand: boolean): void {
    if (
      group === ROOT ||
      !this.groups.has(group) ||
      this.expanded.has(group) === expand
    ) {
      return;
    }
    if (expand) {
      this.expanded.add(group);
      const ready = this.prefetched.get(group);
      if (ready && !this.layouts.has(group)) {
        this.layouts.set(group, ready);
      }
    } else {
      this.expanded.delete(group);
    }
    let g = this.groups.get(group)!.parent;
    while (g !== null) {
      this.layouts.delete(g);
      g = this.groups.get(g)?.parent ?? null;
    }
  }

  /** Expand every group on the way to a node so that it is drawn. */
  reveal(id: string): boolean {
    let changed = false;
    for (const g of this.ancestors(id)) {
      if (!this.expanded.has(g)) {
        this.setExpanded(g, true);
        changed = true;
      }
    }
    return changed;
  }

  /** Layout jobs for expanded groups without a layout, children before parents. */
  layoutJobs(): LayoutJob[] {
    const jobs: LayoutJob[] = [];
    const pending = new Set<string>();
    const visit = (id: string): void => {
      const g = this.groups.get(id)!;
      for (const c of g.children) {
        if (this.expanded.has(c)) {
          visit(c);
        }
      }
      if (this.layouts.has(id)) {
        return;
      }
      const items: LayoutItem[] = [];
      for (const n of g.nodes) {
        items.push({ id: nodeItem(n), w: NODE_W, h: NODE_H });
      }
      for (const c of g.children) {
        const item = groupItem(c);
        if (!this.expanded.has(c)) {
          items.push({ id: item, w: GROUP_W, h: GROUP_H });
        } else if (pending.has(c)) {
          items.push({ id: item, w: 0, h: 0, ref: c });
        } else {
          const l = this.layouts.get(c)!;
          items.push({ id: item, w: l.width, h: l.height });
        }
      }
      jobs.push({ group: id, items, edges: this.edgesByGroup.get(id) ?? [] });
      pending.add(id);
    };
    visit(ROOT);
    return jobs;
  }

  /**
   * Jobs for the contents of collapsed groups that are drawn now (children collapsed too),
   * so that expanding one only needs its ancestors laid out again. `order` ranks groups.
   */
  prefetchJobs(limit: number, order: (group: string) => number = () => 0): LayoutJob[] {
    const candidates: string[] = [];
    for (const id of this.expanded) {
      for (const c of this.groups.get(id)?.children ?? []) {
        if (!this.expanded.has(c) && !this.layouts.has(c) && !this.prefetched.has(c)) {
          candidates.push(c);
        }
      }
    }
    candidates.sort((a, b) => order(a) - order(b));
    return candidates.slice(0, limit).map(id => {
      const g = this.groups.get(id)!;
      const items: LayoutItem[] = g.nodes.map(n => ({
        id: nodeItem(n),
        w: NODE_W,
        h: NODE_H
      }));
      for (const c of g.children) {
        items.push({ id: groupItem(c), w: GROUP_W, h: GROUP_H });
      }
      return { group: id, items, edges: this.edgesByGroup.get(id) ?? [] };
    });
  }

  storePrefetched(results: GroupLayout[]): void {
    for (const r of results) {
      const g = this.groups.get(r.group);
      // only valid while all its children are collapsed
      if (g && !g.children.some(c => this.expanded.has(c))) {
        this.prefetched.set(r.group, r);
      }
    }
  }

  storeLayouts(results: GroupLayout[]): void {
    for (const r of results) {
      this.layouts.set(r.group, r);
    }
  }

  hasLayout(): boolean {
    return this.layoutJobs().length === 0;
  }
}
