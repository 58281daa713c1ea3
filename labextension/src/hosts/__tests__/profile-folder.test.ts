// @vitest-environment jsdom
import '../../__tests__/dom-shim';
import { ServerConnection } from '@jupyterlab/services';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { GraphView } from '../document/graph-view';
import { lenetProfile, withoutTrace } from '../../viewer/__tests__/profile-payloads';

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' }
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Open as ascend-lab profile', () => {
  it('asks the profile endpoint and opens on Profile, with no Graph tab', async () => {
    const asked: string[] = [];
    vi.spyOn(ServerConnection, 'makeRequest').mockImplementation(async url => {
      asked.push(String(url));
      return answer(200, withoutTrace(lenetProfile()));
    });
    const view = new GraphView('runs/job', undefined, 'profile');
    document.body.appendChild(view.node);
    await view.ready;
    expect(asked.length).toBe(1);
    expect(asked[0]).toContain('ascend-lab/api/profile?path=runs%2Fjob');
    expect(view.node.querySelector('[data-view="profile"]')).not.toBeNull();
    expect(view.node.querySelector('[data-tab="graph"]')).toBeNull();
    expect(view.node.textContent).not.toContain('laying out');
    view.dispose();
  });

  it("shows the server's reason, e.g. raw data with the analyse command", async () => {
    const why =
      'h_1_ascend_pt: the profiler\'s raw data (PROF_*) is not analysed yet; run: python -c "…"';
    vi.spyOn(ServerConnection, 'makeRequest').mockResolvedValue(
      answer(400, { message: why })
    );
    const view = new GraphView('raw', undefined, 'profile');
    await view.ready;
    expect(view.node.querySelector('[role="alert"]')!.textContent).toBe(why);
    view.dispose();
  });

  it('a graph view still asks the graph endpoint', async () => {
    const asked: string[] = [];
    vi.spyOn(ServerConnection, 'makeRequest').mockImplementation(async url => {
      asked.push(String(url));
      return answer(404, { message: 'nope' });
    });
    const view = new GraphView('dumps/x');
    await view.ready;
    expect(asked[0]).toContain('ascend-lab/api/graph?path=dumps%2Fx');
    view.dispose();
  });
});
