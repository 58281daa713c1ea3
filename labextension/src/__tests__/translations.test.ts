import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

function poMessageIds(file: string): string[] {
  const ids: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^msgid (".*")$/.exec(line.trim());
    if (m) {
      const id = JSON.parse(m[1]) as string;
      if (id !== '') {
        ids.push(id);
      }
    }
  }
  return ids.sort();
}

describe('zh_CN translation', () => {
  it('covers exactly the messages the extension uses', () => {
    const used = JSON.parse(
      execFileSync(process.execPath, [join(root, 'scripts', 'extract-messages.mjs')], {
        encoding: 'utf8'
      })
    ) as string[];
    expect(used.length).toBeGreaterThan(40);
    expect(used).toContain('CPU mode');
    const po = join(
      root,
      '..',
      'ascend_lab',
      'locale',
      'zh_CN',
      'LC_MESSAGES',
      'ascend_lab.po'
    );
    expect(poMessageIds(po)).toEqual([...used].sort());
  });
});
