/**
 * Entry of the standalone HTML export: reads the payload from
 * <script type="application/json" id="ascend-lab-payload"> and renders into #ascend-lab-root.
 */
import { renderPayload, ViewName } from './app';

function start(): void {
  const data = document.getElementById('ascend-lab-payload');
  const host = document.getElementById('ascend-lab-root');
  if (!data || !host) {
    return;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(data.textContent ?? '');
  } catch (err) {
    host.textContent = `ascend-lab: the embedded payload is not valid JSON (${String(err)})`;
    return;
  }
  const view = (host.getAttribute('data-view') ?? 'all') as ViewName;
  // a new task after parsing a big payload keeps each main-thread task short
  setTimeout(() => {
    const handle = renderPayload(host, payload, { view });
    (window as unknown as { ascendLab?: unknown }).ascendLab = handle;
  }, 0);
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start);
} else {
  start();
}
