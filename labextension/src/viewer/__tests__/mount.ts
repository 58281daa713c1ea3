import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderPayload, ViewerHandle } from '../app';

/** A recorded payload under tests/fixtures (path relative to it), parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function fixturePayload(path: string): any {
  return JSON.parse(
    readFileSync(join(__dirname, '../../../../tests/fixtures', path), 'utf8')
  );
}

/** The viewer on `payload` in a fresh element of the page (no worker). */
export function mountPayload(payload: unknown): {
  handle: ViewerHandle;
  host: HTMLDivElement;
} {
  const host = document.createElement('div');
  document.body.appendChild(host);
  return { handle: renderPayload(host, payload, { worker: false }), host };
}

/** Let pending promise callbacks and timers of zero run. */
export const settle = (): Promise<void> => new Promise(r => setTimeout(r, 0));
