// @vitest-environment jsdom
import './dom-shim';
import { describe, expect, it } from 'vitest';

import {
  asClassView,
  ClassPanel,
  idleText,
  IClassView,
  renderClass
} from '../instructor';

const view = (): IClassView =>
  asClassView({
    learners: [
      {
        user: 'bob',
        server: 'bob',
        chip: 2,
        reason: '',
        hbm_used_mb: 41052,
        hbm_total_mb: 65536,
        processes: [{ pid: 1333928, name: 'python', memory_mb: 37709 }],
        idle_s: 3725
      },
      {
        user: 'ann',
        server: 'ann',
        chip: 2,
        reason: '',
        hbm_used_mb: 41052,
        hbm_total_mb: 65536,
        processes: [],
        idle_s: 42
      },
      {
        user: 'carl',
        server: 'carl',
        chip: null,
        reason: 'no NPU free',
        hbm_used_mb: null,
        hbm_total_mb: null,
        processes: [],
        idle_s: null
      }
    ],
    activity_error: ''
  });

const cells = (host: HTMLElement): string[][] =>
  [...host.querySelectorAll('.jp-AscendLab-learner')].map(r =>
    ['name', 'chip', 'hbm', 'processes', 'idle'].map(
      part => r.querySelector(`.jp-AscendLab-learner-${part}`)?.textContent ?? ''
    )
  );

describe('renderClass', () => {
  it('lists learners by name with chip, HBM, processes and idle time', () => {
    const host = document.createElement('div');
    renderClass(host, view());
    expect(cells(host)).toEqual([
      ['ann', 'chip 2', '41052 / 65536 MB (63%)', 'No processes on the NPUs.', '42 s'],
      [
        'bob',
        'chip 2',
        '41052 / 65536 MB (63%)',
        'python · PID 1333928 · 37709 MB',
        '1 h 2 min'
      ],
      ['carl', 'CPU: no NPU free', '–', 'No processes on the NPUs.', 'never active']
    ]);
  });

  it('shows names and process names as text, never as HTML', () => {
    const v = view();
    v.learners[0].server = '<img src=x onerror=alert(1)>';
    v.learners[0].processes[0].name = '<script>alert(2)</script>';
    const host = document.createElement('div');
    renderClass(host, v);
    expect(host.querySelector('img')).toBeNull();
    expect(host.querySelector('script')).toBeNull();
    expect(host.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(host.textContent).toContain('<script>alert(2)</script>');
  });

  it('says why idle times are missing and when nobody has a server', () => {
    const host = document.createElement('div');
    renderClass(host, { learners: [], activity_error: 'the hub said <b>403</b>' });
    expect(host.textContent).toContain('Idle times unknown: the hub said <b>403</b>');
    expect(host.textContent).toContain('No learner has a server running.');
    expect(host.querySelector('b')).toBeNull();
  });

  it('rejects an answer that is not a class view', () => {
    expect(() => asClassView('<html>login</html>')).toThrow(/unexpected answer/);
    expect(() => asClassView({ chips: [] })).toThrow(/unexpected answer/);
  });
});

describe('idleText', () => {
  it('reads as seconds, minutes, hours', () => {
    expect(idleText(0)).toBe('0 s');
    expect(idleText(59.4)).toBe('59 s');
    expect(idleText(600)).toBe('10 min');
    expect(idleText(7260)).toBe('2 h 1 min');
    expect(idleText(null)).toBe('never active');
  });
});

describe('ClassPanel', () => {
  it('renders the first view, then a refresh, and an error without losing the panel', async () => {
    const answers: Array<IClassView | Error> = [
      { learners: [], activity_error: '' },
      new Error('HTTP 502')
    ];
    const panel = new ClassPanel({
      fetch: async () => {
        const next = answers.shift()!;
        if (next instanceof Error) {
          throw next;
        }
        return next;
      },
      first: view()
    });
    expect(cells(panel.node)).toHaveLength(3);
    await panel.refresh();
    expect(panel.node.textContent).toContain('No learner has a server running.');
    await panel.refresh();
    expect(panel.node.textContent).toContain('Could not get the class: HTTP 502');
  });
});
