/**
 * The pass timeline: a slider and a list of the compile pipeline's passes grouped by stage.
 * Moving it shows that pass's snapshot with added / modified nodes highlighted and removed
 * ones listed; snapshots not in the payload are requested from the host.
 */
import { clear, h } from './dom';
import { LayoutClient } from './layout-client';
import { PanesView } from './panes-view';
import { GraphData, PassDiff, PassInfo, Payload, Stage } from './types';

export const STAGE_EXPLAIN: Record<Stage, string> = {
  frontend:
    'Frontend: Python is parsed into a graph, types and shapes are inferred, side effects are ordered (auto-monad).',
  optimize:
    'Optimizer: inlining, constant folding and algebraic simplification on the whole graph.',
  backend:
    'Backend: the graph is split into kernel graphs, kernels are selected (dtype, format) and hardware passes run.',
  graph_kernel:
    'Graph-kernel fusion: neighbouring element-wise ops are clustered and compiled into fused kernels (AKG).',
  build:
    'Build: kernels are compiled and the final kernel graph (execution order) is fixed.',
  other: 'Other pass.'
};

const STAGE_ORDER: Stage[] = [
  'frontend',
  'optimize',
  'backend',
  'graph_kernel',
  'build',
  'other'
];

/** Positions in `passes` the slider steps through. */
export function timelineSteps(passes: PassInfo[], skipUnchanged: boolean): number[] {
  const out: number[] = [];
  passes.forEach((p, i) => {
    if (!skipUnchanged || p.changed || i === 0) {
      out.push(i);
    }
  });
  return out;
}

function isGraph(value: unknown): value is GraphData {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as GraphData).nodes) &&
    typeof (value as GraphData).name === 'string'
  );
}

export class TimelineView {
  readonly el: HTMLDivElement;
  readonly graphs: PanesView;
  readonly slider: HTMLInputElement;
  private list: HTMLUListElement;
  private info: HTMLDivElement;
  private skip: HTMLInputElement;
  private steps: number[] = [];
  private items = new Map<number, HTMLLIElement>();
  private fetched = new Map<number, GraphData>();
  current = -1;
  private seq = 0;

  constructor(
    layout: LayoutClient,
    private readonly payload: Payload,
    private readonly requestPass?: (index: number) => Promise<unknown>
  ) {
    const passes = payload.passes ?? [];
    this.slider = h('input', {
      type: 'range',
      min: 0,
      max: 0,
      step: 1,
      value: 0,
      'aria-label': 'Compile pass'
    });
    this.skip = h('input', {
      type: 'checkbox',
      'aria-label': 'Skip passes that changed nothing'
    });
    this.skip.checked = true;
    const prev = h(
      'button',
      { type: 'button', 'aria-label': 'Previous pass' },
      '\u25c0'
    );
    const next = h('button', { type: 'button', 'aria-label': 'Next pass' }, '\u25b6');
    this.info = h('div', {
      class: 'al-passinfo',
      role: 'status',
      'aria-live': 'polite'
    });
    this.list = h('ul', { class: 'al-passlist', 'aria-label': 'Passes by stage' });
    const controls = h(
      'div',
      { class: 'al-toolbar' },
      prev,
      next,
      h('label', {}, this.skip, 'skip unchanged passes'),
      h(
        'span',
        { class: 'al-muted' },
        `${passes.length} passes, ${passes.filter(p => p.changed).length} changed something`
      )
    );
    this.graphs = new PanesView(
      layout,
      [{ key: 'pass', title: 'Snapshot' }],
      'timeline',
      'changed'
    );
    this.el = h(
      'div',
      { class: 'al-view', 'data-view': 'timeline' },
      h('div', { class: 'al-timeline' }, controls, this.slider, this.info, this.list),
      this.graphs.el
    );
    this.slider.addEventListener('input', () =>
      this.go(this.steps[Number(this.slider.value)] ?? 0)
    );
    this.skip.addEventListener('change', () => this.rebuildSteps());
    prev.addEventListener('click', () => this.move(-1));
    next.addEventListener('click', () => this.move(1));
    this.rebuildSteps();
  }

  private move(delta: number): void {
    const pos = this.steps.indexOf(this.current);
    const to = Math.max(
      0,
      Math.min(this.steps.length - 1, (pos < 0 ? 0 : pos) + delta)
    );
    this.go(this.steps[to]);
  }

