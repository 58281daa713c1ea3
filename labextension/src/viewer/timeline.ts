/**
 * The pass timeline: a slider and a list of the compile pipeline's passes grouped by stage.
 * Moving it shows that pass's snapshot with added / modified nodes highlighted and removed
 * ones listed; snapshots not in the payload are requested from the host.
 */
import { clear, h } from './dom';
import { viewerTrans } from './i18n';
import { LayoutClient } from './layout-client';
import { PanesView } from './panes-view';
import { GraphData, PassDiff, PassInfo, Payload, Stage } from './types';

/** What a stage of the compile pipeline does, in the page's language. */
export function stageExplain(stage: Stage): string {
  const t = viewerTrans();
  const explain: Record<Stage, string> = {
    frontend: t.__(
      'Frontend: Python is parsed into a graph, types and shapes are inferred, side effects are ordered (auto-monad).'
    ),
    optimize: t.__(
      'Optimizer: inlining, constant folding and algebraic simplification on the whole graph.'
    ),
    backend: t.__(
      'Backend: the graph is split into kernel graphs, kernels are selected (dtype, format) and hardware passes run.'
    ),
    graph_kernel: t.__(
      'Graph-kernel fusion: neighbouring element-wise ops are clustered and compiled into fused kernels (AKG).'
    ),
    build: t.__(
      'Build: kernels are compiled and the final kernel graph (execution order) is fixed.'
    ),
    other: t.__('Other pass.')
  };
  return explain[stage] ?? '';
}

/** A stage's short name, in the page's language. */
export function stageLabel(stage: Stage): string {
  const t = viewerTrans();
  const labels: Record<Stage, string> = {
    frontend: t.__('frontend'),
    optimize: t.__('optimize'),
    backend: t.__('backend'),
    graph_kernel: t.__('graph kernel'),
    build: t.__('build'),
    other: t.__('other')
  };
  return labels[stage] ?? stage;
}

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
    const t = viewerTrans();
    this.slider = h('input', {
      type: 'range',
      min: 0,
      max: 0,
      step: 1,
      value: 0,
      'aria-label': t.__('Compile pass')
    });
    this.skip = h('input', {
      type: 'checkbox',
      'aria-label': t.__('Skip passes that changed nothing')
    });
    this.skip.checked = true;
    const prev = h(
      'button',
      { type: 'button', 'aria-label': t.__('Previous pass') },
      '\u25c0'
    );
    const next = h(
      'button',
      { type: 'button', 'aria-label': t.__('Next pass') },
      '\u25b6'
    );
    this.info = h('div', {
      class: 'al-passinfo',
      role: 'status',
      'aria-live': 'polite'
    });
    this.list = h('ul', {
      class: 'al-passlist',
      'aria-label': t.__('Passes by stage')
    });
    const controls = h(
      'div',
      { class: 'al-toolbar' },
      prev,
      next,
      h('label', {}, this.skip, t.__('skip unchanged passes')),
      h(
        'span',
        { class: 'al-muted' },
        t.__(
          '%1 passes, %2 changed something',
          passes.length,
          passes.filter(p => p.changed).length
        )
      )
    );
    this.graphs = new PanesView(
      layout,
      [{ key: 'pass', title: t.__('Snapshot') }],
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
        h('li', { class: 'al-stage' }, `${stageLabel(stage)} (${members.length})`)
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
    // opens at the first pass, nothing highlighted: the learner steps forward and sees
    // what each pass changes (at the last pass, its diff painted most nodes orange)
    const keep = this.steps.includes(this.current)
      ? this.current
      : (this.steps[0] ?? 0);
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
    this.slider.setAttribute(
      'aria-valuetext',
      `${pass.name} (${stageLabel(pass.stage)})`
    );
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
      this.showInfo(pass, viewerTrans().__('loading this snapshot\u2026'));
      try {
        const got = await this.requestPass(pass.index);
        if (!isGraph(got)) {
          throw new Error(viewerTrans().__('the kernel sent no graph'));
        }
        this.fetched.set(i, got);
        graph = got;
        mergeDiff(pass, got.diff);
      } catch (err) {
        if (seq === this.seq) {
          this.showInfo(
            pass,
            viewerTrans().__(
              'could not load this snapshot: %1',
              err instanceof Error ? err.message : String(err)
            )
          );
          void this.graphs.panes[0].setGraph(null);
        }
        return;
      }
    } else {
      this.showInfo(
        pass,
        viewerTrans().__('this snapshot is not included in the payload')
      );
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
    const t = viewerTrans();
    const where =
      pass.node_count !== null && pass.node_count !== undefined
        ? t.__(
            '%1, pass %2, %3 nodes',
            stageLabel(pass.stage),
            pass.index,
            pass.node_count
          )
        : t.__('%1, pass %2', stageLabel(pass.stage), pass.index);
    const added = pass.added?.length ?? 0;
    const removed = pass.removed?.length ?? 0;
    const modified = pass.modified?.length ?? 0;
    this.info.append(
      h(
        'div',
        {},
        h('strong', { 'data-field': 'pass-name' }, pass.name),
        ` \u2014 ${where}`
      ),
      h('div', { class: 'al-explain' }, pass.explain ?? stageExplain(pass.stage)),
      h(
        'div',
        { 'data-field': 'changes' },
        pass.changed
          ? t.__('+%1 added, \u2212%2 removed, ~%3 modified', added, removed, modified)
          : t.__('no change in this pass')
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
          t.__('added')
        ),
        h(
          'span',
          {},
          h('span', { class: 'al-swatch', style: 'background: var(--al-modified)' }),
          t.__('modified')
        )
      )
    );
    if (removed) {
      const shown = (pass.removed ?? []).slice(0, 12).join(', ');
      this.info.appendChild(
        h(
          'div',
          { class: 'al-muted' },
          t.__('removed: %1', `${shown}${removed > 12 ? ', \u2026' : ''}`)
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
