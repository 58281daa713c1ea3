// @vitest-environment jsdom
import './dom-shim';
import { describe, expect, it } from 'vitest';

import { asDeviceStatus, IDeviceStatus } from '../api';
import {
  chipNames,
  httpStatus,
  healthText,
  memoryPercent,
  NpuStatusItem,
  statusText,
  StatusPoller
} from '../status';
import { ITrans } from '../trans';
import ascend from './fixtures/status_910b3_x8.json';
import cpu from './fixtures/status_cpu.json';

// Fixtures: DeviceStatus.to_dict() from the Python probe on the fake 910B3 x8 machine
// (benchmarks/support/fake_machine.py) and on a machine without npu-smi.
const npu = (): IDeviceStatus => asDeviceStatus(structuredClone(ascend));
const cpuStatus = (): IDeviceStatus => asDeviceStatus(structuredClone(cpu));

describe('statusText', () => {
  it('summarises the 910B3 x8 machine like the Python summary', () => {
    const s = npu();
    const t = statusText(s);
    expect(t.text).toBe('NPU 8x910B3 · HBM 12% · OK');
    expect(t.text).toBe(s.summary);
    expect(t.warn).toBe(false);
    expect(t.title).toContain('device panel');
  });

  it('says CPU mode and why', () => {
    const t = statusText(cpuStatus());
    expect(t.text).toBe('CPU mode');
    expect(t.warn).toBe(false);
    expect(t.title).toContain('npu-smi not found on PATH');
  });

  it('marks a chip that is not OK and names it', () => {
    const s = npu();
    s.chips[3].health = 'Alarm';
    const t = statusText(s);
    expect(t.text).toBe('NPU 8x910B3 · HBM 12% · 1 Alarm');
    expect(t.warn).toBe(true);
    expect(t.title).toContain('NPU 3 chip 0: Alarm');
  });

  it('marks a version mismatch with its message', () => {
    const s = npu();
    s.compatibility = {
      verdict: 'mismatch',
      message: 'MindSpore 2.7.0 needs CANN 8.2.RC1, found 8.3.RC2',
      install: []
    };
    const t = statusText(s);
    expect(t.warn).toBe(true);
    expect(t.text).toBe('NPU 8x910B3 · HBM 12% · OK');
    expect(t.title).toContain('needs CANN 8.2.RC1');
  });

  it('marks a mismatch in CPU mode too', () => {
    const s = cpuStatus();
    s.compatibility.verdict = 'mismatch';
    expect(statusText(s).warn).toBe(true);
  });

  it('shows loading and error states', () => {
    expect(statusText(null).text).toBe('NPU …');
    const failed = statusText(null, undefined, 'Network error');
    expect(failed.text).toBe('NPU status unavailable');
    expect(failed.warn).toBe(true);
    expect(failed.title).toContain('Network error');
  });

  it('uses the translator', () => {
    const zh: ITrans = {
      __: (msgid, ...args) =>
        ({ 'CPU mode': 'CPU 模式' })[msgid] ??
        msgid.replace(/%(\d)/g, (_, i: string) => String(args[Number(i) - 1])),
      _n: msgid => msgid
    };
    expect(statusText(cpuStatus(), zh).text).toBe('CPU 模式');
  });
});

describe('parts of the summary', () => {
  it('counts chip models in order', () => {
    const s = npu();
    s.chips[7].name = '310P3';
    expect(chipNames(s.chips)).toBe('7x910B3+1x310P3');
    expect(chipNames([])).toBe('');
  });

  it('uses DDR memory when no chip has HBM', () => {
    const s = npu();
    for (const c of s.chips) {
      c.hbm_total_mb = null;
      c.hbm_used_mb = null;
      c.memory_used_mb = 1000;
      c.memory_total_mb = 4000;
    }
    expect(memoryPercent(s.chips)).toEqual({ kind: 'Mem', percent: 25 });
    expect(statusText(s).text).toBe('NPU 8x910B3 · Mem 25% · OK');
  });

  it('omits memory when nothing is reported', () => {
    const s = npu();
    for (const c of s.chips) {
      c.hbm_total_mb = null;
      c.memory_total_mb = null;
    }
    expect(memoryPercent(s.chips)).toBeNull();
    expect(statusText(s).text).toBe('NPU 8x910B3 · OK');
  });

  it('groups unhealthy chips by health', () => {
    const s = npu();
    s.chips[0].health = 'Alarm';
    s.chips[1].health = 'Alarm';
    s.chips[2].health = null;
    expect(healthText(s.chips)).toBe('2 Alarm, 1 unknown');
  });
});

describe('asDeviceStatus', () => {
  it('rejects something that is not a status (a login page, an old server)', () => {
    expect(() => asDeviceStatus({ mode: 'ascend' })).toThrow(/unexpected answer/);
    expect(() => asDeviceStatus(null)).toThrow(/unexpected answer/);
  });
});

describe('StatusPoller and the status item', () => {
  it('fetches, renders, keeps the last status on error, and refreshes with refresh=true', async () => {
    const calls: boolean[] = [];
    let fail = false;
    const poller = new StatusPoller({
      interval: 3600,
      auto: false,
      fetch: async refresh => {
        calls.push(refresh);
        if (fail) {
          throw new Error('boom');
        }
        return npu();
      }
    });
    let clicks = 0;
    const item = new NpuStatusItem({ poller, onClick: () => clicks++ });
    expect(item.text).toBe('NPU …');
    await poller.refresh();
    expect(calls).toEqual([true]);
    expect(item.text).toBe('NPU 8x910B3 · HBM 12% · OK');
    expect(
      item.node.querySelector('.jp-AscendLab-status-mark')!.hasAttribute('hidden')
    ).toBe(true);
    fail = true;
    await poller.refresh();
    expect(poller.error).toBe('boom');
    expect(item.text).toBe('NPU 8x910B3 · HBM 12% · OK');
    expect(item.node.title).toContain('Last update failed: boom');
    item.node.click();
    expect(clicks).toBe(1);
    item.dispose();
    poller.dispose();
    expect(poller.isDisposed).toBe(true);
  });

  it('stops and reports serverMissing on 404 (server extension not enabled)', async () => {
    let calls = 0;
    const poller = new StatusPoller({
      interval: 3600,
      auto: false,
      fetch: async () => {
        calls++;
        throw Object.assign(new Error('Not Found'), { response: { status: 404 } });
      }
    });
    expect(poller.serverMissing).toBe(false);
    await poller.refresh();
    expect(poller.serverMissing).toBe(true);
    expect(poller.error).toBe('Not Found');
    expect(calls).toBe(1);
    poller.dispose();
  });

  it('a 500 is an error but not a missing server', async () => {
    const poller = new StatusPoller({
      interval: 3600,
      auto: false,
      fetch: async () => {
        throw Object.assign(new Error('boom'), { response: { status: 500 } });
      }
    });
    await poller.refresh();
    expect(poller.serverMissing).toBe(false);
    expect(httpStatus(new Error('x'))).toBeNull();
    poller.dispose();
  });

  it('has a sane poll interval', () => {
    expect(StatusPoller.toMs(5)).toBe(5000);
    expect(StatusPoller.toMs(0)).toBe(1000);
    expect(StatusPoller.toMs(Number.NaN)).toBe(5000);
  });
});
