// @vitest-environment jsdom
import './dom-shim';
import { describe, expect, it } from 'vitest';

import { asDeviceStatus, IDeviceStatus } from '../api';
import { DevicePanel, panelModel, renderPanel, statusAsText } from '../device-panel';
import { englishTrans } from '../trans';
import { StatusPoller } from '../status';
import ascend from './fixtures/status_910b3_x8.json';
import xss from './fixtures/status_910b3_xss.json';
import cpu from './fixtures/status_cpu.json';

const load = (data: unknown): IDeviceStatus => asDeviceStatus(structuredClone(data));

describe('panelModel', () => {
  it('lists the 8 chips with HBM, health, AICore, temperature and power', () => {
    const m = panelModel(load(ascend));
    expect(m.heading).toBe('NPU 8x910B3 · HBM 12% · OK');
    expect(m.chips).toHaveLength(8);
    expect(m.chips[0]).toEqual({
      label: 'NPU 0 · 910B3',
      health: 'OK',
      ok: true,
      aicore: '0 %',
      memoryFraction: 3408 / 65536,
      memory: '3408 / 65536 MB HBM (5%)',
      temperature: '34 °C',
      power: '97.9 W'
    });
    expect(m.chips[2].memory).toBe('41052 / 65536 MB HBM (63%)');
    expect(m.cpuExplanation).toEqual([]);
  });

  it('lists the process and the versions', () => {
    const m = panelModel(load(ascend));
    expect(m.processes).toEqual([
      {
        device: 'NPU 2 · chip 0',
        pid: '1333928',
        name: '(no name)',
        memory: '37709 MB'
      }
    ]);
    expect(m.versions).toEqual([
      { label: 'Driver', value: '24.1.rc1' },
      { label: 'Firmware', value: '7.1.0.11.220' },
      { label: 'CANN', value: '8.3.RC2' },
      { label: 'MindSpore', value: '2.8.0' },
      { label: 'npu-smi', value: '25.2.0' }
    ]);
    expect(m.verdict.level).toBe('unknown');
    expect(m.warnings[0].message).toContain('set_env.sh');
    expect(m.warnings[0].fix).not.toBe('');
  });

  it('labels chips by index when an NPU has two chips', () => {
    const s = load(ascend);
    s.chips[1].npu = 0;
    s.chips[1].chip = 1;
    const m = panelModel(s);
    expect(m.chips[0].label).toBe('NPU 0 chip 0 · 910B3');
    expect(m.chips[1].label).toBe('NPU 0 chip 1 · 910B3');
    expect(m.chips[2].label).toBe('NPU 2 · 910B3');
  });

  it('explains CPU mode', () => {
    const m = panelModel(load(cpu));
    expect(m.heading).toBe('CPU mode');
    expect(m.chips).toEqual([]);
    expect(m.cpuExplanation[0]).toBe(
      'No Ascend NPU is in use here: npu-smi not found on PATH.'
    );
    expect(m.cpuExplanation.join(' ')).toContain('MindSpore runs on the CPU');
    expect(m.versions.find(v => v.label === 'CANN')!.value).toBe('not found');
  });

  it('shows a mismatch verdict with the install hint', () => {
    const s = load(ascend);
    s.compatibility = {
      verdict: 'mismatch',
      message: 'CANN 8.3.RC2 wants MindSpore 2.7.1',
      install: ['pip install mindspore==2.7.1']
    };
    const m = panelModel(s);
    expect(m.verdict).toEqual({
      level: 'warn',
      text: 'CANN 8.3.RC2 wants MindSpore 2.7.1'
    });
    expect(m.install).toEqual(['pip install mindspore==2.7.1']);
    expect(m.warn).toBe(true);
  });
});

describe('statusAsText', () => {
  it('gives a paste-able report', () => {
    const text = statusAsText(load(ascend));
    expect(text.split('\n')[0]).toBe(
      'ascend-lab device status: NPU 8x910B3 · HBM 12% · OK'
    );
    expect(text).toContain(
      'NPU 7 · 910B3  health OK  AICore 0 %  3400 / 65536 MB HBM (5%)'
    );
    expect(text).toContain('NPU 2 · chip 0  pid 1333928');
    expect(text).toContain('CANN: 8.3.RC2');
    expect(text).toContain('fix: ');
  });

  it('reports CPU mode with the reason', () => {
    const text = statusAsText(load(cpu));
    expect(text).toContain('ascend-lab device status: CPU mode');
    expect(text).toContain('reason: npu-smi not found on PATH');
  });
});

describe('rendering', () => {
  it('renders a process named like HTML as text', () => {
    const host = document.createElement('div');
    renderPanel(host, panelModel(load(xss)));
    expect(host.querySelector('img')).toBeNull();
    const names = Array.from(host.querySelectorAll('.jp-AscendLab-process-name')).map(
      n => n.textContent
    );
    expect(names).toEqual(['<img src=x onerror=alert(1)>']);
    expect(host.querySelector('.jp-AscendLab-process-pid')!.textContent).toBe(
      'PID 1333928'
    );
    expect(host.querySelectorAll('.jp-AscendLab-chip')).toHaveLength(8);
  });

  it('renders the HBM bar width from the chip', () => {
    const host = document.createElement('div');
    renderPanel(host, panelModel(load(ascend)));
    const fills = host.querySelectorAll<HTMLElement>('.jp-AscendLab-bar-fill');
    expect(fills[2].style.width).toBe('63%');
  });

  it('panel: refresh asks the server to skip its cache, copy gives the text', async () => {
    const refreshes: boolean[] = [];
    const poller = new StatusPoller({
      interval: 3600,
      auto: false,
      fetch: async refresh => {
        refreshes.push(refresh);
        return load(cpu);
      }
    });
    const copied: string[] = [];
    const panel = new DevicePanel({ poller, copy: t => copied.push(t) });
    expect(panel.node.textContent).toContain('Checking the NPU');
    panel.node.querySelector<HTMLButtonElement>('[data-action="refresh"]')!.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(refreshes).toEqual([true]);
    expect(panel.node.querySelector('.jp-AscendLab-cpu')!.textContent).toContain(
      'npu-smi not found on PATH'
    );
    panel.node.querySelector<HTMLButtonElement>('[data-action="copy"]')!.click();
    expect(copied).toHaveLength(1);
    expect(copied[0]).toContain('CPU mode');
    panel.dispose();
    poller.dispose();
  });
});

describe('which environment the status describes', () => {
  it("names the MindSpore kernel whose Python the server probed, and the hub's chip", () => {
    const data = structuredClone(ascend) as unknown as IDeviceStatus;
    data.subject = {
      kind: 'kernel',
      kernel: 'mindspore',
      python: '/opt/envs/ms/bin/python',
      hub_chip: '3'
    };
    const m = panelModel(asDeviceStatus(data), englishTrans);
    expect(m.describes).toBe(
      'Versions and variables of the kernel mindspore (/opt/envs/ms/bin/python) · ' +
        'Chip 3 of this machine, given to you by the class'
    );
  });

  it('says nothing for the process itself', () => {
    expect(panelModel(load(ascend), englishTrans).describes).toBe('');
  });
});
