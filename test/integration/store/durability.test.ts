import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import type { Change } from '../../../src-main/core/actions/changes';
import { REPO } from '../../support/cli';
import { tempDir } from '../../support/db';

/** Starts the storm, waits until it has committed `atLeast` rounds, then kills it with SIGKILL mid-write. */
function stormAndKill(db: string, atLeast: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/support/mutation-storm.ts'), db], { cwd: REPO });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const last = Number(d.toString().trim().split('\n').pop());
      if (last >= atLeast) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`storm ended without being killed: ${err}`))));
  });
}

describe('durability', () => {
  it('survives SIGKILL mid-batch: integrity ok, and every change has its action row and every action its change', async () => {
    const path = join(tempDir(), 'tidy.db');
    for (const rounds of [200, 300, 100]) await stormAndKill(path, rounds);

    const db = openDatabase(path);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      const tasks = db.prepare(`SELECT * FROM tasks`).all() as Record<string, unknown>[];
      const projects = db.prepare(`SELECT * FROM projects WHERE builtin = 0`).all() as Record<string, unknown>[];
      expect(tasks.length).toBeGreaterThan(600);

      // Replaying the log's after-images must give exactly the rows on disk, and nothing else.
      const replay = new Map<string, Record<string, unknown> | null>();
      for (const a of db.prepare(`SELECT changes FROM actions ORDER BY seq`).all() as { changes: string }[]) {
        for (const c of JSON.parse(a.changes) as Change[]) replay.set(`${c.table}:${c.id}`, c.after);
      }
      const onDisk = new Map<string, Record<string, unknown>>();
      for (const t of tasks) onDisk.set(`tasks:${String(t['id'])}`, t);
      for (const p of projects) onDisk.set(`projects:${String(p['id'])}`, p);
      expect(replay.size).toBe(onDisk.size);
      for (const [key, row] of onDisk) expect(replay.get(key)).toEqual(row);

      // And the entity index matches the actions.
      const indexed = db.prepare(`SELECT count(*) AS n FROM action_entities`).get() as { n: number };
      const changed = (db.prepare(`SELECT changes FROM actions`).all() as { changes: string }[]).reduce(
        (n, a) => n + (JSON.parse(a.changes) as Change[]).length,
        0,
      );
      expect(indexed.n).toBe(changed);
    } finally {
      db.close();
    }
  });
});
