// Undo across devices. An undo on one device removes a row (a project, a list, a project's section) while another
// device, not synced, adds into it (sync/kept.ts): the row is kept on every device, whatever order the batches
// arrive in, nothing waits, the kept row is an action of the log that every device has alike, said by `tidy
// sync`, and undoing it with --cascade undoes what was added into it first. An undo that brings back a name
// another device's row has now takes "Errands (Laptop)", and says so.
import { describe, expect, it } from 'vitest';
import { addListItem, addTask, createProject, makeList, renameProject, undoAction, undoLast, undoRequest, type Db } from '../../../src-main/core';
import { createSection } from '../../../src-main/core/domain/sections';
import { TRACKED_TABLES } from '../../../src-main/core/store/entities';
import { takeKeptRecord } from '../../../src-main/core/sync/kept';
import { runSync, setupSync } from '../../../src-main/core/sync/service';
import { applyMessages, retryPending } from '../../../src-main/core/sync/store-device';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

const LOG = 'id, request_id, source, tool, args, result, changes, summary, what, created_at, undone_at, undoes';
const state = (db: Db): Record<string, unknown[]> => ({
  ...Object.fromEntries(TRACKED_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY id`).all()])),
  actions: db.prepare(`SELECT ${LOG} FROM actions ORDER BY id`).all(),
});
const pending = (db: Db): number => (db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get() as { n: number }).n;

async function devices(n: number) {
  const folder = tempDir();
  const target = new FolderTarget(folder);
  const out: { db: Db; key: Uint8Array }[] = [];
  for (const name of ['Laptop', 'Desktop', 'Tablet'].slice(0, n)) {
    const db = tempDb().db;
    out.push({ db, key: (await setupSync(db, { kind: 'folder', url: folder }, 'pass phrase', { name, kdf: FAST_KDF })).key });
  }
  const sync = async (i: number): Promise<string[]> => {
    const r = await runSync(out[i]!.db, out[i]!.key, target);
    expect(r.problems).toEqual([]);
    return r.renamed;
  };
  for (let i = 0; i < n; i++) await sync(i);
  return { dbs: out.map((d) => d.db), sync };
}

describe('a row undone on one device while another adds into it', () => {
  it.each([
    ['the undo arrives first', [0, 1, 2]],
    ['the added rows arrive first', [1, 0, 2]],
    ['the third device has the undo first', [0, 2, 1]],
  ])('is kept on every device, its new rows with it, the log alike, said once; --cascade undoes it (%s)', async (_, order) => {
    const { dbs, sync } = await devices(3);
    const [laptop, desktop, tablet] = dbs as [Db, Db, Db];
    const errands = okValue(createProject(laptop, userCtx(laptop), { name: 'Errands' }));
    const shop = okValue(makeList(laptop, userCtx(laptop), { name: 'Shop' }));
    const home = okValue(createProject(laptop, userCtx(laptop), { name: 'Home' }));
    okValue(createSection(laptop, userCtx(laptop), { project: home.id, name: 'Later' }));
    await sync(0);
    await sync(1);
    await sync(2);
    // partitioned: Laptop undoes the creations, Desktop adds into them
    for (let i = 0; i < 4; i++) okValue(undoLast(laptop, { ctx: userCtx(laptop) }));
    expect(laptop.prepare(`SELECT COUNT(*) AS n FROM projects WHERE builtin = 0`).get()).toEqual({ n: 0 });
    okValue(addTask(desktop, userCtx(desktop), { content: 'stamps', project: errands.id }));
    okValue(addListItem(desktop, userCtx(desktop), { list: shop.id, text: 'bread' }));
    okValue(createSection(desktop, userCtx(desktop), { project: home.id, name: 'Soon' }));

    // then everyone syncs until all agree (what a device kept travels with its next round): a few passes at most
    const said: string[][] = [[], [], []];
    for (const i of order) said[i]!.push(...(await sync(i)));
    for (let pass = 0; pass < 6; pass++) {
      for (const i of [0, 1, 2]) said[i]!.push(...(await sync(i)));
      const now = JSON.stringify(state(laptop));
      if (pass >= 1 && dbs.every((d) => pending(d) === 0 && JSON.stringify(state(d)) === now)) break;
    }
    for (const db of dbs) {
      expect(pending(db)).toBe(0);
      expect(state(db)).toEqual(state(laptop));
    }
    // kept with what was added into them; the section Laptop removed and nobody added to stays removed
    expect(laptop.prepare(`SELECT name FROM projects WHERE builtin = 0 ORDER BY name`).all()).toEqual([{ name: 'Errands' }, { name: 'Home' }]);
    expect(tablet.prepare(`SELECT t.content, p.name FROM tasks t JOIN projects p ON p.id = t.project_id`).all()).toEqual([{ content: 'stamps', name: 'Errands' }]);
    expect(tablet.prepare(`SELECT i.text, l.name FROM list_items i JOIN lists l ON l.id = i.list_id`).all()).toEqual([{ text: 'bread', name: 'Shop' }]);
    expect(tablet.prepare(`SELECT name FROM sections ORDER BY name`).all()).toEqual([{ name: 'Soon' }]);
    // said once on every device, whichever kept it, and the log has one kept action per row
    for (const lines of said) {
      expect(lines.filter((s) => s.startsWith('Project “Errands” kept'))).toEqual(['Project “Errands” kept: Desktop added a task to it; the undo that removed it is overridden']);
      expect(lines.filter((s) => / kept: /.test(s)).length).toBe(3);
    }
    const kept = laptop.prepare(`SELECT id, request_id, summary FROM actions WHERE tool = 'sync.keep' ORDER BY summary`).all() as { id: string; request_id: string; summary: string }[];
    expect(kept.map((k) => k.summary)).toEqual([
      'Kept list “Shop”: another device added to it while it was being undone',
      'Kept project “Errands”: another device added to it while it was being undone',
      'Kept project “Home”: another device added to it while it was being undone',
    ]);
    // every request can be undone on every device; the kept project with --cascade only (its task goes first)
    const errandsKept = kept.find((k) => k.summary.includes('Errands'))!;
    for (const db of dbs) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const refused = undoRequest(db, errandsKept.request_id, { ctx: userCtx(db) });
        expect(refused.ok ? 'ok' : refused.code).toBe('undo_blocked');
        const r = undoRequest(db, errandsKept.request_id, { ctx: userCtx(db), cascade: true });
        expect(r.ok ? r.value.reversed.map((x) => x.summary) : r.error).toEqual([expect.stringContaining('stamps'), errandsKept.summary]);
        for (const { request_id } of db.prepare(`SELECT DISTINCT request_id FROM actions WHERE undone_at IS NULL AND undoes IS NULL AND changes != '[]'`).all() as { request_id: string }[]) {
          db.exec('SAVEPOINT one');
          const each = undoRequest(db, request_id, { ctx: userCtx(db), cascade: true });
          db.exec('ROLLBACK TO one');
          expect(each.ok ? 'ok' : each.error).toBe('ok');
        }
      } finally {
        db.exec('ROLLBACK');
      }
    }
  });

  it('a received record of a kept row that is not whole is ignored', () => {
    const { db } = tempDb();
    const hlc = '2035-01-01T12:00:00.000Z-0000-00000000000000a1';
    const record = (value: unknown): boolean => takeKeptRecord(db, { hlc, table: 'sync_conflicts', row: hlc, column: 'record', value: JSON.stringify(value) });
    const whole = { kept: true, tbl: 'projects', row: 'p2.00000a', name: 'Errands', child: 'tasks', device: '00000000000000b2', deleteHlc: hlc, action: 'a3.00000a' };
    for (const bad of [
      { ...whole, tbl: 'sqlite_master' },
      { ...whole, child: 'x; DROP TABLE tasks' },
      { ...whole, device: '../../etc' },
      { ...whole, deleteHlc: 'not a stamp' },
      { ...whole, name: 'x'.repeat(5000) },
      { ...whole, row: 7 },
    ])
      expect(record(bad)).toBe(true);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_conflicts`).get()).toEqual({ n: 0 });
    expect(takeKeptRecord(db, { hlc, table: 'sync_conflicts', row: hlc, column: 'record', value: '{"kept":true,' })).toBe(true);
    expect(record(whole)).toBe(true);
    expect(db.prepare(`SELECT tbl, row, col FROM sync_conflicts`).all()).toEqual([{ tbl: 'projects', row: 'p2.00000a', col: '_kept' }]);
  });

  it('an undo that brings back a name another device has taken since: the row takes “Errands (Laptop)”, on either device, said in the report', async () => {
    const { dbs, sync } = await devices(2);
    const [laptop, desktop] = dbs as [Db, Db];
    const mine = okValue(createProject(laptop, userCtx(laptop), { name: 'Errands' }));
    const rename = renameProject(laptop, userCtx(laptop), { project: mine.id, name: 'Chores' });
    if (!rename.ok) throw new Error('setup failed');
    okValue(createProject(desktop, userCtx(desktop), { name: 'errands' }));
    for (const i of [0, 1, 0]) await sync(i);
    for (const [db, other] of [
      [laptop, desktop],
      [desktop, laptop],
    ] as const) {
      const r = okValue(undoAction(db, rename.actionId, { ctx: userCtx(db) }));
      expect(r.renamed).toEqual(['Project “Errands” is back as “Errands (Laptop)”: its name is taken now']);
      for (const i of [0, 1, 0, 1]) await sync(i);
      for (const d of [db, other]) {
        expect(d.prepare(`SELECT name FROM projects WHERE builtin = 0 ORDER BY name_key`).all()).toEqual([{ name: 'errands' }, { name: 'Errands (Laptop)' }]);
        expect(pending(d)).toBe(0);
      }
      expect(state(other)).toEqual(state(db));
      // and redone (the undo of that undo), from the other device
      okValue(undoAction(other, r.created[0]!, { ctx: userCtx(other) }));
      for (const i of [0, 1, 0, 1]) await sync(i);
      expect(db.prepare(`SELECT name FROM projects WHERE id = ?`).get(mine.id)).toEqual({ name: 'Chores' });
    }
  });

  it('a row deleted in one batch with the rows that point at it, parent first, is deleted, not kept', async () => {
    const { dbs } = await devices(1);
    const db = dbs[0]!;
    const p = okValue(createProject(db, userCtx(db), { name: 'Move' }));
    const t1 = okValue(addTask(db, userCtx(db), { content: 'boxes', project: p.id }));
    const t2 = okValue(addTask(db, userCtx(db), { content: 'tape', project: p.id, parent: t1.id }));
    // another device's undo of all three, its messages ordered parent first: each delete is blocked until the next is written
    const hlc = (n: number): string => `2099-01-01T12:00:00.000Z-000${n}-00000000000000b2`;
    applyMessages(
      db,
      [p.id, t1.id, t2.id].map((row, i) => ({ hlc: hlc(i), table: i === 0 ? 'projects' : 'tasks', row, column: '_exists', value: 0 })),
    );
    retryPending(db);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM projects WHERE id = ?`).get(p.id)).toEqual({ n: 0 });
    expect(db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE id IN (?, ?)`).get(t1.id, t2.id)).toEqual({ n: 0 });
    expect(pending(db)).toBe(0);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_conflicts`).get()).toEqual({ n: 0 });
  });
});
