/**
 * The device panel: a pure model of what to show (`panelModel`, `statusAsText`) and the
 * sidebar widget that renders it. Every string goes into the DOM through `textContent`:
 * process names and versions come from npu-smi and files on the machine.
 */
import { Widget } from '@lumino/widgets';

import { IChip, IDeviceStatus } from './api';
import { chipIsOk, statusText, StatusPoller } from './status';
import { el } from './dom';
import { englishTrans, ITrans } from './trans';

export interface IChipRow {
  label: string; // "NPU 0 · 910B3" (chip index added when an NPU has several)
  health: string;
  ok: boolean;
  aicore: string; // "37 %" or "–"
  /** 0..1, null when the chip reports no HBM/memory. */
  memoryFraction: number | null;
  memory: string; // "41052 / 65536 MB HBM"
  temperature: string; // "34 °C"
  power: string; // "97.9 W"
}

export interface IProcessRow {
  device: string; // "NPU 2 · chip 0"
  pid: string;
  name: string;
  memory: string;
}

export interface IVersionRow {
  label: string;
  value: string;
}

export interface IWarningRow {
  severity: string;
  message: string;
  fix: string;
}

export interface IPanelModel {
  heading: string; // the status-bar text
  mode: string;
  warn: boolean;
  /** Paragraphs explaining CPU mode (empty on an NPU machine). */
  cpuExplanation: string[];
  chips: IChipRow[];
  processes: IProcessRow[];
  versions: IVersionRow[];
  verdict: { level: 'ok' | 'warn' | 'unknown'; text: string };
  install: string[];
  warnings: IWarningRow[];
  updated: string;
  /** Which environment the versions describe (the MindSpore kernel's, or the server's). */
  describes: string;
}

const DASH = '–';

function num(value: number | null | undefined, unit: string, digits = 0): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? DASH
    : `${value.toFixed(digits)} ${unit}`;
}

function chipMemory(
  chip: IChip,
  trans: ITrans
): { fraction: number | null; text: string } {
  const hbm = chip.hbm_total_mb
    ? { used: chip.hbm_used_mb ?? 0, total: chip.hbm_total_mb, kind: 'HBM' }
    : null;
  const ddr = chip.memory_total_mb
    ? { used: chip.memory_used_mb ?? 0, total: chip.memory_total_mb, kind: 'DDR' }
    : null;
  const m = hbm ?? ddr;
  if (m === null) {
    return { fraction: null, text: trans.__('no memory reported') };
  }
  const fraction = Math.min(1, Math.max(0, m.used / m.total));
  return {
    fraction,
    text: trans.__(
      '%1 / %2 MB %3 (%4%)',
      m.used,
      m.total,
      m.kind,
      Math.round(100 * fraction)
    )
  };
}

/** Everything the panel shows, as plain strings and numbers. */
export function panelModel(
  status: IDeviceStatus,
  trans: ITrans = englishTrans,
  error: string | null = null
): IPanelModel {
  const head = statusText(status, trans, error);
  const perNpu = new Map<number, number>();
  for (const c of status.chips) {
    perNpu.set(c.npu, (perNpu.get(c.npu) ?? 0) + 1);
  }
  const chips = status.chips.map((c): IChipRow => {
    const memory = chipMemory(c, trans);
    const several = (perNpu.get(c.npu) ?? 0) > 1;
    return {
      label: several
        ? trans.__('NPU %1 chip %2 · %3', c.npu, c.chip, c.name || '?')
        : trans.__('NPU %1 · %2', c.npu, c.name || '?'),
      health: c.health ?? trans.__('unknown'),
      ok: chipIsOk(c),
      aicore: num(c.aicore_percent, '%'),
      memoryFraction: memory.fraction,
      memory: memory.text,
      temperature: num(c.temp_c, '°C'),
      power: num(c.power_w, 'W', 1)
    };
  });
  const processes = status.processes.map((p): IProcessRow => ({
    device: trans.__('NPU %1 · chip %2', p.npu, p.chip),
    pid: String(p.pid),
    name: p.name || trans.__('(no name)'),
    memory: num(p.memory_mb, 'MB')
  }));
  const v = status.versions;
  const notFound = trans.__('not found');
  const versions: IVersionRow[] = [
    { label: trans.__('Driver'), value: v.driver ?? notFound },
    { label: trans.__('Firmware'), value: v.firmware ?? notFound },
    { label: trans.__('CANN'), value: v.cann ?? notFound },
    { label: trans.__('MindSpore'), value: v.mindspore ?? notFound },
    { label: 'npu-smi', value: v.npu_smi ?? notFound }
  ];
  const c = status.compatibility;
  const verdict =
    c.verdict === 'match'
      ? { level: 'ok' as const, text: c.message || trans.__('Versions match.') }
      : c.verdict === 'mismatch'
        ? {
            level: 'warn' as const,
            text: c.message || trans.__('Versions do not match.')
          }
        : {
            level: 'unknown' as const,
            text: c.message || trans.__('Compatibility could not be checked.')
          };
  const cpuExplanation =
    status.mode === 'ascend'
      ? []
      : [
          status.reason
            ? trans.__('No Ascend NPU is in use here: %1.', status.reason)
            : trans.__('No Ascend NPU is in use here.'),
          trans.__(
            'MindSpore runs on the CPU, so every notebook of the course still works, only ' +
              'slower. Graphs, fusion and memory plans are real: MindSpore compiles them on ' +
              'the CPU too.'
          ),
          trans.__(
            'On an Ascend notebook instance (ModelArts, GitCode: Atlas 800T A2 / 910B) this ' +
              'panel lists every chip with its memory, health, AI Core load and processes.'
          )
        ];
  const updated = status.collected_at
    ? trans.__('Updated %1', new Date(status.collected_at * 1000).toLocaleTimeString())
    : '';
  const subject = status.subject;
  let describes = '';
  if (subject?.kind === 'kernel') {
    describes = trans.__(
      'Versions and variables of the kernel %1 (%2)',
      String(subject.kernel ?? ''),
      String(subject.python ?? '')
    );
  } else if (subject?.kind === 'server') {
    describes = trans.__(
      'Versions and variables of the Jupyter server (%1)',
      String(subject.python ?? '')
    );
  }
  if (subject?.hub_chip !== undefined && subject?.hub_chip !== null) {
    describes = [
      describes,
      trans.__(
        'Chip %1 of this machine, given to you by the class',
        String(subject.hub_chip)
      )
    ]
      .filter(Boolean)
      .join(' · ');
  }
  return {
    heading: head.text,
    mode: status.mode,
    warn: head.warn,
    cpuExplanation,
    chips,
    processes,
    versions,
    verdict,
    install: Array.isArray(c.install) ? c.install.map(String) : [],
    warnings: status.warnings.map(w => ({
      severity: w.severity,
      message: w.message,
      fix: w.fix
    })),
    updated,
    describes
  };
}

