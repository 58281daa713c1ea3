// @vitest-environment jsdom
import './dom-shim';
import { PageConfig } from '@jupyterlab/coreutils';
import { describe, expect, it, vi } from 'vitest';

const { fetchClass } = vi.hoisted(() => ({
  fetchClass: vi.fn(() => Promise.reject(new Error('HTTP 403')))
}));
vi.mock('../instructor', () => ({ fetchClass, ClassPanel: class {} }));
vi.mock('../icons', () => ({ npuIcon: {} }));

import { instructorPlugin } from '../instructor-plugin';

describe('the class panel plugin', () => {
  it('asks for the class only under JupyterHub (no 404 on a plain server)', async () => {
    const app = { shell: { add: vi.fn() } } as unknown as Parameters<
      typeof instructorPlugin.activate
    >[0];
    PageConfig.setOption('hubPrefix', '');
    instructorPlugin.activate(app, null);
    expect(fetchClass).not.toHaveBeenCalled();
    PageConfig.setOption('hubPrefix', '/hub/');
    instructorPlugin.activate(app, null);
    expect(fetchClass).toHaveBeenCalledTimes(1);
    await Promise.resolve(); // a learner's 403 ends quietly: no panel
    expect(app.shell.add).not.toHaveBeenCalled();
  });
});
