/**
 * The instructor's class panel: under the ascend-lab hub, for a user with the admin scope,
 * one row per learner with their chip, the chip's HBM use, their processes on it and how
 * long the hub has not seen them. The server proxies the hub service
 * (`GET ascend-lab/api/class`); it answers 404 outside a hub and 403 to a learner, and
 * then the panel is never added.
 */
import { Widget } from '@lumino/widgets';

import { requestAPI } from './api';
import { el } from './dom';
import { englishTrans, ITrans } from './trans';

export const CLASS_PANEL_ID = 'ascend-lab-class-panel';
/** Seconds between refreshes of the class view while the panel is open. */
const REFRESH_SECONDS = 10;

export interface ILearnerProcess {
  pid: number | null;
  name: string | null;
  memory_mb: number | null;
}

/** One row of the service's `api/class` answer. */
export interface ILearner {
  user: string;
  server: string;
  chip: number | null;
  reason: string;
  hbm_used_mb: number | null;
  hbm_total_mb: number | null;
  processes: ILearnerProcess[];
  idle_s: number | null;
}

export interface IClassView {
  learners: ILearner[];
  activity_error: string;
}

/** Light structural check: a login page or an old server fails clearly. */
export function asClassView(data: unknown): IClassView {
  const d = data as Partial<IClassView> | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.learners)) {
    throw new Error('ascend-lab: unexpected answer from the class endpoint');
  }
  return {
    learners: d.learners.filter(l => l && typeof l === 'object'),
    activity_error: String(d.activity_error ?? '')
  };
}

export async function fetchClass(): Promise<IClassView> {
  return asClassView(await requestAPI<unknown>('class'));
}

/** "42 s", "7 min", "3 h 5 min"; unknown when the hub never saw the learner. */
export function idleText(seconds: number | null, trans: ITrans = englishTrans): string {
  if (seconds === null || !Number.isFinite(seconds)) {
    return trans.__('never active');
  }
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) {
    return trans.__('%1 s', s);
  }
  const minutes = Math.floor(s / 60);
  if (minutes < 60) {
    return trans.__('%1 min', minutes);
  }
  return trans.__('%1 h %2 min', Math.floor(minutes / 60), minutes % 60);
}

function hbmText(l: ILearner, trans: ITrans): string {
  if (l.hbm_used_mb === null || l.hbm_total_mb === null || !l.hbm_total_mb) {
    return '–';
  }
  const pct = Math.round((100 * l.hbm_used_mb) / l.hbm_total_mb);
  return trans.__('%1 / %2 MB (%3%)', l.hbm_used_mb, l.hbm_total_mb, pct);
}

/** Render the class view into `host` (replacing its content). Text only. */
export function renderClass(
  host: HTMLElement,
  view: IClassView | null,
  trans: ITrans = englishTrans,
  error: string | null = null
): void {
  host.replaceChildren();
  host.append(el('h3', '', trans.__('Class')));
  if (error !== null) {
    host.append(
      el('p', 'jp-AscendLab-error', trans.__('Could not get the class: %1', error))
    );
  }
  if (view === null) {
    if (error === null) {
      host.append(el('p', 'jp-AscendLab-muted', trans.__('Loading the class…')));
    }
    return;
  }
  if (view.activity_error) {
    host.append(
      el(
        'p',
        'jp-AscendLab-muted',
        trans.__('Idle times unknown: %1', view.activity_error)
      )
    );
  }
  if (!view.learners.length) {
    host.append(
      el('p', 'jp-AscendLab-muted', trans.__('No learner has a server running.'))
    );
    return;
  }
  const list = el('div', 'jp-AscendLab-chips jp-AscendLab-class');
  const rows = [...view.learners].sort((a, b) =>
    String(a.server).localeCompare(String(b.server))
  );
  for (const l of rows) {
    const row = el('div', 'jp-AscendLab-chip jp-AscendLab-learner');
    row.dataset.user = String(l.user);
    const chip =
      l.chip === null || l.chip === undefined
        ? trans.__('CPU: %1', String(l.reason || ''))
        : trans.__('chip %1', l.chip);
    const top = el('div', 'jp-AscendLab-chip-top');
    top.append(
      el('span', 'jp-AscendLab-chip-name jp-AscendLab-learner-name', String(l.server)),
      el('span', 'jp-AscendLab-learner-chip', chip)
    );
    row.append(top);
    if (l.hbm_used_mb !== null && l.hbm_total_mb) {
      const bar = el('div', 'jp-AscendLab-bar');
      bar.setAttribute('role', 'meter');
      bar.setAttribute('aria-label', hbmText(l, trans));
      const fill = el('div', 'jp-AscendLab-bar-fill');
      fill.style.width = `${Math.round((100 * l.hbm_used_mb) / l.hbm_total_mb)}%`;
      bar.append(fill);
      row.append(bar);
    }
    row.append(
      el('div', 'jp-AscendLab-chip-mem jp-AscendLab-learner-hbm', hbmText(l, trans))
    );
    const procs = el('div', 'jp-AscendLab-learner-processes');
    const shown = Array.isArray(l.processes) ? l.processes : [];
    if (!shown.length) {
      procs.textContent = trans.__('No processes on the NPUs.');
    }
    for (const p of shown) {
      const mem = p.memory_mb === null ? '' : ` · ${p.memory_mb} MB`;
      procs.append(
        el(
          'div',
          '',
          `${p.name || trans.__('(no name)')} · ${trans.__('PID %1', p.pid)}${mem}`
        )
      );
    }
    const stats = el('div', 'jp-AscendLab-chip-stats');
    stats.append(
      el('span', '', trans.__('Idle')),
      el('span', 'jp-AscendLab-learner-idle', idleText(l.idle_s, trans))
    );
    row.append(procs, stats);
    list.append(row);
  }
  host.append(list);
}

/** The panel: fetches the class view now and every REFRESH_SECONDS while it is attached. */
export class ClassPanel extends Widget {
  constructor(options: {
    fetch: () => Promise<IClassView>;
    trans?: ITrans;
    first?: IClassView;
  }) {
    super();
    this._fetch = options.fetch;
    this._trans = options.trans ?? englishTrans;
    this.id = CLASS_PANEL_ID;
    this.addClass('jp-AscendLab-panel');
    renderClass(this.node, options.first ?? null, this._trans);
  }

  async refresh(): Promise<void> {
    try {
      renderClass(this.node, await this._fetch(), this._trans);
    } catch (err) {
      renderClass(this.node, null, this._trans, String((err as Error).message ?? err));
    }
  }

  protected onAfterAttach(): void {
    this._timer = window.setInterval(() => void this.refresh(), REFRESH_SECONDS * 1000);
  }

  protected onBeforeDetach(): void {
    window.clearInterval(this._timer);
  }

  private _fetch: () => Promise<IClassView>;
  private _trans: ITrans;
  private _timer = 0;
}
