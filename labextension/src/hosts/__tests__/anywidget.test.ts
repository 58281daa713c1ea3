import { afterEach, describe, expect, it } from 'vitest';
import widget from '../anywidget';
import { VIEW_NAMES } from '../../viewer/views';
import {
  lenetProfile as lenet,
  withoutTrace
} from '../../viewer/__tests__/profile-payloads';

/** What a profiler folder gives (ascend_lab/viewfile/sources.py): no traced graph. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function profileOnly(): any {
  return withoutTrace(lenet());
}

/** The anywidget model as the host sees it: traitlets by name, change events. */
class FakeModel {
  private handlers = new Map<string, Array<(...a: unknown[]) => void>>();
  sent: unknown[] = [];
  constructor(private values: Record<string, unknown>) {}
  get(name: string): unknown {
    return this.values[name];
  }
  set(name: string, value: unknown): void {
    this.values[name] = value;
    for (const cb of this.handlers.get(`change:${name}`) ?? []) {
      cb();
    }
  }
  on(event: string, cb: (...a: unknown[]) => void): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), cb]);
  }
  off(event: string, cb: (...a: unknown[]) => void): void {
    this.handlers.set(
      event,
      (this.handlers.get(event) ?? []).filter(c => c !== cb)
    );
  }
  send(content: unknown): void {
    this.sent.push(content);
  }
}

let cleanup: (() => void) | null = null;
let el: HTMLDivElement;

function show(payload: unknown, view: unknown): FakeModel {
  el = document.createElement('div');
  document.body.appendChild(el);
  const model = new FakeModel({ payload, view, lang: 'en' });
  cleanup = widget.render({ model, el });
  return model;
}

function tabs(): string[] {
  return [...el.querySelectorAll('.al-tab')].map(t => t.getAttribute('data-tab') ?? '');
}

function panels(): string[] {
  return [...el.querySelectorAll('.al-root > .al-view')].map(
    v => v.getAttribute('data-tab') ?? ''
  );
}

afterEach(() => {
  cleanup?.();
  cleanup = null;
  el?.remove();
});

describe('anywidget host', () => {
  it.each(VIEW_NAMES.map(v => [v]))('view=%s shows that view alone', view => {
    show(lenet(), view);
    expect(panels()).toEqual([view]);
    expect(tabs()).toEqual([]); // one view: no tab bar
    expect(el.querySelector(`[data-tab="${view}"]`)!.hasAttribute('hidden')).toBe(
      false
    );
  });

  it('view=all (or anything unknown) shows every available tab', () => {
    for (const view of ['all', 'bogus', undefined]) {
      show(lenet(), view);
      expect(tabs()).toEqual(['graph', 'profile']);
      cleanup?.();
      el.remove();
    }
    cleanup = null;
  });

  it('view=profile of a joined profile draws the Profile tab, not the graph', () => {
    show(lenet(), 'profile');
    expect(el.querySelector('[data-view="profile"]')).not.toBeNull();
    expect(el.querySelector('[data-tab="graph"]')).toBeNull();
    expect(el.textContent).not.toContain('laying out');
  });

  it('follows a change of the view trait', () => {
    const model = show(lenet(), 'graph');
    expect(panels()).toEqual(['graph']);
    model.set('view', 'profile');
    expect(panels()).toEqual(['profile']);
    model.set('view', 'all');
    expect(tabs()).toEqual(['graph', 'profile']);
  });

  it('a profile without a graph opens on Profile, with no empty Graph tab', () => {
    show(profileOnly(), 'all');
    expect(panels()).toEqual(['profile']);
    expect(tabs()).toEqual([]);
    expect(el.querySelector('[data-view="profile"]')).not.toBeNull();
    expect(el.textContent).not.toContain('laying out');
  });
});

describe('measured parts of the Profile tab', () => {
  it('lists measured steps, ranks and memory over time as text', () => {
    const p = profileOnly();
    p.profile.measured_steps = [
      {
        step: 19,
        rank: 0,
        computing_us: 3000.5,
        communication_not_overlapped_us: 200.25,
        overlapped_us: 100,
        free_us: 50,
        bubble_us: 0,
        total_us: 3250.75
      },
      {
        step: 20,
        rank: 0,
        computing_us: 900,
        communication_not_overlapped_us: 0,
        free_us: 10,
        total_us: 910
      }
    ];
    p.profile.rank = 0;
    p.profile.ranks = [
      { rank: 0, path: '/x/a_ascend_ms', analysed: true },
      { rank: 1, path: '/x/<b>_ascend_ms', analysed: false }
    ];
    p.profile.memory = {
      unit: 'MB',
      series: {
        PTA: [
          [0, 1],
          [5, 3],
          [9, 2]
        ],
        '<img src=x>': [[1, 2]]
      },
      peak_mb: { PTA: 3, '<img src=x>': 2 }
    };
    show(p, 'profile');
    const rows = el.querySelectorAll('tr.al-prof-measured-row');
    expect(rows.length).toBe(2);
    expect(rows[0].textContent).toContain('3.001 ms'); // computing, in ms
    expect(rows[1].querySelectorAll('td')[4].textContent).toBe('-'); // no overlapped
    const ranks = [...el.querySelectorAll('.al-prof-ranks li')].map(
      li => li.textContent
    );
    expect(ranks).toEqual(['rank 0 (shown)', 'rank 1 \u2014 not analysed yet']);
    const lines = el.querySelectorAll('polyline[data-series]');
    expect([...lines].map(l => l.getAttribute('data-series'))).toEqual([
      'PTA',
      '<img src=x>'
    ]);
    expect(el.querySelector('img')).toBeNull(); // names are text
    expect(el.querySelector('.al-prof-memory-legend')!.textContent).toContain(
      'PTA: peak 3.0 MB'
    );
  });
});
