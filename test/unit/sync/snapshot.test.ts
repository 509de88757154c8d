// Snapshots and pruning on real stores: the first device's rows travel as one snapshot, a new device starts
// from it; a device prunes its batches once the others have read them; a device that stayed away past the
// pruning starts again from a snapshot with its own unsent changes kept; a snapshot under another key, a
// damaged or a hostile one is refused in one line and the device reads the batches instead.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { addTask, listTasks, updateTask, type Db } from '../../../src-main/core';
import { DomainError } from '../../../src-main/core/fail';
import { encryptBatch } from '../../../src-main/core/sync/crypto';
import { batchPath } from '../../../src-main/core/sync/layout';
import { runSync, setupSync, type TargetSpec } from '../../../src-main/core/sync/service';
import { decodeSnapshot, encodeSnapshot, snapshotMessages, snapshotPath, type Snapshot } from '../../../src-main/core/sync/snapshot';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF, IDS } from './scenario';

const PASS = 'correct horse battery staple';
const rows = (db: Db): unknown[] => db.prepare(`SELECT * FROM tasks ORDER BY id`).all();
const contents = (db: Db): string[] => listTasks(db).tasks.map((t) => t.content).sort();

function refused(f: () => unknown): DomainError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('sync snapshots and pruning', () => {
  it('sends a set-up database as one snapshot that a new device starts from; a damaged snapshot is one line and the device reads the batches', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const target = new FolderTarget(folder);
    const a = tempDb().db;
    for (const w of ['Dentist on Friday', 'Ring for Alice', 'Tyres']) okValue(addTask(a, userCtx(a), { content: w }));
    const sa = await setupSync(a, spec, PASS, { kdf: FAST_KDF });
    const first = await runSync(a, sa.key, target);
    // the rows are one snapshot (the device's first file), not a message per cell; only the name is a batch
    expect(first.wroteSnapshot).toBe(1);
    expect(first.sent).toBe(1);
    expect(existsSync(join(folder, snapshotPath(sa.device, 1)))).toBe(true);
    const b = tempDb().db;
    const sb = await setupSync(b, spec, PASS, { kdf: FAST_KDF });
    const got = await runSync(b, sb.key, target);
    expect(got.startedFrom).toBe(`${sa.device}/1`);
    expect(got.problems).toEqual([]);
    expect(rows(b)).toEqual(rows(a));

    // more changes as batches, then a snapshot asked for (`tidy sync --snapshot`), which is damaged on the target
    okValue(addTask(a, userCtx(a), { content: 'Flowers' }));
    const forced = await runSync(a, sa.key, target, { snapshot: true });
    expect(forced.wroteSnapshot).toBe(4);
    const path = join(folder, snapshotPath(sa.device, 4));
    writeFileSync(path, readFileSync(path).subarray(0, 100));
    const c = tempDb().db;
    const sc = await setupSync(c, spec, PASS, { kdf: FAST_KDF });
    const fallback = await runSync(c, sc.key, target);
    expect(fallback.problems).toHaveLength(1);
    expect(fallback.problems[0]).toMatch(/^The sync file [0-9a-f]{16}\/4 failed its integrity check/);
    expect(fallback.problems[0]).not.toContain('\n');
    expect(rows(c)).toEqual(rows(a));
    expect(contents(c)).toContain('Flowers');
  });

  it('prunes batches every device still syncing has read; a device away past that starts from a snapshot and keeps its own changes', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const target = new FolderTarget(folder);
    const [a, b, c] = [tempDb().db, tempDb().db, tempDb().db];
    okValue(addTask(a, userCtx(a), { content: 'Dentist on Friday' }));
    const keys: Uint8Array[] = [];
    const ids: string[] = [];
    for (const db of [a, b, c]) {
      const s = await setupSync(db, spec, PASS, { kdf: FAST_KDF });
      keys.push(s.key);
      ids.push(s.device);
    }
    const tuning = { snapshotAfter: 2, reportEvery: 1, awayMs: 24 * 3600_000 };
    const later = (): number => Date.now() + 2 * 24 * 3600_000;
    for (const i of [0, 1, 2, 0]) expect((await runSync([a, b, c][i]!, keys[i]!, target, { tuning })).problems).toEqual([]);
    // C goes away with changes it has not sent: a new task, and an edit of A's task
    okValue(addTask(c, userCtx(c), { content: 'Only on C' }));
    const dentist = listTasks(c).tasks.find((t) => t.content === 'Dentist on Friday')!;
    okValue(updateTask(c, userCtx(c), { task: dentist.id, content: 'Dentist moved to Monday' }));

    // two days on, A and B keep changing and syncing: C no longer holds pruning back
    let pruned = 0;
    for (let n = 0; n < 5; n++) {
      okValue(addTask(a, userCtx(a), { content: `From A ${n}` }));
      pruned += (await runSync(a, keys[0]!, target, { tuning, now: later })).pruned;
      await runSync(b, keys[1]!, target, { tuning, now: later });
    }
    expect(pruned).toBeGreaterThan(0);
    expect(existsSync(join(folder, batchPath(ids[0]!, 2)))).toBe(false);
    const left = readdirSync(join(folder, ids[0]!)).filter((f) => f.endsWith('.snapshot'));
    expect(left.length).toBeLessThanOrEqual(2);

    // C comes back: its next batches of A (and B) are gone, so it starts again from a newest snapshot, its own changes kept
    const back = await runSync(c, keys[2]!, target, { tuning, now: later });
    expect(back.problems).toEqual([]);
    expect(back.startedFrom).toMatch(new RegExp(`^(${ids[0]}|${ids[1]})/\\d+$`));
    for (let pass = 0; pass < 2; pass++) for (const i of [2, 0, 1]) await runSync([a, b, c][i]!, keys[i]!, target, { tuning, now: later });
    for (const db of [a, b, c]) {
      expect(rows(db)).toEqual(rows(a));
      expect(contents(db)).toEqual(['Dentist moved to Monday', 'From A 0', 'From A 1', 'From A 2', 'From A 3', 'From A 4', 'Only on C']);
      expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
    }
  });

  it('refuses a snapshot under another key, in another place, or hostile inside, in one line each', () => {
    const key = new Uint8Array(32).fill(1);
    const other = new Uint8Array(32).fill(2);
    const dev = IDS[0];
    const snap: Snapshot = {
      device: dev,
      seq: 3,
      cursors: { [IDS[1]]: 2 },
      tables: [{ table: 'tasks', columns: ['_exists', 'content'], rows: [['t1', [1, 'Dentist'], ['2035-01-01T12:00:00.000Z-0000-00000000000000a1', 1]]] }],
      messages: [],
    };
    const file = encodeSnapshot(key, snap);
    expect(Buffer.from(file).toString('latin1')).not.toContain('Dentist');
    const back = decodeSnapshot(key, dev, 3, file);
    expect([...snapshotMessages(back)].flat().map((m) => [m.hlc, m.column, m.value])).toEqual([
      ['2035-01-01T12:00:00.000Z-0000-00000000000000a1', '_exists', 1],
      ['2035-01-01T12:00:00.000Z-0001-00000000000000a1', 'content', 'Dentist'],
    ]);
    for (const [k, d, s] of [
      [other, dev, 3],
      [key, dev, 4],
      [key, IDS[1], 3],
    ] as const) {
      const e = refused(() => decodeSnapshot(k, d, s, file));
      expect(e.error).toMatch(/failed its integrity check/);
    }
    const seal = (body: unknown): Uint8Array => encryptBatch(key, { device: dev, seq: 3, kind: 'snapshot' }, deflateSync(new TextEncoder().encode(JSON.stringify(body))));
    const base = { format: 1, kind: 'snapshot', device: dev, seq: 3, cursors: {}, tables: [], messages: [] };
    const hostile: unknown[] = [
      'not an object',
      { ...base, seq: 4 },
      { ...base, tables: [{ table: 'tasks; DROP TABLE tasks', columns: ['_exists'], rows: [] }] },
      { ...base, tables: [{ table: 'tasks', columns: ['_exists'], rows: [['t1', [1], [7]]] }] }, // ticks with no full stamp before them
      { ...base, tables: [{ table: 'tasks', columns: ['_exists'], rows: [['t1', [{ x: 1 }], [null]]] }] },
      { ...base, tables: [{ table: 'tasks', columns: ['_exists'], rows: [['t1', [1], ['yesterday']]] }] },
      { ...base, cursors: { 'not-a-device': 1 } },
      { ...base, messages: [['x', 'tasks', 't1', 'content', 'v']] },
    ];
    for (const h of hostile) expect(refused(() => decodeSnapshot(key, dev, 3, seal(h))).error).toMatch(/^The sync snapshot [0-9a-f]{16}\/3 cannot be read: /);
    expect(refused(() => decodeSnapshot(key, dev, 3, seal({ ...base, format: 2 }))).hint).toMatch(/Update Tidy/);
  });
});
