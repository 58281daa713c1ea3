import { describe, expect, it } from 'vitest';

import { asDeviceStatus, IDeviceStatus } from '../api';
import ascend from './fixtures/status_910b3_x8.json';

const zhDisplay = {
  lang: 'zh',
  summary: 'NPU 8x910B3 · HBM 12% · OK',
  reason: 'npu-smi 找到 8 个 NPU 芯片',
  compatibility: '版本配套表中没有 MindSpore 2.8.0。',
  warnings: [] as { message: string; fix: string; severity: string }[]
};

describe('asDeviceStatus with a display language', () => {
  it('shows the translated reason, compatibility and warnings; machine fields stay', () => {
    const data = structuredClone(ascend) as unknown as IDeviceStatus & {
      display?: unknown;
    };
    data.warnings = [
      { message: 'english one', fix: 'fix one', severity: 'warning', component: 'npu' },
      { message: 'english two', fix: 'fix two', severity: 'info', component: 'env' }
    ];
    data.display = {
      ...zhDisplay,
      warnings: [{ message: '中文一', fix: '修复一', severity: 'warning' }]
    };
    const s = asDeviceStatus(data);
    expect(s.reason).toBe('npu-smi 找到 8 个 NPU 芯片');
    expect(s.compatibility.message).toBe('版本配套表中没有 MindSpore 2.8.0。');
    expect(s.compatibility.verdict).toBe(data.compatibility.verdict);
    expect(s.warnings[0]).toEqual({
      message: '中文一',
      fix: '修复一',
      severity: 'warning',
      component: 'npu'
    });
    // a warning the display does not cover keeps its English text
    expect(s.warnings[1].message).toBe('english two');
    expect(s.mode).toBe('ascend');
    expect(s.chips.length).toBe(8);
  });

  it('without display the English texts are shown', () => {
    const s = asDeviceStatus(structuredClone(ascend));
    expect(s.reason).toBe((ascend as unknown as IDeviceStatus).reason);
  });
});
