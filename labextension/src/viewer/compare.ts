/** Before / after fusion: two panes with linked selection through fusion.kernels. */
import { FusionIndex, fusionLinks, indexFusion, kernelCount } from './fusion';
import { viewerTrans } from './i18n';
import { LayoutClient } from './layout-client';
import { PanesView } from './panes-view';
import { Payload } from './types';

const cache = new WeakMap<Payload, FusionIndex>();

export function fusionIndexFor(p: Payload): FusionIndex {
  let index = cache.get(p);
  if (!index) {
    index = indexFusion(p.fusion);
    cache.set(p, index);
  }
  return index;
}

export function setupCompare(
  layout: LayoutClient,
  p: Payload,
  onSelect: (graphKey: string, id: string | null) => void
): PanesView {
  const beforeKey = p.views.before!;
  const afterKey = p.views.after!;
  const index = fusionIndexFor(p);
  const t = viewerTrans();
  const view = new PanesView(
    layout,
    [
      { key: 'before', title: t.__('Before fusion') },
      { key: 'after', title: t.__('After fusion') }
    ],
    'compare'
  );
  const [before, after] = view.panes;
  const countBefore = p.fusion?.kernel_count_before ?? kernelCount(p.graphs[beforeKey]);
  const countAfter = p.fusion?.kernel_count_after ?? kernelCount(p.graphs[afterKey]);
  const fused = p.fusion?.kernels?.length ?? 0;
  view.titles[0].appendChild(
    Object.assign(document.createElement('span'), {
      className: 'al-sub',
      textContent:
        countBefore === 1 ? t.__('1 kernel') : t.__('%1 kernels', countBefore)
    })
  );
  view.titles[1].appendChild(
    Object.assign(document.createElement('span'), {
      className: 'al-sub',
      textContent: t.__('%1 kernels, %2 fused', countAfter, fused)
    })
  );
  view.titles[0].setAttribute('data-kernels', String(countBefore));
  view.titles[1].setAttribute('data-kernels', String(countAfter));
  view.describe = (node, pane) => {
    const side = pane === after ? 'after' : 'before';
    const links = fusionLinks(index, side, node.id);
    const rows: Array<[string, string]> = [];
    if (side === 'after' && links.before.length) {
      const k = p.fusion?.kernels?.find(x => x.kernel === node.id);
      rows.push(['fused kernel', k ? k.name : node.op]);
      rows.push(['fused from', links.before.join(', ')]);
    }
    if (side === 'before' && links.after.length) {
      rows.push(['fused into', links.after.join(', ')]);
    }
    return rows;
  };
  view.onSelect = (id, pane) => {
    const side = pane === after ? 'after' : 'before';
    if (id === null) {
      before.setLinked([]);
      after.setLinked([]);
      return;
    }
    const links = fusionLinks(index, side, id);
    before.setLinked(links.before);
    after.setLinked(side === 'before' ? links.after : []);
    // make sure the linked nodes are drawn (expand their groups), without moving selection
    const other = side === 'after' ? before : after;
    const ids = side === 'after' ? links.before : links.after;
    let changed = false;
    for (const x of ids) {
      changed = (other.model?.reveal(x) ?? false) || changed;
    }
    if (changed) {
      void other.relayout();
    }
    onSelect(side === 'after' ? afterKey : beforeKey, id);
  };
  void before.setGraph(p.graphs[beforeKey]);
  void after.setGraph(p.graphs[afterKey]);
  return view;
}
