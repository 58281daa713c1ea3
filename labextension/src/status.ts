/**
 * The NPU status-bar item: a pure text model (`statusText`), the shared poller that
 * fetches `/ascend-lab/api/status` with Lumino's `Poll`, and the item widget.
 */
import { IDisposable } from '@lumino/disposable';
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { IChip, IDeviceStatus } from './api';
import { englishTrans, ITrans } from './trans';

/** What the status bar shows. */
export interface IStatusText {
  /** e.g. "NPU 8x910B3 · HBM 41% · OK" or "CPU mode". */
  text: string;
  /** Show a warning mark: versions do not match, a chip is not OK, or no answer. */
  warn: boolean;
  /** Tooltip: why CPU mode, what is wrong, what to click. */
  title: string;
}

/** "8x910B3"; several models: "1x910B3+1x310P3" (order of first appearance). */
export function chipNames(chips: IChip[]): string {
  const counts = new Map<string, number>();
  for (const chip of chips) {
    const name = chip.name || '?';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return Array.from(counts, ([name, n]) => `${n}x${name}`).join('+');
}

/** Used / total HBM over all chips in percent (DDR memory when no chip has HBM). */
export function memoryPercent(
  chips: IChip[]
): { kind: 'HBM' | 'Mem'; percent: number } | null {
  let used = 0;
  let total = 0;
  for (const c of chips) {
    if (c.hbm_total_mb) {
      used += c.hbm_used_mb ?? 0;
      total += c.hbm_total_mb;
    }
  }
  if (total > 0) {
    return { kind: 'HBM', percent: (100 * used) / total };
  }
  for (const c of chips) {
    if (c.memory_total_mb) {
      used += c.memory_used_mb ?? 0;
      total += c.memory_total_mb;
    }
  }
  return total > 0 ? { kind: 'Mem', percent: (100 * used) / total } : null;
}

/** True when the chip's health is "OK" (case-insensitive). */
export function chipIsOk(chip: IChip): boolean {
  return (chip.health ?? '').toUpperCase() === 'OK';
}

/** "OK" when every chip is OK, else e.g. "1 Alarm" or "1 Alarm, 2 Warning". */
export function healthText(chips: IChip[], trans: ITrans = englishTrans): string {
  const bad = new Map<string, number>();
  for (const c of chips) {
    if (!chipIsOk(c)) {
      const h = c.health || trans.__('unknown');
      bad.set(h, (bad.get(h) ?? 0) + 1);
    }
  }
  if (bad.size === 0) {
    return trans.__('OK');
  }
  return Array.from(bad, ([h, n]) => `${n} ${h}`).join(', ');
}

/** The status-bar text for a status, a fetch error, or nothing yet. */
export function statusText(
  status: IDeviceStatus | null,
  trans: ITrans = englishTrans,
  error: string | null = null
): IStatusText {
  const click = trans.__('Click for the device panel.');
  if (status === null) {
    if (error !== null) {
      return {
        text: trans.__('NPU status unavailable'),
        warn: true,
        title: trans.__('Could not get the device status: %1', error) + '\n' + click
      };
    }
    return {
      text: trans.__('NPU …'),
      warn: false,
      title: trans.__('Checking the NPU…')
    };
  }
  const notes: string[] = [];
  const mismatch = status.compatibility.verdict === 'mismatch';
  if (mismatch) {
    notes.push(status.compatibility.message || trans.__('Versions do not match.'));
  }
  if (status.mode !== 'ascend') {
    const text = status.mode === 'gpu' ? trans.__('GPU mode') : trans.__('CPU mode');
    const why = status.reason
      ? trans.__('No Ascend NPU in use: %1', status.reason)
      : trans.__('No Ascend NPU in use.');
    return { text, warn: mismatch, title: [why, ...notes, click].join('\n') };
  }
  const parts = [trans.__('NPU %1', chipNames(status.chips))];
  const memory = memoryPercent(status.chips);
  if (memory !== null) {
    const pct = Math.round(memory.percent);
    parts.push(
      memory.kind === 'HBM' ? trans.__('HBM %1%', pct) : trans.__('Mem %1%', pct)
    );
  }
  parts.push(healthText(status.chips, trans));
  const badChips = status.chips.filter(c => !chipIsOk(c));
  for (const c of badChips) {
    notes.push(trans.__('NPU %1 chip %2: %3', c.npu, c.chip, c.health ?? '?'));
  }
  if (error !== null) {
    notes.push(trans.__('Last update failed: %1', error));
  }
  return {
    text: parts.join(' · '),
    warn: mismatch || badChips.length > 0,
    title: [...notes, click].join('\n')
  };
}

/** The HTTP status of a failed request (`ServerConnection.ResponseError`), if any. */
export function httpStatus(err: unknown): number | null {
  const response = (err as { response?: { status?: unknown } } | null)?.response;
  return typeof response?.status === 'number' ? response.status : null;
}

/** Options of the shared status poller. */
export interface IStatusPollerOptions {
  /** Fetch one status (`refresh`: skip the server's cache). */
  fetch: (refresh: boolean) => Promise<IDeviceStatus>;
  /** Seconds between polls. */
  interval: number;
  /** Start polling at once (default true). */
  auto?: boolean;
}

/** Longest back-off after repeated errors, in ms. */
const MAX_BACKOFF_MS = 5 * 60 * 1000;

/**
 * One poll of the status endpoint shared by the status item and the device panel:
 * backs off on errors and stands by while the browser tab is hidden.
 */
export class StatusPoller implements IDisposable {
  constructor(options: IStatusPollerOptions) {
    this._fetch = options.fetch;
    this._poll = new Poll({
      auto: options.auto ?? true,
      factory: () => this._update(false),
      frequency: {
        interval: StatusPoller.toMs(options.interval),
        backoff: true,
        max: MAX_BACKOFF_MS
      },
      name: 'ascend-lab:status',
      standby: 'when-hidden'
    });
  }

  /** Poll interval in ms for a setting in seconds (at least 1 s). */
  static toMs(seconds: number): number {
    return Math.max(1, Number.isFinite(seconds) ? seconds : 5) * 1000;
  }

  /** Emitted after every fetch, successful or not. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** The last status received (kept when a later fetch fails). */
  get status(): IDeviceStatus | null {
    return this._status;
  }

  /** The last fetch error, or null when the last fetch worked. */
  get error(): string | null {
    return this._error;
  }

  /**
   * True once the server answered 404: the ascend-lab server extension is not enabled
   * there. Polling stops and the status item hides itself (quietly, no error spam).
   */
  get serverMissing(): boolean {
    return this._serverMissing;
  }

  get isDisposed(): boolean {
    return this._poll.isDisposed;
  }

  /** Change the poll interval (seconds). */
  setInterval(seconds: number): void {
    this._poll.frequency = {
      ...this._poll.frequency,
      interval: StatusPoller.toMs(seconds)
    };
  }

  /** Fetch now, skipping the server's short cache (the panel's refresh button). */
  async refresh(): Promise<void> {
    try {
      await this._update(true);
    } catch {
      // recorded in `error`; the poll keeps going
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._poll.dispose();
    Signal.clearData(this);
  }

  private async _update(refresh: boolean): Promise<void> {
    try {
      this._status = await this._fetch(refresh);
      this._error = null;
    } catch (err) {
      this._error = err instanceof Error ? err.message : String(err);
      if (httpStatus(err) === 404) {
        this._serverMissing = true;
        void this._poll.stop();
      }
      this._changed.emit();
      throw err; // so the Poll backs off
    }
    this._changed.emit();
  }

  private _fetch: (refresh: boolean) => Promise<IDeviceStatus>;
  private _poll: Poll;
  private _status: IDeviceStatus | null = null;
  private _error: string | null = null;
  private _serverMissing = false;
  private _changed = new Signal<this, void>(this);
}

/** The status-bar item: warning mark + text; a click runs `onClick`. */
export class NpuStatusItem extends Widget {
  constructor(options: { poller: StatusPoller; trans?: ITrans; onClick: () => void }) {
    super();
    this._poller = options.poller;
    this._trans = options.trans ?? englishTrans;
    this.addClass('jp-AscendLab-status');
    this.node.setAttribute('role', 'button');
    this.node.tabIndex = 0;
    this._mark.className = 'jp-AscendLab-status-mark';
    this._mark.textContent = '⚠';
    this._text.className = 'jp-AscendLab-status-text';
    this.node.append(this._mark, this._text);
    this.node.addEventListener('click', options.onClick);
    this.node.addEventListener('keydown', (event: KeyboardEvent) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        options.onClick();
      }
    });
    this._poller.changed.connect(this._render, this);
    this._render();
  }

  /** The text currently shown (for tests). */
  get text(): string {
    return this._text.textContent ?? '';
  }

  dispose(): void {
    this._poller.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const model = statusText(this._poller.status, this._trans, this._poller.error);
    this._text.textContent = model.text;
    this._mark.hidden = !model.warn;
    this.toggleClass('jp-mod-warn', model.warn);
    this.node.title = model.title;
    this.node.setAttribute('aria-label', model.text);
  }

  private _poller: StatusPoller;
  private _trans: ITrans;
  private _mark = document.createElement('span');
  private _text = document.createElement('span');
}
