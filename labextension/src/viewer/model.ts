/**
 * Graph model for the view: bookkeeping filtering (with edges bridged through hidden
 * nodes), expansion state (default expansion on big graphs), the per-group layout jobs and
 * their prefetch, and repeated-block stacks (32 × Block with one instance drawn). The
 * groups themselves are the scope tree (scope-tree.ts), rebuilt with the visible nodes.
 * Pure data, no DOM: unit-tested directly.
 */
import { GraphData, GraphNode } from './types';
import { BlockStack, findStacks, structureSignature } from './block-stacks';
import { ScopeTree, displayScope } from './scope-tree';
import {
  COLLAPSE_THRESHOLD,
  GROUP_H,
  GROUP_W,
  GroupLayout,
  LayoutItem,
  LayoutJob,
  NODE_H,
  NODE_W,
  ROOT,
  STACK_MIN,
  ScopeGroup,
  groupItem,
  nodeItem,
  stackItem,
  stackSize
} from './layout-types';

// the model's parts, for the modules and tests that import them from here
export * from './block-stacks';
export * from './layout-types';
export { ScopeTree, displayScope, scopeOf } from './scope-tree';

/**
 * Inputs of a hidden node that carry data (Depend: its first, UpdateState: none). A payload
 * lists them (`data_inputs`, from ascend_lab/model/ops.py) on every node where they are not
 * all its inputs, and says so with `data_inputs_listed`; for a graph saved before that, the
 * same rule is derived here.
 */