/** Plain text for pasting into an issue report (English on purpose: maintainers read it). */
export function statusAsText(status: IDeviceStatus): string {
  const m = panelModel(status, englishTrans);
  const lines: string[] = [`ascend-lab device status: ${m.heading}`];
  if (status.reason) {
    lines.push(`reason: ${status.reason}`);
  }
  if (m.chips.length) {
    lines.push('', 'Chips:');
    for (const c of m.chips) {
      lines.push(
        `  ${c.label}  health ${c.health}  AICore ${c.aicore}  ${c.memory}  ` +
          `${c.temperature}  ${c.power}`
      );
    }
  }
  if (m.processes.length) {
    lines.push('', 'Processes:');
    for (const p of m.processes) {
      lines.push(`  ${p.device}  pid ${p.pid}  ${p.name}  ${p.memory}`);
    }
  }
  lines.push('', 'Versions:');
  for (const v of m.versions) {
    lines.push(`  ${v.label}: ${v.value}`);
  }
  lines.push(
    `  compatibility: ${status.compatibility.verdict} ${m.verdict.text}`.trimEnd()
  );
  if (m.warnings.length) {
    lines.push('', 'Warnings:');
    for (const w of m.warnings) {
      lines.push(`  [${w.severity}] ${w.message}`);
      if (w.fix) {
        lines.push(`    fix: ${w.fix}`);
      }
    }
  }
  return lines.join('\n') + '\n';
}