  private rebuildSteps(): void {
    const passes = this.payload.passes ?? [];
    this.steps = timelineSteps(passes, this.skip.checked);
    this.slider.max = String(Math.max(0, this.steps.length - 1));
    clear(this.list);
    this.items.clear();
    for (const stage of STAGE_ORDER) {
      const members = this.steps.filter(i => passes[i].stage === stage);
      if (!members.length) {
        continue;
      }
      this.list.appendChild(
        h('li', { class: 'al-stage' }, `${stage} (${members.length})`)
      );
      for (const i of members) {
        const p = passes[i];
        const li = h(
          'li',
          {
            class: p.changed ? '' : 'al-unchanged',
            tabindex: 0,
            role: 'button',
            'data-pass': i,
            title: p.name
          },
          `${p.index}: ${p.name}`
        );
        li.addEventListener('click', () => this.go(i));
        li.addEventListener('keydown', (ev: KeyboardEvent) => {
          if (ev.key === 'Enter') {
            this.go(i);
          }
        });
        this.items.set(i, li);
        this.list.appendChild(li);
      }
    }
    const keep = this.steps.includes(this.current)
      ? this.current
      : (this.steps[this.steps.length - 1] ?? 0);
    this.current = -1;
    this.go(keep);
  }

  /** Show pass `i` (an index into payload.passes). */
  async go(i: number): Promise<void> {
    const passes = this.payload.passes ?? [];
    const pass = passes[i];
    if (!pass || i === this.current) {
      return;
    }
    this.current = i;
    const seq = ++this.seq;
    const pos = this.steps.indexOf(i);
    if (pos >= 0) {
      this.slider.value = String(pos);
    }
    this.slider.setAttribute('aria-valuetext', `${pass.name} (${pass.stage})`);
    for (const [k, li] of this.items) {
      li.setAttribute('aria-current', k === i ? 'true' : 'false');
    }
    this.showInfo(pass, null);
    let graph: GraphData | null = null;
    if (pass.graph && this.payload.graphs[pass.graph]) {
      graph = this.payload.graphs[pass.graph];
    } else if (this.fetched.has(i)) {
      graph = this.fetched.get(i)!;
    } else if (this.requestPass) {
      this.showInfo(pass, 'loading this snapshot\u2026');
      try {
        const got = await this.requestPass(pass.index);
        if (!isGraph(got)) {
          throw new Error('the kernel sent no graph');
        }
        this.fetched.set(i, got);
        graph = got;
        mergeDiff(pass, got.diff);
      } catch (err) {
        if (seq === this.seq) {
          this.showInfo(
            pass,
            `could not load this snapshot: ${err instanceof Error ? err.message : String(err)}`
          );
          void this.graphs.panes[0].setGraph(null);
        }
        return;
      }
    } else {
      this.showInfo(pass, 'this snapshot is not included in the payload');
    }
    if (seq !== this.seq) {
      return;
    }
    if (graph) {
      this.showInfo(pass, null);
    }
    await this.graphs.panes[0].setGraph(graph, {
      added: pass.added,
      modified: pass.modified
    });
  }

  private showInfo(pass: PassInfo, note: string | null): void {
    clear(this.info);
    const added = pass.added?.length ?? 0;
    const removed = pass.removed?.length ?? 0;
    const modified = pass.modified?.length ?? 0;
    this.info.append(
      h(
        'div',
        {},
        h('strong', { 'data-field': 'pass-name' }, pass.name),
        ` \u2014 ${pass.stage}, pass ${pass.index}${pass.node_count !== null && pass.node_count !== undefined ? `, ${pass.node_count} nodes` : ''}`
      ),
      h(
        'div',
        { class: 'al-explain' },
        pass.explain ?? STAGE_EXPLAIN[pass.stage] ?? ''
      ),
      h(
        'div',
        { 'data-field': 'changes' },
        pass.changed
          ? `+${added} added, \u2212${removed} removed, ~${modified} modified`
          : 'no change in this pass'
      )
    );
    this.info.appendChild(
      h(
        'div',
        { class: 'al-legend', 'aria-hidden': 'true' },
        h(
          'span',
          {},
          h('span', { class: 'al-swatch', style: 'background: var(--al-added)' }),
          'added'
        ),
        h(
          'span',
          {},
          h('span', { class: 'al-swatch', style: 'background: var(--al-modified)' }),
          'modified'
        )
      )
    );
    if (removed) {
      const shown = (pass.removed ?? []).slice(0, 12).join(', ');
      this.info.appendChild(
        h(
          'div',
          { class: 'al-muted' },
          `removed: ${shown}${removed > 12 ? ', \u2026' : ''}`
        )
      );
    }
    if (note) {
      this.info.appendChild(h('div', { class: 'al-muted' }, note));
    }
  }

  dispose(): void {
    this.graphs.dispose();
    this.el.remove();
  }
}

/** Fill a pass's diff from a snapshot the kernel sent (payloads built lazily carry none). */
export function mergeDiff(pass: PassInfo, diff: PassDiff | undefined): void {
  if (!diff) {
    return;
  }
  pass.added = pass.added ?? diff.added;
  pass.removed = pass.removed ?? diff.removed;
  pass.modified = pass.modified ?? diff.modified;
}
