import { afterEach, describe, expect, it } from 'vitest';
import { renderPayload, ViewerHandle } from '../app';
import { checkPayload } from '../types';
import { coursePayload, XSS } from './payloads';

let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

afterEach(() => {
  handle?.dispose();
  handle = null;
  host?.remove();
});

function mount(payload: unknown): ViewerHandle {
  host = document.createElement('div');
  document.body.appendChild(host);
  handle = renderPayload(host, payload, { worker: false, view: 'graph' });
  return handle;
}

describe('meta.notes (e.g. a pasted IR text is partial)', () => {
  it('shows each note above the views, as text', async () => {
    const p = coursePayload();
    p.meta.notes = ["partial IR (pasted text): 2 '...' lines", XSS];
    const h = mount(p);
    await h.app!.graphView!.panes[0].ready;
    const banner = host.querySelector('.al-notes[role="note"]')!;
    expect([...banner.children].map(c => c.textContent)).toEqual([
      "partial IR (pasted text): 2 '...' lines",
      XSS
    ]);
    expect(host.querySelector('img')).toBeNull();
  });

  it('shows no banner without notes', async () => {
    const h = mount(coursePayload());
    await h.app!.graphView!.panes[0].ready;
    expect(host.querySelector('.al-notes')).toBeNull();
  });

  it('refuses notes that are not strings', () => {
    const p = coursePayload() as unknown as { meta: Record<string, unknown> };
    p.meta.notes = [3];
    expect(() => checkPayload(p)).toThrow(/meta\.notes must be a list of strings/);
  });
});
