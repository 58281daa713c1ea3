// The contract's TypeScript types (src/viewer/payload.generated.ts) are what
// json-schema-to-typescript makes of ascend_lab/payload/graph.schema.json today: a field
// added to the schema without `jlpm build:viewer` fails here (and in `jlpm lint`).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = join(__dirname, '..', '..', 'scripts', 'payload-types.mjs');

describe('payload types generated from graph.schema.json', () => {
  it('are up to date with the schema', () => {
    let failure = '';
    try {
      execFileSync(process.execPath, [script, '--check'], {
        encoding: 'utf8',
        stdio: 'pipe'
      });
    } catch (err) {
      failure = String((err as { stderr?: string }).stderr ?? err);
    }
    expect(failure).toBe('');
  });
});