/** Render a panel model into `host` (replacing its content). Pure DOM, text only. */
export function renderPanel(
  host: HTMLElement,
  model: IPanelModel | null,
  trans: ITrans = englishTrans,
  error: string | null = null
): void {
  host.replaceChildren();
  if (model === null) {
    host.append(
      el(
        'p',
        'jp-AscendLab-muted',
        error === null
          ? trans.__('Checking the NPU…')
          : trans.__('Could not get the device status: %1', error)
      )
    );
    return;
  }
  const head = el('div', 'jp-AscendLab-heading');
  const title = el('span', 'jp-AscendLab-heading-text', model.heading);
  head.append(title);
  if (model.warn) {
    head.prepend(el('span', 'jp-AscendLab-status-mark', '⚠'));
  }
  host.append(head);
  if (error !== null) {
    host.append(
      el('p', 'jp-AscendLab-error', trans.__('Last update failed: %1', error))
    );
  }
  if (model.cpuExplanation.length) {
    const box = el('section', 'jp-AscendLab-cpu');
    for (const p of model.cpuExplanation) {
      box.append(el('p', '', p));
    }
    host.append(box);
  }
  if (model.chips.length) {
    host.append(el('h3', '', trans.__('Chips')));
    const list = el('div', 'jp-AscendLab-chips');
    for (const c of model.chips) {
      const row = el('div', 'jp-AscendLab-chip');
      row.dataset.ok = String(c.ok);
      const top = el('div', 'jp-AscendLab-chip-top');
      top.append(
        el('span', 'jp-AscendLab-chip-name', c.label),
        el('span', c.ok ? 'jp-AscendLab-ok' : 'jp-AscendLab-bad', c.health)
      );
      const bar = el('div', 'jp-AscendLab-bar');
      bar.setAttribute('role', 'meter');
      bar.setAttribute('aria-label', c.memory);
      const fill = el('div', 'jp-AscendLab-bar-fill');
      fill.style.width = `${Math.round(100 * (c.memoryFraction ?? 0))}%`;
      bar.append(fill);
      const stats = el('div', 'jp-AscendLab-chip-stats');
      stats.append(
        el('span', '', trans.__('AICore %1', c.aicore)),
        el('span', '', c.temperature),
        el('span', '', c.power)
      );
      row.append(top, bar, el('div', 'jp-AscendLab-chip-mem', c.memory), stats);
      list.append(row);
    }
    host.append(list);
  }
  if (model.mode === 'ascend') {
    host.append(el('h3', '', trans.__('Processes')));
    if (model.processes.length) {
      const list = el('div', 'jp-AscendLab-processes');
      for (const p of model.processes) {
        const row = el('div', 'jp-AscendLab-process');
        const top = el('div', 'jp-AscendLab-process-top');
        top.append(
          el('span', 'jp-AscendLab-process-name', p.name),
          el('span', 'jp-AscendLab-process-mem', p.memory)
        );
        const meta = el('div', 'jp-AscendLab-process-meta');
        meta.append(
          el('span', 'jp-AscendLab-process-device', p.device),
          el('span', 'jp-AscendLab-process-pid', trans.__('PID %1', p.pid))
        );
        row.append(top, meta);
        list.append(row);
      }
      host.append(list);
    } else {
      host.append(el('p', 'jp-AscendLab-muted', trans.__('No processes on the NPUs.')));
    }
  }
  host.append(el('h3', '', trans.__('Versions')));
  const versions = el('table', 'jp-AscendLab-table jp-AscendLab-versions');
  for (const v of model.versions) {
    const tr = el('tr');
    tr.append(el('th', '', v.label), el('td', '', v.value));
    versions.append(tr);
  }
  host.append(versions);
  host.append(
    el('p', `jp-AscendLab-verdict jp-mod-${model.verdict.level}`, model.verdict.text)
  );
  if (model.install.length) {
    const pre = el('pre', 'jp-AscendLab-install', model.install.join('\n'));
    host.append(pre);
  }
  if (model.warnings.length) {
    host.append(el('h3', '', trans.__('Warnings')));
    const list = el('ul', 'jp-AscendLab-warnings');
    for (const w of model.warnings) {
      const li = el('li', `jp-mod-${w.severity}`);
      li.append(el('span', 'jp-AscendLab-warning-message', w.message));
      if (w.fix) {
        li.append(el('span', 'jp-AscendLab-warning-fix', trans.__('Fix: %1', w.fix)));
      }
      list.append(li);
    }
    host.append(list);
  }
  if (model.describes) {
    host.append(el('p', 'jp-AscendLab-muted', model.describes));
  }
  if (model.updated) {
    host.append(el('p', 'jp-AscendLab-muted', model.updated));
  }
}

/** The sidebar widget: toolbar (refresh, copy as text) + the rendered model. */
export class DevicePanel extends Widget {
  constructor(options: {
    poller: StatusPoller;
    trans?: ITrans;
    copy: (text: string) => void;
  }) {
    super();
    this._poller = options.poller;
    this._trans = options.trans ?? englishTrans;
    const trans = this._trans;
    this.addClass('jp-AscendLab-panel');
    const toolbar = el('div', 'jp-AscendLab-toolbar');
    const refresh = el(
      'button',
      'jp-Button jp-mod-styled jp-mod-reject',
      trans.__('Refresh')
    );
    refresh.dataset.action = 'refresh';
    refresh.addEventListener('click', () => {
      refresh.disabled = true;
      void this._poller.refresh().finally(() => {
        refresh.disabled = false;
      });
    });
    const copy = el(
      'button',
      'jp-Button jp-mod-styled jp-mod-reject',
      trans.__('Copy as text')
    );
    copy.dataset.action = 'copy';
    copy.addEventListener('click', () => {
      const status = this._poller.status;
      if (status !== null) {
        options.copy(statusAsText(status));
      }
    });
    toolbar.append(refresh, copy);
    this.node.append(toolbar, this._body);
    this._body.className = 'jp-AscendLab-body';
    this._poller.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    this._poller.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const status = this._poller.status;
    const error = this._poller.error;
    renderPanel(
      this._body,
      status === null ? null : panelModel(status, this._trans, error),
      this._trans,
      error
    );
  }

  private _poller: StatusPoller;
  private _trans: ITrans;
  private _body = document.createElement('div');
}
