import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import type { Change } from '../../../src-main/core/actions/changes';
import { backupDatabase } from '../../../src-main/core/data';
import { REPO } from '../../support/cli';
import { tempDir } from '../../support/db';

/** Every change has its action and every action its change: the log's after-images replay to exactly the rows on disk. */
function expectConsistent(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    const tasks = db.prepare(`SELECT * FROM tasks`).all() as Record<string, unknown>[];
    const projects = db.prepare(`SELECT * FROM projects WHERE builtin = 0`).all() as Record<string, unknown>[];
    const replay = new Map<string, Record<string, unknown> | null>();
    let changed = 0;
    for (const a of db.prepare(`SELECT changes FROM actions ORDER BY seq`).all() as { changes: string }[]) {
      const changes = JSON.parse(a.changes) as Change[];
      changed += changes.length;
      for (const c of changes) replay.set(`${c.table}:${c.id}`, c.after);
    }
    const onDisk = new Map<string, Record<string, unknown>>();
    for (const t of tasks) onDisk.set(`tasks:${String(t['id'])}`, t);
    for (const p of projects) onDisk.set(`projects:${String(p['id'])}`, p);
    expect(replay.size).toBe(onDisk.size);
    for (const [key, row] of onDisk) expect(replay.get(key)).toEqual(row);
    expect((db.prepare(`SELECT count(*) AS n FROM action_entities`).get() as { n: number }).n).toBe(changed);
    return tasks.length;
  } finally {
    db.close();
  }
}

describe('backup during a write storm', () => {
  it('each backup taken while another process writes is a consistent database, and ends even on a large file', async () => {
    const dir = tempDir();
    const path = join(dir, 'tidy.db');
    // 24 MB of padding (in a table the check below does not read): each copy takes long enough that the
    // storm commits while it runs (a page-by-page online backup restarted on every such commit).
    const pad = openDatabase(path);
    pad.exec(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 24000)
      INSERT INTO model_quirks (base_url, model, quirks, updated_at) SELECT 'http://pad', 'm' || x, hex(randomblob(512)), 'x' FROM c`);
    pad.close();
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/support/mutation-storm.ts'), path], { cwd: REPO });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let rounds = 0;
    child.stdout.on('data', (d: Buffer) => (rounds = Math.max(rounds, Number(d.toString().trim().split('\n').pop()))));
    try {
      await new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (rounds >= 100) resolve();
          // The writer is a tsx process: starting it can take long on a loaded machine.
          else if (Date.now() - started > 90_000) reject(new Error('the storm did not start'));
          else return;
          clearInterval(poll);
        }, 20);
      });
      const db = openDatabase(path);
      const sizes: number[] = [];
      const roundsAt: number[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          roundsAt.push(rounds);
          const out = join(dir, `b${i}.db`);
          await backupDatabase(db, out);
          sizes.push(expectConsistent(out));
          await new Promise((r) => setTimeout(r, 150));
        }
      } finally {
        db.close();
      }
      // The storm was writing throughout: later backups hold more tasks.
      expect(rounds).toBeGreaterThan(roundsAt[0]!);
      expect(sizes[2]!).toBeGreaterThan(sizes[0]!);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // Three backups of a 24 MB file against a writer in another process (fsync on every commit): on a busy
    // 2-core machine running the rest of the suite beside it, this takes over the default 30 s.
  }, 240_000);
});
