import { describe, expect, it } from 'vitest';
import { addTask, updateTask, type Db } from '../../../src-main/core';
import { listConflicts, mergeTexts, noteConflict } from '../../../src-main/core/sync/conflicts';
import { runSync, setupSync, type TargetSpec } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

const PASS = 'correct horse battery staple';

/** Two devices on one folder, Laptop with a task, Desktop joined and synced. */
async function pair() {
  const folder = tempDir();
  const spec: TargetSpec = { kind: 'folder', url: folder };
  const a = tempDb().db;
  const b = tempDb().db;
  const task = okValue(addTask(a, userCtx(a), { content: 'Plan the trip', description: 'Book the train' }));
  const ka = (await setupSync(a, spec, PASS, { name: 'Laptop', kdf: FAST_KDF })).key;
  const kb = (await setupSync(b, spec, PASS, { name: 'Desktop', kdf: FAST_KDF })).key;
  const target = new FolderTarget(folder);
  const sync = async (db: Db) => {
    const s = await runSync(db, db === a ? ka : kb, target);
    expect(s.problems).toEqual([]);
    return s;
  };
  await sync(a);
  await sync(b);
  await sync(a);
  return { a, b, task, sync, target };
}

const col = (db: Db, id: string, c: 'content' | 'description'): string => (db.prepare(`SELECT ${c} AS v FROM tasks WHERE id = ?`).get(id) as { v: string }).v;
const conflicts = (db: Db) => db.prepare(`SELECT COUNT(*) AS n FROM sync_conflicts`).get() as { n: number };

describe('sync conflicts', () => {
  it('two concurrent edits: the later title wins everywhere and every device records the other; two descriptions become one merged note', async () => {
    const { a, b, task, sync } = await pair();
    okValue(updateTask(a, userCtx(a), { task: task.id, content: 'Plan the trip to Lyon', description: 'Book the train for Friday' }));
    okValue(updateTask(b, userCtx(b), { task: task.id, content: 'Plan the trip to Porto', description: 'Book the train; ask Sam about the hotel' }));
    await sync(a);
    await sync(b); // Desktop's edit goes out; Laptop's arrives, loses there, and is recorded (and the texts merged)
    await sync(a);
    await sync(b); // what Desktop recorded and merged while receiving goes out in its next round
    await sync(a);
    const won = col(a, task.id, 'content');
    expect(col(b, task.id, 'content')).toBe(won);
    const [winner, loser] = won.endsWith('Porto') ? ['Desktop', 'Laptop'] : ['Laptop', 'Desktop'];
    for (const db of [a, b]) {
      const c = listConflicts(db, 'tasks', task.id);
      expect(c.map((x) => x.column).sort()).toEqual(['content', 'description']);
      const title = c.find((x) => x.column === 'content')!;
      expect(title).toMatchObject({ lostDevice: loser, wonDevice: winner, merged: false });
      expect(title.lostValue).toBe(won.endsWith('Porto') ? 'Plan the trip to Lyon' : 'Plan the trip to Porto');
      expect(Date.parse(title.wonAt)).toBeGreaterThanOrEqual(Date.parse(title.lostAt));
      expect(c.find((x) => x.column === 'description')).toMatchObject({ lostDevice: loser, wonDevice: winner, merged: true });
    }
    const text = col(a, task.id, 'description');
    expect(col(b, task.id, 'description')).toBe(text);
    expect(text).toContain('Book the train for Friday');
    expect(text).toContain('Book the train; ask Sam about the hotel');
    expect(text).toMatch(new RegExp(`--- Also written on ${loser} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d \\(both edits kept by sync\\) ---`));
    // a quiet round after: nothing more to send or merge
    expect((await sync(a)).sent + (await sync(b)).sent).toBe(0);
  });

  it('an edit made after seeing the other device’s edit is sequential: nothing is recorded', async () => {
    const { a, b, task, sync } = await pair();
    okValue(updateTask(a, userCtx(a), { task: task.id, content: 'Plan the trip to Lyon' }));
    await sync(a);
    await sync(b);
    okValue(updateTask(b, userCtx(b), { task: task.id, content: 'Plan the trip to Lyon and Nice' }));
    await sync(b);
    await sync(a);
    okValue(updateTask(a, userCtx(a), { task: task.id, content: 'Plan the trip to Nice' }));
    await sync(a);
    await sync(b);
    expect(col(b, task.id, 'content')).toBe('Plan the trip to Nice');
    expect(conflicts(a).n + conflicts(b).n).toBe(0);
  });

  it('a hostile conflict record is dropped: bad JSON, a table outside the registry, a record claiming another device’s win', async () => {
    const a = tempDb().db;
    await setupSync(a, { kind: 'folder', url: tempDir() }, PASS, { name: 'Laptop', kdf: FAST_KDF });
    const node = (a.prepare(`SELECT device FROM sync_state`).get() as { device: string }).device;
    const other = 'ffffffffffffffff';
    const stamp = (ms: number, n: string) => `${new Date(ms).toISOString()}-0000-${n}`;
    const lost = stamp(Date.UTC(2035, 0, 1), other);
    const won = stamp(Date.UTC(2035, 0, 2), node);
    const bad = [
      { hlc: stamp(Date.UTC(2035, 0, 3), other), table: 'sync_conflicts', row: lost, column: 'record', value: '{not json' },
      { hlc: stamp(Date.UTC(2035, 0, 3), other), table: 'sync_conflicts', row: lost, column: 'record', value: JSON.stringify({ tbl: 'sqlite_master', row: 't1', col: 'sql', lostValue: 'x', lostHlc: lost, wonHlc: won }) },
      // the sender (other) says a stamp of another device (node) won: not its record to make
      { hlc: stamp(Date.UTC(2035, 0, 3), other), table: 'sync_conflicts', row: lost, column: 'record', value: JSON.stringify({ tbl: 'tasks', row: 't1', col: 'content', lostValue: 'x', lostHlc: lost, wonHlc: won }) },
      { hlc: stamp(Date.UTC(2035, 0, 3), other), table: 'sync_conflicts', row: lost, column: 'record', value: JSON.stringify({ tbl: 'tasks', row: 't1', col: 'content; DROP TABLE tasks', lostValue: 'x', lostHlc: lost, wonHlc: stamp(Date.UTC(2035, 0, 2), other) }) },
    ];
    for (const m of bad) expect(noteConflict(a, m, undefined)).toBe(true);
    expect(conflicts(a).n).toBe(0);
  });

  it('the merged text: the winner first, then the other device’s under a marked line; nothing added when one holds the other', () => {
    const at = new Date(2035, 0, 1, 10, 2).getTime();
    expect(mergeTexts('Mine\n', 'Theirs', 'Laptop', at)).toBe('Mine\n\n--- Also written on Laptop at 2035-01-01 10:02 (both edits kept by sync) ---\nTheirs');
    expect(mergeTexts('x'.repeat(999_990), 'y'.repeat(100), 'Laptop', at)).toBe('x'.repeat(999_990));
  });
});
