// Sync between two real database files through a real target (a folder, or `rclone serve webdav`), with
// the real `tidy sync` killed with SIGKILL mid-round: setup, join with the passphrase, a wrong passphrase
// refused, 10,000 changes in one go, kills at fixed points (held there by TIDY_TEST_SYNC_STEPS) and at
// one found by timing, each leaving both databases consistent and the next round completing; then every
// file on the target is searched for the tasks' text.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { addTask, openDatabase, type Db } from '../../../src-main/core';
import { DomainError } from '../../../src-main/core/fail';
import { openTarget, runSync, setupSync, type TargetSpec } from '../../../src-main/core/sync/service';
import { TIDY_BIN, type CliResult } from '../../support/cli';
import { okValue, userCtx } from '../../support/db';
import { NO_KEYCHAIN_ENV } from '../../support/keyring';
import { FAST_KDF } from '../../unit/sync/scenario';

const PHRASE = 'orchard lantern seventeen';
/** A word of every task's text: it must never be found on the target. */
export const SECRET = 'Marigold';

interface Killed {
  steps: string[];
  result: CliResult | null;
}

/**
 * Runs `tidy sync` on a database file and SIGKILLs it once stderr shows `killAt` (held there when `hold`;
 * else wherever it has got to by then).
 */
function tidySync(db: string, env: NodeJS.ProcessEnv, killAt: string, hold: boolean): Promise<Killed> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...NO_KEYCHAIN_ENV, ...env, TIDY_TEST_SYNC_STEPS: hold ? killAt : 'none' };
  delete childEnv['TIDY_DB'];
  const child = spawn(process.execPath, [TIDY_BIN, '--db', db, 'sync'], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(`${PHRASE}\n`);
  let stdout = '';
  let stderr = '';
  const steps: string[] = [];
  let killed = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const m of d.matchAll(/sync step: (\w+)/g)) steps.push(m[1]!);
    if (!killed && steps.includes(killAt)) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ steps, result: signal === 'SIGKILL' ? null : { code: code ?? -1, stdout, stderr } })),
  );
}

const whole = (db: Db, table: string): unknown[] =>
  (db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Record<string, unknown>[]).map(({ seq: _seq, ...r }) => r);

/** A database after a kill: intact, not left applying, nothing half-written: every task it has is the sender's, whole. */
function consistent(db: Db, sender: Db): void {
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.prepare(`SELECT applying FROM sync_state`).get()).toEqual({ applying: 0 });
  const theirs = new Map((whole(sender, 'tasks') as { id: string }[]).map((r) => [r.id, r]));
  for (const r of whole(db, 'tasks') as { id: string }[]) expect(r).toEqual(theirs.get(r.id));
  expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
}

