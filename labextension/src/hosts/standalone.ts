/**
 * Entry of the standalone HTML export: reads the payload from
 * <script type="application/json" id="ascend-lab-payload"> (and the packed pass snapshots
 * from #ascend-lab-passes, when present) and renders into #ascend-lab-root, with labels in
 * the page's language (`<html lang>`, written by ascend_lab/render/standalone.py) from the
 * bundled catalogue.
 */
import {
  CATALOGUES,
  packedPassLoader,
  pageWeightStatsLoader,
  readPacked,
  renderPayload,
  transForLanguage,
  viewName
} from '../viewer';

function start(): void {
  const data = document.getElementById('ascend-lab-payload');
  const host = document.getElementById('ascend-lab-root');
  if (!data || !host) {
    return;
  }
  const trans = transForLanguage(document.documentElement.lang, CATALOGUES);
  let payload: unknown;
  try {
    payload = JSON.parse(data.textContent ?? '');
  } catch (err) {
    host.textContent = trans.__(
      'ascend-lab: the embedded payload is not valid JSON (%1)',
      String(err)
    );
    return;
  }
  const view = viewName(host.getAttribute('data-view') ?? 'all');
  let onRequestPass: ((index: number) => Promise<unknown>) | undefined;
  try {
    // pass snapshots, compressed, decoded when opened (ascend_lab/pass_packing.py)
    const packed = readPacked(document.getElementById('ascend-lab-passes'));
    const graphs = (payload as { graphs?: Record<string, unknown> } | null)?.graphs;
    if (packed && graphs && typeof graphs === 'object') {
      onRequestPass = packedPassLoader(graphs, packed);
    }
  } catch (err) {
    console.warn('ascend-lab: pass snapshots unreadable', err);
  }
  let onRequestWeightStats: ((name: string) => Promise<unknown>) | undefined;
  try {
    // weight statistics written into the page, or the serving process's endpoint
    const stats = document.getElementById('ascend-lab-weight-stats');
    onRequestWeightStats = pageWeightStatsLoader(stats);
  } catch (err) {
    console.warn('ascend-lab: weight statistics unreadable', err);
  }
  // a new task after parsing a big payload keeps each main-thread task short
  setTimeout(() => {
    const handle = renderPayload(host, payload, {
      view,
      onRequestPass,
      onRequestWeightStats,
      trans
    });
    (window as unknown as { ascendLab?: unknown }).ascendLab = handle;
  }, 0);
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start);
} else {
  start();
}
