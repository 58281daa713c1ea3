/**
 * The scope tree: the collapsible groups a graph is drawn in, built from the visible nodes
 * and their (bridged) edges. Each node sits in the group of its scope (a fused-kernel call
 * of an older payload in the scope its neighbours share), a group holding a single node is
 * folded into its parent, and a scope too long for a screen is cut into artificial layers
 * (`ops 1–40`, layers.ts). Each edge is kept as an item-level edge in the lowest group
 * holding both its ends, for that group's layout job.
 * Pure data, no DOM: unit-tested directly (__tests__/scope-tree.test.ts).
 */
import { chunkLabel, chunkOps } from './layers';
import { ROOT, ScopeGroup, groupItem, nodeItem } from './layout-types';
import { SignatureNode } from './block-stacks';
import { GraphNode } from './types';

export function scopeOf(node: GraphNode): string {
  return (node.scope ?? '').replace(/^\/+|\/+$/g, '');
}

/** A node's drawn neighbours, for placing a fused-kernel call (see displayScope). */
export interface Neighbours {
  byId: ReadonlyMap<string, GraphNode>;
  preds: ReadonlyMap<string, string[]>;
  succs: ReadonlyMap<string, string[]>;
}

/**
 * The scope a node is drawn in: the payload's repaired scope when it has one. For older
 * payloads: fused-kernel calls come out of graph-kernel fusion with
 * a shallow scope (`Default`); they are drawn in the deepest scope shared by their
 * neighbours (e.g. the Bottleneck they sit in) so that blocks stay blocks.
 */
export function displayScope(node: GraphNode, around: Neighbours): string {
  if (node.repaired_scope !== undefined) {
    // the graph model repaired it from the data flow (ascend_lab.analysis.scopes): one rule
    return node.repaired_scope.replace(/^\/+|\/+$/g, '');
  }
  const own = scopeOf(node);
  if (node.kind !== 'call') {
    return own;
  }
  let common: string[] | null = null;
  let distinct = 0;
  for (const id of [
    ...(around.preds.get(node.id) ?? []),
    ...(around.succs.get(node.id) ?? [])
  ]) {
    const other = around.byId.get(id);
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

export class ScopeTree {
  /** groups by id (the scope path; ROOT is ''), parents before children */
  readonly groups = new Map<string, ScopeGroup>();
  private readonly nodeGroup = new Map<string, string>();
  private readonly chainCache = new Map<string, string[]>();
  private readonly edgesByGroup = new Map<string, Array<[string, string]>>();

  /**
   * @param nodes the visible nodes, in graph order
   * @param edges the visible edges between them (source id, target id)
   * @param placeOf the scope a node is drawn in (displayScope)
   * @param index a node's position in the graph (orders the ops of artificial layers)
   */
  constructor(
    nodes: readonly GraphNode[],
    edges: ReadonlyArray<[string, string]>,
    placeOf: (node: GraphNode) => string,
    index: ReadonlyMap<string, number>
  ) {
    this.groups.set(ROOT, {
      id: ROOT,
      label: '',
      parent: null,
      depth: 0,
      children: [],
      nodes: [],
      count: 0
    });
    for (const node of nodes) {
      const group = this.ensureGroup(placeOf(node));
      group.nodes.push(node.id);
      this.nodeGroup.set(node.id, group.id);
      let g: ScopeGroup | undefined = group;
      while (g) {
        g.count += 1;
        g = g.parent === null ? undefined : this.groups.get(g.parent);
      }
    }
    this.foldSingletons();
    this.chunkLongScopes(edges, index);
    this.groupEdges(edges);
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

  /** A group holding exactly one node is just noise: show the node in the parent. */
  private foldSingletons(): void {
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
  }

  /**
   * A scope whose own ops would not fit on a screen at legible labels (too many, or one
   * row two screens wide) draws them as artificial layers of consecutive ops
   * (`ops 1–40`), collapsed by default (layers.ts).
   */
  private chunkLongScopes(
    edges: ReadonlyArray<[string, string]>,
    index: ReadonlyMap<string, number>
  ): void {
    const local = new Map<string, Array<[string, string]>>();
    for (const [u, v] of edges) {
      const g = this.nodeGroup.get(u);
      if (g !== undefined && g === this.nodeGroup.get(v)) {
        (local.get(g) ?? local.set(g, []).get(g)!).push([u, v]);
      }
    }
    for (const group of [...this.groups.values()]) {
      const ids = [...group.nodes].sort((a, b) => index.get(a)! - index.get(b)!);
      // the top level holds what has no scope: a long chain there reads top to bottom
      const chunks = chunkOps(ids, local.get(group.id) ?? [], group.id === ROOT);
      if (!chunks.length) {
        continue;
      }
      group.nodes = [];
      let first = 0;
      for (const chunk of chunks) {
        const label = chunkLabel(first, chunk.length);
        first += chunk.length;
        const id = group.id === ROOT ? label : `${group.id}/${label}`;
        if (this.groups.has(id)) {
          group.nodes.push(...chunk); // a real scope of that name (never seen): keep them
          continue;
        }
        this.groups.set(id, {
          id,
          label,
          parent: group.id,
          depth: group.depth + 1,
          children: [],
          nodes: chunk,
          count: chunk.length,
          artificial: true
        });
        group.children.push(id);
        for (const n of chunk) {
          this.nodeGroup.set(n, id);
        }
      }
    }
  }

  /** For each edge, the item-level edge in the lowest group containing both ends. */
  private groupEdges(edges: ReadonlyArray<[string, string]>): void {
    const seen = new Set<string>();
    for (const [u, v] of edges) {
      const cu = this.chain(this.groupOfNode(u));
      const cv = this.chain(this.groupOfNode(v));
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

  /** The group a node is drawn in (ROOT for a node the tree does not hold). */
  groupOfNode(id: string): string {
    return this.nodeGroup.get(id) ?? ROOT;
  }

  /** Group ids from the root down to `group` (cached; do not modify). */
  chain(group: string): string[] {
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

  /** Groups of a subtree, the root first. */
  subtreeGroups(group: string): string[] {
    const out = [group];
    for (let i = 0; i < out.length; i++) {
      out.push(...this.groups.get(out[i])!.children);
    }
    return out;
  }

  /** Nodes of a group's subtree with their scope relative to the group (for signatures). */
  subtreeNodes(group: string, opOf: (id: string) => string): SignatureNode[] {
    const out: SignatureNode[] = [];
    const walk = (id: string, path: string): void => {
      const g = this.groups.get(id)!;
      for (const n of g.nodes) {
        out.push({ id: n, op: opOf(n), path });
      }
      for (const c of g.children) {
        const label = this.groups.get(c)!.label;
        walk(c, path ? `${path}/${label}` : label);
      }
    };
    walk(group, '');
    return out;
  }

  /** A group's item-level edges: between its nodes and child groups (`n:` / `g:` ids). */
  itemEdges(group: string): Array<[string, string]> {
    return this.edgesByGroup.get(group) ?? [];
  }
}
