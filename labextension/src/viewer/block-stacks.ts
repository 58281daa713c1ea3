/**
 * Repeated blocks (32 × Block): which sibling scopes are instances of one block, found by
 * their labels (`N-Class`) and a structure signature of their subtrees. Pure functions,
 * used by ./model.ts.
 */
import { STACK_MIN } from './layout-types';

/**
 * Sibling scopes repeated in a list: instances of one block (`12-Block` in a CellList),
 * `members` in index order. Its id is its first member's group id.
 */
export interface BlockStack {
  id: string;
  parent: string;
  /** the block's class, e.g. `Block` */
  label: string;
  members: string[];
}

/** The class part of a scope label: `12-Block` -> `Block`, `attn_norm-RMSNorm` -> `RMSNorm`. */
export function blockClass(label: string): string {
  const cut = label.indexOf('-');
  return cut < 0 ? label : label.slice(cut + 1);
}

/** Leading index of a list member's label (`12-Block` -> 12), else NaN. */
function labelIndex(label: string): number {
  const m = /^(\d{1,9})-/.exec(label);
  return m ? Number(m[1]) : NaN;
}

/** A node of a subtree for structureSignature: its scope relative to the subtree's root. */
export interface SignatureNode {
  id: string;
  op: string;
  /** scope path below the instance's root ('' for the root itself) */
  path: string;
}

/**
 * Structure signature of a subtree: the multiset of (relative scope, op) of its nodes and
 * the multiset of edges between them as (relative scope, op) pairs. Two instances of one
 * block have the same signature; a block with an extra branch (a downsampling first
 * Bottleneck) or other ops does not. `edges` may hold edges leaving the subtree: ignored.
 */
export function structureSignature(
  nodes: SignatureNode[],
  edges: Iterable<[string, string]>
): string {
  const token = new Map<string, string>();
  for (const n of nodes) {
    token.set(n.id, `${n.path}\u0001${n.op}`);
  }
  const nodeTokens = [...token.values()].sort();
  const edgeTokens: string[] = [];
  for (const [u, v] of edges) {
    const a = token.get(u);
    const b = token.get(v);
    if (a !== undefined && b !== undefined) {
      edgeTokens.push(`${a}\u0002${b}`);
    }
  }
  edgeTokens.sort();
  return `${nodeTokens.join('\u0003')}\u0004${edgeTokens.join('\u0003')}`;
}

/**
 * Partition sibling groups into stacks: runs of consecutive members of a list (labels
 * `N-Class`, as MindSpore names CellList and SequentialCell members, indices N, N+1, …) of
 * one class and one signature, at least `min` long. Runs keep the data flow reading in
 * order: ResNet's downsampling Bottleneck at the start of each stage breaks the run.
 * `signatureOf` is only called for classes that repeat `min` times.
 */
export function findStacks(
  parent: string,
  children: Array<{ id: string; label: string }>,
  signatureOf: (id: string) => string,
  min = STACK_MIN
): BlockStack[] {
  const listed = children
    .map((c, i) => ({ ...c, i, k: labelIndex(c.label), cls: blockClass(c.label) }))
    // a named attribute (attn_norm, layer1) is not an instance in a list
    .filter(c => !isNaN(c.k))
    .sort((a, b) => a.k - b.k || a.i - b.i);
  const perClass = new Map<string, number>();
  for (const c of listed) {
    perClass.set(c.cls, (perClass.get(c.cls) ?? 0) + 1);
  }
  const stacks: BlockStack[] = [];
  let run: typeof listed = [];
  let runSig = '';
  const close = (): void => {
    if (run.length >= min) {
      const members = run.map(c => c.id);
      stacks.push({ id: members[0], parent, label: run[0].cls, members });
    }
    run = [];
  };
  for (const c of listed) {
    const sig = (perClass.get(c.cls) ?? 0) >= min ? signatureOf(c.id) : '';
    const last = run[run.length - 1];
    if (!last || !sig || last.cls !== c.cls || last.k + 1 !== c.k || runSig !== sig) {
      close();
    }
    if (sig) {
      run.push(c);
      runSig = sig;
    }
  }
  close();
  return stacks;
}