/** `cli`: the kills of real `tidy sync` processes (else one round in this process carries the changes). */
/** No file on the target holds any task's text. */
function noPlaintext(targetDir: string): void {
  const files = readdirSync(targetDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(files.length).toBeGreaterThanOrEqual(4);
  for (const f of files) {
    const bytes = readFileSync(join(f.parentPath, f.name)).toString('latin1').toLowerCase();
    for (const word of [SECRET, 'orchids', 'water bed', 'edited']) expect(bytes.includes(word.toLowerCase()), `${word} in ${f.name}`).toBe(false);
  }
}

export async function realStoresScenario(spec: TargetSpec, targetDir: string, options: { cli: boolean }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-sync-stores-'));
  const [pathA, pathB] = [join(dir, 'laptop.db'), join(dir, 'desktop.db')];
  const a = openDatabase(pathA);
  const b = openDatabase(pathB);
  const env = spec.password ? { TIDY_WEBDAV_PASSWORD: spec.password } : {};
  try {
    const setup = await setupSync(a, spec, PHRASE, { name: 'Laptop', kdf: FAST_KDF });
    expect(setup.joined).toBe(false);
    const wrong = await setupSync(b, spec, 'orchard lantern eighteen').catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(DomainError);
    expect((wrong as DomainError).error).toBe('Wrong passphrase for this sync target.');
    const joined = await setupSync(b, spec, PHRASE, { name: 'Desktop' });
    expect(joined.joined).toBe(true);
    const target = openTarget(spec);
    // this scenario is about batches killed mid-way: the laptop's rows go as batches, not as its first
    // snapshot (joining from a snapshot: test/unit/sync/snapshot.test.ts)
    a.prepare(`UPDATE sync_state SET snapshot_due = 0`).run();

    // 10,000 changes at once: tasks written in one transaction (every column of each is a change)
    const first = okValue(addTask(a, userCtx(a), { content: `${SECRET} 0: repot the orchids` }));
    const cols = (a.pragma('table_info(tasks)') as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id' && c !== 'content');
    const part = setup.device.slice(0, 6);
    const n = Math.ceil(10_000 / (cols.length + 2));
    a.transaction(() => {
      const clone = a.prepare(`INSERT INTO tasks (id, content, ${cols.join(', ')}) SELECT ?, ?, ${cols.join(', ')} FROM tasks WHERE id = ?`);
      for (let i = 1; i <= n; i++) clone.run(`t${100_000 + i}.${part}`, `${SECRET} ${i}: water bed ${i}`, first.id);
    })();
    const sent = await runSync(a, setup.key, target);
    expect(sent.sent).toBeGreaterThanOrEqual(10_000);
    expect(sent.batches).toBeGreaterThanOrEqual(3);

    if (!options.cli) {
      expect((await runSync(b, joined.key, target)).problems).toEqual([]);
      expect(whole(b, 'tasks')).toEqual(whole(a, 'tasks'));
      expect(whole(b, 'actions')).toEqual(whole(a, 'actions'));
      noPlaintext(targetDir);
      return;
    }
    // the desktop's `tidy sync` is killed right after it merged the first batch (held there)
    const held = await tidySync(pathB, env, 'merged', true);
    expect(held.result).toBeNull();
    expect(held.steps.filter((s) => s === 'merged')).toHaveLength(1);
    consistent(b, a);
    const afterFirst = (b.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n;
    expect(afterFirst).toBeGreaterThan(1);
    expect(afterFirst).toBeLessThan(n);
    // and again, killed by timing: as soon as it has checked the target, wherever it is then
    const timed = await tidySync(pathB, env, 'checked', false);
    expect(timed.steps[0]).toBe('checked');
    consistent(b, a);
    // the next round completes (in this process: a third process start proves nothing more)
    const done = await runSync(b, joined.key, target);
    expect(done.problems).toEqual([]);
    expect(done.pending).toBe(0);
    expect(whole(b, 'tasks')).toEqual(whole(a, 'tasks'));
    expect(whole(b, 'actions')).toEqual(whole(a, 'actions'));

    // the laptop's `tidy sync` is killed after it wrote its batch and before it recorded it as sent
    a.prepare(`UPDATE tasks SET content = content || ' (${SECRET} edited)' WHERE rowid % 97 = 0`).run();
    const wrote = await tidySync(pathA, env, 'wrote', true);
    expect(wrote.result).toBeNull();
    consistent(a, a);
    expect((a.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get() as { n: number }).n).toBeGreaterThan(0);
    // the next round finds its own batch, sends nothing twice, and the desktop gets the edits once
    const again = await runSync(a, setup.key, target);
    expect(again).toMatchObject({ sent: 0, problems: [] });
    expect(a.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get()).toEqual({ n: 0 });
    const got = await runSync(b, joined.key, target);
    expect(got.problems).toEqual([]);
    expect(whole(b, 'tasks')).toEqual(whole(a, 'tasks'));
    expect((b.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE content LIKE '%edited)'`).get() as { n: number }).n).toBeGreaterThan(0);

    noPlaintext(targetDir);
  } finally {
    a.close();
    b.close();
  }
}
