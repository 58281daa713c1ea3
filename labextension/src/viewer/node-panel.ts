/** The node panel: everything the payload knows about one node, as text. */
import { clear, h } from './dom';
import { viewerTrans } from './i18n';
import { GraphNode, TensorType, formatBytes, formatShape, outputBytes } from './types';
import { WeightStatsSource, weightStatsSection } from './weight-stats';

function types(list: TensorType[] | undefined): string {
  if (!list || list.length === 0) {
    return '\u2014';
  }
  return list.map(t => formatShape(t)).join(', ');
}

function device(list: TensorType[] | undefined): string {
  const parts = (list ?? [])
    .filter(t => t.device_dtype || t.format)
    .map(t => `${t.device_dtype ?? '?'} ${t.format ?? ''}`.trim());
  return parts.length ? parts.join(', ') : '\u2014';
}

/**
 * The label shown for a row key. Keys stay English: they are also the rows' `data-field`
 * (tests and code find rows by them) and what `describe` callbacks return.
 */
export function fieldLabel(key: string): string {
  const t = viewerTrans();
  const labels: Record<string, string> = {
    op: t.__('op'),
    id: t.__('id'),
    kind: t.__('kind'),
    name: t.__('name'),
    scope: t.__('scope'),
    outputs: t.__('outputs'),
    inputs: t.__('inputs'),
    device: t.__('device'),
    bytes: t.__('bytes'),
    step: t.__('step'),
    'input ids': t.__('input ids'),
    source: t.__('source'),
    'MindSpore called it': t.__('MindSpore called it'),
    calls: t.__('calls'),
    memory: t.__('memory'),
    'fused kernel': t.__('fused kernel'),
    'fused from': t.__('fused from'),
    'fused into': t.__('fused into'),
    'time per call': t.__('time per call'),
    'accelerator core': t.__('accelerator core'),
    time: t.__('time')
  };
  return Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : key;
}

/** A weight's name and type, as the op's panel lists it. */
function weightLine(w: GraphNode): string {
  return `${w.name ?? w.id}: ${types(w.outputs)}`;
}

export class NodePanel {
  readonly el: HTMLDivElement;
  /** where a weight's statistics come from (set by the app for a .mindir), or null */
  weightStats: WeightStatsSource | null = null;

  constructor(label = viewerTrans().__('Node details')) {
    this.el = h('div', {
      class: 'al-panel',
      role: 'region',
      'aria-label': label,
      'aria-live': 'polite'
    });
    this.show(null);
  }

  /**
   * Show `node`. `weights`: the weights (parameters) it reads, listed with their shapes and,
   * where the host has them, statistics on request, so an op's weights can be looked at
   * while weights are hidden from the drawing (the default).
   */
  show(
    node: GraphNode | null,
    extra: Array<[string, string]> = [],
    weights: GraphNode[] = []
  ): void {
    clear(this.el);
    if (!node) {
      this.el.appendChild(
        h(
          'p',
          { class: 'al-muted' },
          viewerTrans().__(
            'Click a node (or Tab to it and press Enter) to see its details. Click a scope box to expand it.'
          )
        )
      );
      return;
    }
    const rows: Array<[string, string]> = [
      ['op', node.op],
      ['id', node.id],
      ['kind', node.kind],
      ['name', node.name ?? '\u2014'],
      ['scope', node.repaired_scope ?? node.scope ?? '\u2014'],
      ['outputs', types(node.outputs)],
      ['inputs', types(node.input_types)],
      ['device', device(node.outputs)],
      [
        'bytes',
        (() => {
          const b = outputBytes(node);
          return b === null ? '?' : formatBytes(b);
        })()
      ],
      [
        'step',
        node.step === null || node.step === undefined ? '\u2014' : String(node.step)
      ],
      ['input ids', (node.inputs ?? []).join(', ') || '\u2014'],
      ['source', (node.source ?? []).join('\n') || '\u2014']
    ];
    if (node.repaired_scope !== undefined) {
      // drawn where its data flows; say what MindSpore called it
      rows.splice(4, 0, ['MindSpore called it', node.name ?? node.scope ?? '\u2014']);
    }
    if (node.subgraph) {
      rows.push(['calls', node.subgraph]);
    }
    rows.push(...extra);
    const attrs = node.attrs ?? {};
    const table = h('table', { class: 'al-node-table' });
    for (const [k, v] of rows) {
      table.appendChild(
        h('tr', {}, h('td', {}, fieldLabel(k)), h('td', { 'data-field': k }, v))
      );
    }
    this.el.append(h('h3', {}, node.op), table);
    if (node.kind === 'parameter' && this.weightStats) {
      this.el.append(weightStatsSection(node, this.weightStats));
    }
    if (node.kind !== 'parameter' && weights.length) {
      this.el.append(this.weightList(weights));
    }
    const keys = Object.keys(attrs);
    if (keys.length) {
      const at = h('table', { class: 'al-attr-table' });
      for (const k of keys) {
        at.appendChild(h('tr', {}, h('td', {}, k), h('td', {}, String(attrs[k]))));
      }
      this.el.append(h('h3', {}, viewerTrans().__('attributes')), at);
    }
  }

  private weightList(weights: GraphNode[]): HTMLElement {
    const t = viewerTrans();
    const box = h('div', { class: 'al-op-weights' }, h('h3', {}, t.__('weights')));
    const source = this.weightStats;
    for (const w of weights) {
      const item = h(
        'div',
        { class: 'al-op-weight', 'data-weight': w.name ?? w.id },
        h('p', {}, weightLine(w))
      );
      if (source?.load) {
        item.append(weightStatsSection(w, source, false));
      }
      box.append(item);
    }
    if (source && !source.load) {
      box.append(h('p', { class: 'al-muted al-weight-stats-hint' }, source.hint));
    }
    return box;
  }
}
