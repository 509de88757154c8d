// A time limit combined with a cancel signal (src-main/core/abort.ts) aborts a request even when garbage
// is collected while it waits: the Wikipedia tool, the connection test and every agent run rely on it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timeLimit } from '../../../src-main/core/abort';
import { REPO } from '../../support/cli';

const probe = (env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'gc-probe.ts')], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });

describe('timeLimit', () => {
  it('aborts a request at its time limit while garbage is collected under it', () => {
    const r = probe();
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/^aborted \d+$/);
      expect(Number(line.split(' ')[1])).toBeLessThan(2_000);
    }
  }, 40_000);

  it('says whether the time limit or a cancel ended it, and cancels at once', async () => {
    const cancel = new AbortController();
    const byCancel = timeLimit(60_000, [cancel.signal, undefined]);
    cancel.abort(new Error('stop'));
    expect(byCancel.signal.aborted).toBe(true);
    expect(byCancel.expired()).toBe(false);
    expect((byCancel.signal.reason as Error).message).toBe('stop');

    const byTime = timeLimit(20, [new AbortController().signal]);
    await new Promise((resolve) => byTime.signal.addEventListener('abort', resolve));
    expect(byTime.expired()).toBe(true);
    expect((byTime.signal.reason as DOMException).name).toBe('TimeoutError');

    const already = new AbortController();
    already.abort('gone');
    expect(timeLimit(60_000, [already.signal]).signal.reason).toBe('gone');
  });
});