export function dataInputs(node: GraphNode, listed: boolean): string[] {
  const inputs = node.inputs ?? [];
  if (listed) {
    return node.data_inputs ?? inputs;
  }
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

export class GraphModel {
  readonly graph: GraphData;
  readonly byId = new Map<string, GraphNode>();
  readonly index = new Map<string, number>();
  showBookkeeping: boolean;
  /** the groups drawn (rebuilt with the visible nodes) */
  tree!: ScopeTree;
  visible: GraphNode[] = [];
  /** visible edges (source id, target id), bridged through hidden nodes */
  edges: Array<[string, string]> = [];
  readonly expanded = new Set<string>([ROOT]);
  readonly layouts = new Map<string, GroupLayout>();
  /** layouts of collapsed groups' contents, computed ahead of an expand (idle time) */
  readonly prefetched = new Map<string, GroupLayout>();
  preds = new Map<string, string[]>();
  succs = new Map<string, string[]>();
  /** repeated-block stacks by id, and by the group they sit in */
  stacks = new Map<string, BlockStack>();
  private stacksByParent = new Map<string, BlockStack[]>();
  private stackOfGroup = new Map<string, string>();
  /** the instance each stack draws (default: its first member) */
  private shownInstance = new Map<string, string>();
  /** stacks whose instances are all drawn ("show all") */
  readonly unstacked = new Set<string>();

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
    const listed = this.graph.data_inputs_listed === true;
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
        for (const src of dataInputs(node, listed)) {
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
    this.tree = new ScopeTree(
      this.visible,
      edges,
      n => this.displayScope(n),
      this.index
    );
    for (const id of [...this.expanded]) {
      if (!this.groups.has(id)) {
        this.expanded.delete(id);
      }
    }
    this.expanded.add(ROOT);
    this.buildStacks();
  }

  /** groups by id (the scope tree's) */
  get groups(): Map<string, ScopeGroup> {
    return this.tree.groups;
  }

  /** The scope a node is drawn in (scope-tree.ts displayScope). */
  displayScope(node: GraphNode): string {
    return displayScope(node, this);
  }

  /** The structure signature of a group's subtree (see structureSignature). */
  signature(group: string): string {
    const nodes = this.tree.subtreeNodes(group, n => this.byId.get(n)!.op);
    const edges: Array<[string, string]> = [];
    for (const n of nodes) {
      for (const p of this.preds.get(n.id) ?? []) {
        edges.push([p, n.id]);
      }
    }
    return structureSignature(nodes, edges);
  }

  private buildStacks(): void {
    this.stacks = new Map();
    this.stacksByParent = new Map();
    this.stackOfGroup = new Map();
    for (const g of this.groups.values()) {
      if (g.children.length < STACK_MIN) {
        continue;
      }
      const children = g.children.map(c => ({
        id: c,
        label: this.groups.get(c)!.label
      }));
      const found = findStacks(g.id, children, c => this.signature(c));
      for (const st of found) {
        this.stacks.set(st.id, st);
        for (const m of st.members) {
          this.stackOfGroup.set(m, st.id);
        }
      }
      if (found.length) {
        this.stacksByParent.set(g.id, found);
      }
    }
    // keep what the user chose where the same stack still exists
    for (const [id, member] of [...this.shownInstance]) {
      if (this.stackOfGroup.get(member) !== id) {
        this.shownInstance.delete(id);
      }
    }
    for (const id of [...this.unstacked]) {
      if (!this.stacks.has(id)) {
        this.unstacked.delete(id);
      }
    }
  }

  /** The stack a group belongs to while it is stacked (not after "show all"). */
  stackFor(group: string): BlockStack | undefined {
    const id = this.stackOfGroup.get(group);
    return id === undefined || this.unstacked.has(id) ? undefined : this.stacks.get(id);
  }

  /** The stacks among a group's children, stacked or not. */
  stacksIn(group: string): BlockStack[] {
    return this.stacksByParent.get(group) ?? [];
  }

  /** The stack a group is a member of, stacked or not. */
  memberOf(group: string): BlockStack | undefined {
    const id = this.stackOfGroup.get(group);
    return id === undefined ? undefined : this.stacks.get(id);
  }

  /** The instance a stack draws. */
  shownInstanceOf(stack: string): string {
    return this.shownInstance.get(stack) ?? this.stacks.get(stack)!.members[0];
  }

  /** A member of a stack other than the instance it draws: not drawn. */
  isStackHidden(group: string): boolean {
    const st = this.stackFor(group);
    return st !== undefined && this.shownInstanceOf(st.id) !== group;
  }

  /**
   * What a group draws for its child groups, in order: plain groups, and each stack once
   * (where its first member sits) with the instance it shows.
   */
  drawnChildren(group: string): Array<{ group: string; stack?: BlockStack }> {
    const g = this.groups.get(group)!;
    if (!this.stacksByParent.has(group)) {
      return g.children.map(c => ({ group: c }));
    }
    const out: Array<{ group: string; stack?: BlockStack }> = [];
    for (const c of g.children) {
      const st = this.stackFor(c);
      if (!st) {
        out.push({ group: c });
      } else if (c === st.members[0]) {
        out.push({ group: this.shownInstanceOf(st.id), stack: st });
      }
    }
    return out;
  }

  /** Layouts that depend on this group's size: its own and its ancestors'. */
  private invalidateFrom(group: string | null): void {
    let g = group;
    while (g !== null) {
      this.layouts.delete(g);
      this.prefetched.delete(g);
      g = this.groups.get(g)?.parent ?? null;
    }
  }

  /**
   * Draw another instance of a stack: it opens like the one drawn before (the same
   * relative scopes expanded), so stepping through layers keeps the view.
   */
  showInstance(stack: string, member: string): boolean {
    const st = this.stacks.get(stack);
    if (!st || !st.members.includes(member)) {
      return false;
    }
    const old = this.shownInstanceOf(stack);
    if (this.unstacked.has(stack) || old === member) {
      return false;
    }
    this.shownInstance.set(stack, member);
    this.openLike(old, member);
    if (!this.copyInstanceLayouts(old, member)) {
      this.invalidateFrom(st.parent);
    }
    // else: the same size as the instance drawn before, so the parents' layouts hold
    return true;
  }

  /** Give `to`'s subtree the expansion (and nested stacks' choices) of its twin `from`. */
  private openLike(from: string, to: string): void {
    let changed = false;
    for (const g of this.tree.subtreeGroups(to)) {
      const twin = from + g.slice(to.length);
      const open = this.expanded.has(twin);
      if (open !== this.expanded.has(g)) {
        changed = true;
        if (open) {
          this.expanded.add(g);
        } else {
          this.expanded.delete(g);
        }
      }
      const nested = this.stackOfGroup.get(twin);
      if (nested !== undefined && nested === twin && this.stacks.has(g)) {
        // a stack inside the instance: draw the same member, stacked or not
        const shown = this.shownInstanceOf(nested);
        this.shownInstance.set(g, to + shown.slice(from.length));
        if (this.unstacked.has(nested) !== this.unstacked.has(g)) {
          changed = true;
          if (this.unstacked.has(nested)) {
            this.unstacked.add(g);
          } else {
            this.unstacked.delete(g);
          }
        }
      }
    }
    if (changed) {
      for (const g of this.tree.subtreeGroups(to)) {
        this.layouts.delete(g);
      }
    }
  }

  /**
   * Lay out instance `to` by renaming the layouts of `from`, an instance of the same stack
   * drawn with the same expansion: one structure, one picture, no layout run. Nodes pair up
   * group by group, op by op, in graph order. False (nothing stored) when a layout is
   * missing or the groups do not pair up.
   */
  private copyInstanceLayouts(from: string, to: string): boolean {
    const rename = new Map<string, string>();
    const pending: GroupLayout[] = [];
    const sources: string[] = [];
    const walk = (g: string): boolean => {
      if (!this.layouts.has(g)) {
        return false;
      }
      sources.push(g);
      for (const { group: c } of this.drawnChildren(g)) {
        if (this.expanded.has(c) && !walk(c)) {
          return false;
        }
      }
      return true;
    };
    if (!this.expanded.has(from) || !walk(from)) {
      return false;
    }
    const twinOf = (path: string): string => to + path.slice(from.length);
    for (const g of sources) {
      const pairs = this.pairNodes(g, twinOf(g));
      if (!pairs) {
        return false;
      }
      for (const [n, twin] of pairs) {
        rename.set(nodeItem(n), nodeItem(twin));
      }
    }
    for (const g of sources) {
      const layout = this.layouts.get(g)!;
      const pos: Record<string, [number, number]> = {};
      for (const item of Object.keys(layout.pos)) {
        const renamed = item.startsWith('n:')
          ? rename.get(item)
          : `${item.slice(0, 2)}${twinOf(item.slice(2))}`;
        if (renamed === undefined) {
          return false;
        }
        pos[renamed] = layout.pos[item];
      }
      pending.push({ ...layout, group: twinOf(g), pos });
    }
    for (const layout of pending) {
      this.layouts.set(layout.group, layout);
    }
    return true;
  }

  /** Step a stack's drawn instance by `delta` (wrapping around); the instance now drawn. */
  stepInstance(stack: string, delta: number): string {
    const st = this.stacks.get(stack)!;
    const at = st.members.indexOf(this.shownInstanceOf(stack));
    const n = st.members.length;
    const next = st.members[(((at + delta) % n) + n) % n];
    this.showInstance(stack, next);
    return next;
  }

  /**
   * Draw every instance of a stack as its own group ("show all"). On big graphs the
   * instances not drawn before come collapsed, so that the view stays light.
   */
  showAll(stack: string): void {
    const st = this.stacks.get(stack);
    if (!st || this.unstacked.has(stack)) {
      return;
    }
    const shown = this.shownInstanceOf(stack);
    this.unstacked.add(stack);
    if (this.visible.length > COLLAPSE_THRESHOLD) {
      for (const m of st.members) {
        if (m !== shown) {
          this.expanded.delete(m);
        }
      }
    }
    this.invalidateFrom(st.parent);
  }

  /** Stack a stack's instances again, drawing `member` (default: the one drawn before). */
  restack(stack: string, member?: string): void {
    const st = this.stacks.get(stack);
    if (!st || !this.unstacked.has(stack)) {
      return;
    }
    this.unstacked.delete(stack);
    if (member !== undefined && st.members.includes(member)) {
      this.shownInstance.set(stack, member);
    }
    this.invalidateFrom(st.parent);
  }

  /**
   * The nodes of two twin groups (same place in two instances of one block) paired up: op
   * by op, in graph order. Null when they do not pair up.
   */
  private pairNodes(a: string, b: string): Map<string, string> | null {
    const ga = this.groups.get(a);
    const gb = this.groups.get(b);
    if (!ga || !gb || ga.nodes.length !== gb.nodes.length) {
      return null;
    }
    const byOp = new Map<string, string[]>();
    for (const n of gb.nodes) {
      const op = this.byId.get(n)!.op;
      (byOp.get(op) ?? byOp.set(op, []).get(op)!).push(n);
    }
    const taken = new Map<string, number>();
    const pairs = new Map<string, string>();
    for (const n of ga.nodes) {
      const op = this.byId.get(n)!.op;
      const k = taken.get(op) ?? 0;
      const twin = byOp.get(op)?.[k];
      if (twin === undefined) {
        return null;
      }
      taken.set(op, k + 1);
      pairs.set(n, twin);
    }
    return pairs;
  }

  /**
   * The node at the same place in instance `to` as `node` in instance `from` (so that a
   * selection follows when a stack draws another layer), or null.
   */
  twinNode(node: string, from: string, to: string): string | null {
    const group = this.groupOfNode(node);
    if (group !== from && !group.startsWith(`${from}/`)) {
      return null;
    }
    return this.pairNodes(group, to + group.slice(from.length))?.get(node) ?? null;
  }

  /** Is a node drawn inside this stack (in its drawn instance)? */
  private insideStack(node: string, stack: string): boolean {
    return this.tree
      .chain(this.groupOfNode(node))
      .some(g => this.stackOfGroup.get(g) === stack);
  }

  /**
   * The drawn edge for an edge between two nodes: the boxes showing its ends, or null when
   * both are in one box, or when one end is a stack and the other is drawn inside it (the
   * edges between instances of a stack run inside the stack).
   */
  drawnEdge(u: string, v: string): [string, string] | null {
    const a = this.representative(u);
    const b = this.representative(v);
    if (a === b) {
      return null;
    }
    if (
      (a.startsWith('k:') && this.insideStack(v, a.slice(2))) ||
      (b.startsWith('k:') && this.insideStack(u, b.slice(2)))
    ) {
      return null;
    }
    return [a, b];
  }

  /** A group's item-level edges with stacked members drawn as their stack. */
  private jobEdges(group: string): Array<[string, string]> {
    const raw = this.tree.itemEdges(group);
    if (!this.stacksByParent.has(group)) {
      return raw;
    }
    const item = (it: string): string => {
      const st = it.startsWith('g:') ? this.stackFor(it.slice(2)) : undefined;
      return st ? stackItem(st.id) : it;
    };
    const seen = new Set<string>();
    const out: Array<[string, string]> = [];
    for (const [a0, b0] of raw) {
      const a = item(a0);
      const b = item(b0);
      const key = `${a}\u0000${b}`;
      if (a !== b && !seen.has(key)) {
        seen.add(key);
        out.push([a, b]);
      }
    }
    return out;
  }

  groupOfNode(id: string): string {
    return this.tree.groupOfNode(id);
  }

  /** Group ids from the top level down to the node's own group (root excluded). */
  ancestors(id: string): string[] {
    return this.tree.chain(this.groupOfNode(id)).slice(1);
  }

  isExpanded(group: string): boolean {
    return this.expanded.has(group);
  }

  /** The box that shows this node now: the node itself or its outermost collapsed group. */
  representative(id: string): string {
    const chain = this.tree.chain(this.groupOfNode(id));
    for (let i = 1; i < chain.length; i++) {
      const st = this.stackFor(chain[i]);
      if (st && this.shownInstanceOf(st.id) !== chain[i]) {
        return stackItem(st.id);
      }
      if (!this.expanded.has(chain[i])) {
        return groupItem(chain[i]);
      }
    }
    return nodeItem(id);
  }

  /**
   * Boxes drawn with the current expansion (nodes, collapsed groups and stacks' headers;
   * frames excluded).
   */
  visibleItemCount(): number {
    let count = 0;
    const walk = (id: string): void => {
      const g = this.groups.get(id)!;
      count += g.nodes.length;
      for (const { group: c, stack } of this.drawnChildren(id)) {
        count += stack ? 1 : 0;
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
   * (biggest first) while the number of drawn boxes stays under the threshold; the
   * instance a stack draws opens one level only.
   */
  applyDefaultExpansion(threshold = COLLAPSE_THRESHOLD): void {
    this.expanded.clear();
    this.expanded.add(ROOT);
    this.layouts.clear();
    if (this.visible.length <= threshold) {
      for (const [id, g] of this.groups) {
        if (!g.artificial) {
          this.expanded.add(id); // artificial layers start collapsed
        }
      }
      return;
    }
    let count = this.visibleItemCount();
    const drawn = (id: string): string[] => this.drawnChildren(id).map(c => c.group);
    let frontier = drawn(ROOT);
    while (frontier.length) {
      const next: string[] = [];
      frontier.sort((a, b) => this.groups.get(a)!.count - this.groups.get(b)!.count);
      for (const id of frontier) {
        const children = this.drawnChildren(id);
        const extra =
          this.groups.get(id)!.nodes.length +
          children.reduce((k, c) => k + (c.stack ? 2 : 1), 0) -
          1;
        if (count + extra <= threshold && !this.groups.get(id)!.artificial) {
          this.expanded.add(id);
          count += extra;
          // a stack's instance opens one level: the block's outline, readable at a glance
          if (!this.stackFor(id)) {
            next.push(...drawn(id));
          }
        }
      }
      frontier = next;
    }
  }

  /** Expand or collapse one group; only its ancestors need a new layout. */
  setExpanded(group: string, expand: boolean): void {
    const st = this.stackFor(group);
    if (expand && st && this.shownInstanceOf(st.id) !== group) {
      // a hidden instance: the stack draws it instead of the one it drew
      this.showInstance(st.id, group);
    }
    if (
      group === ROOT ||
      !this.groups.has(group) ||
      this.expanded.has(group) === expand
    ) {
      return;
    }
    const member = this.memberOf(group);
    if (expand && member && this.unstacked.has(member.id)) {
      // one layer of a stack shown in full: it opens like the instance the stack drew
      const like = this.shownInstanceOf(member.id);
      if (like !== group && this.expanded.has(like)) {
        this.expanded.add(group);
        this.openLike(like, group);
        this.copyInstanceLayouts(like, group);
      }
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
      const st = this.stackFor(g);
      if (st && this.shownInstanceOf(st.id) !== g) {
        this.showInstance(st.id, g);
        changed = true;
      }
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
    const pad = stackSize(0, 0);
    const visit = (id: string): void => {
      const g = this.groups.get(id)!;
      const children = this.drawnChildren(id);
      for (const { group: c } of children) {
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
      for (const { group: c, stack } of children) {
        const item = stack ? stackItem(stack.id) : groupItem(c);
        const [pw, ph] = stack ? pad : [0, 0];
        if (!this.expanded.has(c)) {
          items.push({ id: item, w: GROUP_W + pw, h: GROUP_H + ph });
        } else if (pending.has(c)) {
          items.push({ id: item, w: 0, h: 0, ref: c, pad: stack ? pad : undefined });
        } else {
          const l = this.layouts.get(c)!;
          items.push({ id: item, w: l.width + pw, h: l.height + ph });
        }
      }
      jobs.push({ group: id, items, edges: this.jobEdges(id) });
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
      if (!this.groups.has(id) || this.isStackHidden(id)) {
        continue;
      }
      for (const { group: c } of this.drawnChildren(id)) {
        if (!this.expanded.has(c) && !this.layouts.has(c) && !this.prefetched.has(c)) {
          candidates.push(c);
        }
      }
    }
    candidates.sort((a, b) => order(a) - order(b));
    const [pw, ph] = stackSize(0, 0);
    return candidates.slice(0, limit).map(id => {
      const g = this.groups.get(id)!;
      const items: LayoutItem[] = g.nodes.map(n => ({
        id: nodeItem(n),
        w: NODE_W,
        h: NODE_H
      }));
      for (const { group: c, stack } of this.drawnChildren(id)) {
        items.push(
          stack
            ? { id: stackItem(stack.id), w: GROUP_W + pw, h: GROUP_H + ph }
            : { id: groupItem(c), w: GROUP_W, h: GROUP_H }
        );
      }
      return { group: id, items, edges: this.jobEdges(id) };
    });
  }

  storePrefetched(results: GroupLayout[]): void {
    for (const r of results) {
      const g = this.groups.get(r.group);
      // only valid while all its drawn children are collapsed
      if (g && !this.drawnChildren(r.group).some(c => this.expanded.has(c.group))) {
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
