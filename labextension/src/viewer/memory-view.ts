/**
 * The memory map: one rectangle per tensor (x = execution steps it is live, y = its offset
 * in the arena), the live-bytes curve under it, and peak / lower bound / no-reuse totals.
 */
import { clear, h, hue, s } from './dom';
import { viewerTrans } from './i18n';
import { MemoryPlan, MemoryTensor, formatBytes } from './types';

const W = 760;
const MAP_H = 300;
const CURVE_H = 90;
const LEFT = 64;

export class MemoryView {
  readonly el: HTMLDivElement;
  readonly svg: SVGSVGElement;
  private tip: HTMLDivElement;
  private rects = new Map<string, SVGRectElement[]>();
  selectedNode: string | null = null;
  onSelect: (nodeId: string) => void = () => undefined;

  constructor(plan: MemoryPlan, nodeLabel: (id: string) => string) {
    const t = viewerTrans();
    this.tip = h(
      'div',
      { class: 'al-mem-tip', role: 'status', 'aria-live': 'polite' },
      t.__('Hover a tensor for details; click it to select the node that produces it.')
    );
    const steps = Math.max(1, plan.steps);
    const top = Math.max(1, plan.peak, ...plan.tensors.map(t => t.offset + t.size));
    const sx = (step: number): number => LEFT + ((W - LEFT - 10) * step) / steps;
    const sy = (addr: number): number => 10 + MAP_H - (MAP_H * addr) / top;
    this.svg = s('svg', {
      class: 'al-svg',
      width: W,
      height: MAP_H + CURVE_H + 62,
      role: 'img',
      'aria-label': t.__(
        'Memory map: %1 tensors over %2 steps, peak %3',
        plan.tensors.length,
        plan.steps,
        formatBytes(plan.peak)
      )
    });
    const mapG = s('g', { class: 'al-memmap' });
    for (const tensor of plan.tensors) {
      const x = sx(tensor.start);
      const w = Math.max(1, sx(tensor.end + 1) - x);
      const y = sy(tensor.offset + tensor.size);
      const hh = Math.max(1, sy(tensor.offset) - y);
      const label = t.__(
        '%1: %2 at offset %3, steps %4\u2013%5, from %6',
        tensor.label ?? tensor.id,
        formatBytes(tensor.size),
        tensor.offset,
        tensor.start,
        tensor.end,
        nodeLabel(tensor.node)
      );
      const r = s(
        'rect',
        {
          class: 'al-memrect',
          x: x.toFixed(1),
          y: y.toFixed(1),
          width: w.toFixed(1),
          height: hh.toFixed(1),
          fill: `hsl(${hue(tensor.node)}, 55%, 55%)`,
          'data-node': tensor.node,
          'data-tensor': tensor.id,
          tabindex: 0,
          role: 'button',
          'aria-label': label
        },
        s('title', {}, label)
      );
      r.addEventListener('mouseenter', () => this.hover(tensor, label));
      r.addEventListener('focus', () => this.hover(tensor, label));
      r.addEventListener('click', () => this.pick(tensor));
      r.addEventListener('keydown', (ev: KeyboardEvent) => {
        if (ev.key === 'Enter') {
          this.pick(tensor);
        }
      });
      mapG.appendChild(r);
      (
        this.rects.get(tensor.node) ?? this.rects.set(tensor.node, []).get(tensor.node)!
      ).push(r);
    }
    // axes and reference lines
    const axes = s('g', {});
    axes.appendChild(
      s('line', { class: 'al-axis', x1: LEFT, y1: 10, x2: LEFT, y2: 10 + MAP_H })
    );
    axes.appendChild(
      s('line', {
        class: 'al-axis',
        x1: LEFT,
        y1: 10 + MAP_H,
        x2: W - 10,
        y2: 10 + MAP_H
      })
    );
    axes.appendChild(s('text', { x: 4, y: 16 }, formatBytes(top)));
    axes.appendChild(s('text', { x: 4, y: 10 + MAP_H }, '0'));
    axes.appendChild(
      s(
        'line',
        {
          class: 'al-peak',
          x1: LEFT,
          x2: W - 10,
          y1: sy(plan.peak),
          y2: sy(plan.peak)
        },
        s('title', {}, t.__('arena peak %1', formatBytes(plan.peak)))
      )
    );
    axes.appendChild(
      s(
        'line',
        {
          class: 'al-lb',
          x1: LEFT,
          x2: W - 10,
          y1: sy(plan.lower_bound),
          y2: sy(plan.lower_bound)
        },
        s('title', {}, t.__('lower bound %1', formatBytes(plan.lower_bound)))
      )
    );
    // live-bytes curve
    const live =
      plan.live_bytes && plan.live_bytes.length
        ? plan.live_bytes
        : this.liveFromTensors(plan.tensors, steps);
    const maxLive = Math.max(1, ...live);
    const base = 10 + MAP_H + 30 + CURVE_H;
    let d = `M${sx(0).toFixed(1)},${base}`;
    live.forEach((v, i) => {
      const y = base - (CURVE_H * v) / maxLive;
      d += ` L${sx(i).toFixed(1)},${y.toFixed(1)} L${sx(i + 1).toFixed(1)},${y.toFixed(1)}`;
    });
    d += ` L${sx(live.length).toFixed(1)},${base} Z`;
    const curve = s(
      'g',
      { class: 'al-livecurve' },
      s(
        'path',
        { class: 'al-curve', d },
        s('title', {}, t.__('live bytes per step (max %1)', formatBytes(maxLive)))
      )
    );
    curve.appendChild(
      s('text', { x: 4, y: base - CURVE_H + 10 }, formatBytes(maxLive))
    );
    // steps are numbered from 0, as on the matplotlib map (plot_memory_map): the last
    // kernel of a 3-kernel graph is step 2 (this label said "step 3")
    curve.appendChild(s('text', { x: LEFT, y: base + 14 }, t.__('step %1', 0)));
    curve.appendChild(
      s('text', { x: W - 80, y: base + 14 }, t.__('step %1', steps - 1))
    );
    curve.appendChild(
      s('text', { x: LEFT + 4, y: base - CURVE_H - 6 }, t.__('live bytes'))
    );
    this.svg.append(axes, mapG, curve);
    const saving =
      plan.no_reuse > 0
        ? t.__(
            ' (%1% saved by reuse)',
            Math.round((100 * (plan.no_reuse - plan.peak)) / plan.no_reuse)
          )
        : '';
    const summary = h(
      'div',
      { class: 'al-toolbar', role: 'group', 'aria-label': t.__('Memory plan summary') },
      h('span', { 'data-field': 'peak' }, t.__('peak %1', formatBytes(plan.peak))),
      h(
        'span',
        { 'data-field': 'lower_bound' },
        t.__('lower bound %1', formatBytes(plan.lower_bound))
      ),
      h(
        'span',
        { 'data-field': 'no_reuse' },
        t.__('no reuse %1', formatBytes(plan.no_reuse)) + saving
      ),
      h(
        'span',
        {},
        t.__(
          'strategy %1, alignment %2 B, %3 tensors, %4 steps',
          plan.strategy,
          plan.alignment,
          plan.tensors.length,
          plan.steps
        )
      )
    );
    const notes = h('ul', { class: 'al-muted' });
    for (const n of plan.notes ?? []) {
      notes.appendChild(h('li', {}, n));
    }
    this.el = h(
      'div',
      { class: 'al-view', 'data-view': 'memory' },
      summary,
      h('div', { class: 'al-mem' }, this.tip, this.svg, notes)
    );
  }

  private liveFromTensors(tensors: MemoryTensor[], steps: number): number[] {
    const live = new Array<number>(steps).fill(0);
    for (const t of tensors) {
      for (let i = Math.max(0, t.start); i <= Math.min(steps - 1, t.end); i++) {
        live[i] += t.size;
      }
    }
    return live;
  }

  private hover(t: MemoryTensor, label: string): void {
    clear(this.tip);
    this.tip.textContent = label;
    void t;
  }

  private pick(t: MemoryTensor): void {
    this.setSelected(t.node);
    this.onSelect(t.node);
  }

  /** Highlight the tensors a node produces. */
  setSelected(nodeId: string | null): void {
    if (this.selectedNode !== null) {
      for (const r of this.rects.get(this.selectedNode) ?? []) {
        r.classList.remove('al-selected');
      }
    }
    this.selectedNode = nodeId;
    for (const r of nodeId === null ? [] : (this.rects.get(nodeId) ?? [])) {
      r.classList.add('al-selected');
    }
  }
}
