// A large action (an import past its first INLINE_CHANGES changes) syncs its changes beside its row in a
// compact form (sync/action-rows.ts), so every device can undo and redo it: undo on B, redo on C (which
// started from a snapshot), all converge. One made without them (before schema 22) is still refused in one line.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getActionRow, importCalendar, listActions, redoAction, undoAction, undoRequest, updateTask, type Db } from '../../../src-main/core';
import { importTodoist, readTodoistFiles } from '../../../src-main/core/data';
import { keepInlineForTests } from '../../../src-main/core/actions/changes';
import { SYNCED_TABLES, syncedColumns } from '../../../src-main/core/store/sync-capture';
import { actionPages } from '../../../src-main/core/store/action-pages';
import { applyActionPage } from '../../../src-main/core/sync/action-rows';
import { runSync, setupSync, type TargetSpec } from '../../../src-main/core/sync/service';
import { BATCH_MESSAGES } from '../../../src-main/core/sync/batch';
import { BATCH_CHARS, StoreDevice } from '../../../src-main/core/sync/store-device';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { MAX_FILE_BYTES } from '../../../src-main/core/sync/targets/target';
import { syncRound } from '../../../src-main/core/sync/round';
import { bigIcs, imported, ok, pad } from '../../support/big-ics';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

const PASS = 'correct horse battery staple';
const INLINE = 5;

/** `n` events in 2035 (fixed dates); `title(i)` names event i, null leaves it out. */
const ics = (n: number, title: (i: number) => string | null): string => bigIcs(n, title, (i) => `203501${pad(1 + (i % 28))}`);
const rows = (db: Db): unknown[] => [
  ...db.prepare(`SELECT * FROM calendars WHERE name != 'Early' ORDER BY id`).all(),
  ...db.prepare(`SELECT e.* FROM events e JOIN calendars c ON c.id = e.calendar_id WHERE c.name != 'Early' ORDER BY e.id`).all(),
];
const log = (db: Db): unknown[] => db.prepare(`SELECT id, tool, spilled, undone_at, undoes FROM actions ORDER BY id`).all();

async function devices(n: number): Promise<{ dbs: Db[]; keys: Uint8Array[]; target: FolderTarget; sync: (i: number, snapshot?: boolean) => Promise<void> }> {
  const folder = tempDir();
  const spec: TargetSpec = { kind: 'folder', url: folder };
  const target = new FolderTarget(folder);
  const dbs: Db[] = [];
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const db = tempDb().db;
    if (i === 0) ok(importCalendar(db, userCtx(db), { fileName: 'early.ics', text: ics(INLINE + 3, (k) => `Early ${k}`).replace('CALNAME:Big', 'CALNAME:Early') }));
    keys.push((await setupSync(db, spec, PASS, { name: `Device ${i}`, kdf: FAST_KDF })).key);
    dbs.push(db);
  }
  const sync = async (i: number, snapshot = false): Promise<void> => {
    const r = await runSync(dbs[i]!, keys[i]!, target, { snapshot });
    expect(r.problems).toEqual([]);
    expect(r.pending).toBe(0);
  };
  // the first device's setup snapshot is written now: what follows travels in batches
  for (let i = 0; i < n; i++) await sync(i);
  return { dbs, keys, target, sync };
}

let restore: () => void = () => {};
beforeEach(() => {
  restore = keepInlineForTests(INLINE);
});
afterEach(() => restore());

describe('a large action, synced', () => {
  it('is undone on another device, redone on a third that started from a snapshot, and all converge', async () => {
    const { dbs, sync } = await devices(2);
    const [a, b] = dbs as [Db, Db];
    // (one made before sync was on travels in the first snapshot, once: no device sends it again)
    expect(a.prepare(`SELECT COUNT(*) AS n FROM sync_cells WHERE tbl = 'action_rows'`).get()).toEqual({ n: 1 });
    expect(new StoreDevice(a, new Uint8Array(32)).queueUnsentPages()).toBe(0);
    const first = imported(a, ics(30, (i) => `Meeting ${i}`));
    expect(getActionRow(a, first)!.spilled).toBe(31 - INLINE);
    const afterFirst = rows(a);
    await sync(0);
    await sync(1);
    expect(rows(b)).toEqual(afterFirst);
    // only (table, id) travelled for the imported rows: the rows themselves carry the rest
    expect(b.prepare(`SELECT COUNT(*) AS n FROM action_rows WHERE action_id = ? AND after_kept = 0 AND before IS NULL`).get(first)).toEqual({ n: 31 - INLINE });

    // A imports the file again, changed: events renamed and dropped, all among the first import's changes
    // beside its row (which B has without their after images)
    const changed = (i: number): string | null => (i % 10 === 7 ? null : i % 4 === 1 && i > INLINE ? `Moved ${i}` : `Meeting ${i}`);
    const second = imported(a, ics(32, changed));
    expect(getActionRow(a, second)!.spilled).toBeGreaterThan(0);
    const afterSecond = rows(a);
    await sync(0);
    await sync(1);
    expect(rows(b)).toEqual(afterSecond);

    // On B, the first import is under the second (which changed its rows beside it): refused, naming it
    const blocked = undoAction(b, first, { ctx: userCtx(b) });
    expect(blocked).toMatchObject({ ok: false, code: 'undo_blocked' });
    expect(!blocked.ok && blocked.error).toContain(second);
    // B undoes the re-import (updates and removals: their before images travelled), then the import
    ok(undoAction(b, second, { ctx: userCtx(b) }));
    expect(rows(b)).toEqual(afterFirst);
    await sync(1);
    await sync(0);
    expect(rows(a)).toEqual(afterFirst);
    ok(undoAction(b, first, { ctx: userCtx(b) }));
    const empty = rows(b);
    expect(rows(b)).toHaveLength(1); // the Personal calendar
    await sync(1);
    await sync(0, true); // A writes a snapshot: a device that joins now starts from it

    // C joins from that snapshot and redoes the first import: B's undo of it is redone from the images B sent
    const folderSpec = (a.prepare(`SELECT target_url FROM sync_state`).get() as { target_url: string }).target_url;
    const c = tempDb().db;
    const kc = (await setupSync(c, { kind: 'folder', url: folderSpec }, PASS, { name: 'Device 2', kdf: FAST_KDF })).key;
    const target = new FolderTarget(folderSpec);
    expect((await runSync(c, kc, target)).problems).toEqual([]);
    expect(rows(c)).toEqual(empty);
    ok(redoAction(c, first, { ctx: userCtx(c) }));
    expect(rows(c)).toEqual(afterFirst);
    expect((await runSync(c, kc, target)).problems).toEqual([]);
    await sync(0);
    await sync(1);
    expect(rows(a)).toEqual(afterFirst);
    expect(rows(b)).toEqual(afterFirst);
    expect(log(a)).toEqual(log(c));
    expect(log(b)).toEqual(log(c));
    expect(listActions(a, { limit: 1 })[0]).toMatchObject({ tool: 'undo', undoneAt: null });
  }, 60_000);

  it('on another device, counts every later change of a row it changed beside its row as one to undo first', async () => {
    const { dbs, sync } = await devices(2);
    const [a, b] = dbs as [Db, Db];
    const csv = ['TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE', ...Array.from({ length: 12 }, (_, i) => `task,Task ${i},,1,1,,,,en,UTC`)];
    const { requestId } = await importTodoist(a, ':memory:', readTodoistFiles('Chores.csv', Buffer.from(csv.join('\r\n'))));
    const last = (a.prepare(`SELECT id FROM tasks WHERE content = 'Task 11'`).get() as { id: string }).id;
    const edit = okValue(updateTask(a, userCtx(a), { task: last, content: 'Task 11, edited' }));
    const editAction = listActions(a, { limit: 1 })[0]!.id;
    expect(edit.content).toBe('Task 11, edited');
    await sync(0);
    await sync(1);
    // the task is among the import's changes beside its row: B has no after image of it, so the edit blocks
    const blocked = undoRequest(b, requestId, { ctx: userCtx(b) });
    expect(blocked).toMatchObject({ ok: false, code: 'undo_blocked' });
    expect(!blocked.ok && blocked.error).toContain(editAction);
    ok(undoRequest(b, requestId, { ctx: userCtx(b), cascade: true }));
    expect(b.prepare(`SELECT COUNT(*) AS n FROM tasks`).get()).toEqual({ n: 0 });
    await sync(1);
    await sync(0);
    expect(a.prepare(`SELECT COUNT(*) AS n FROM tasks`).get()).toEqual({ n: 0 });
  }, 30_000);

  it('made by an older Tidy without its changes beside it synced: refused elsewhere in one line, until its device syncs with this Tidy', async () => {
    const { dbs, keys, target, sync } = await devices(2);
    const [a, b] = dbs as [Db, Db];
    const first = imported(a, ics(12, (i) => `Meeting ${i}`));
    // what a Tidy before schema 22 sent: the rows and the action row, not its changes beside it
    a.prepare(`DELETE FROM sync_outbox WHERE tbl = 'action_rows'`).run();
    expect((await syncRound(new StoreDevice(a, keys[0]!), target)).problems).toEqual([]);
    await sync(1);
    const before = rows(b);
    const r = undoAction(b, first, { ctx: userCtx(b) });
    expect(r).toMatchObject({ ok: false, code: 'refused', hint: 'undo it on the device it was made on, or in that database' });
    expect(!r.ok && r.error).toBe(`can't undo ${first} (${getActionRow(b, first)!.summary}): it changed 13 rows, and the record of most of them is kept only in the database it was made in`);
    expect(rows(b)).toEqual(before);
    // its device, with this Tidy, sends them at its next round (once), and B undoes it
    await sync(0);
    await sync(1);
    expect(a.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get()).toEqual({ n: 0 });
    // (had one page of them not arrived yet, B would say so)
    b.exec('SAVEPOINT partly');
    b.prepare(`DELETE FROM action_rows WHERE action_id = ? AND n = 0`).run(first);
    expect(undoAction(b, first, { ctx: userCtx(b) })).toMatchObject({ ok: false, code: 'refused', error: expect.stringMatching(/the record of 1 of them has not arrived here yet$/), hint: 'sync again, or undo it on the device it was made on' });
    b.exec('ROLLBACK TO partly');
    b.exec('RELEASE partly');
    ok(undoAction(b, first, { ctx: userCtx(b) }));
    await sync(1);
    await sync(0);
    expect(rows(a)).toEqual(rows(b));
    expect(rows(a).length).toBe(1); // the Personal calendar
    expect(new StoreDevice(a, keys[0]!).queueUnsentPages()).toBe(0);
  }, 30_000);

  it('sends many pages in several batches of a bounded size', async () => {
    const { dbs } = await devices(1);
    const a = dbs[0]!;
    const queue = a.prepare(`INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (0, 'action_rows', 'a1.abcdef', ?, ?)`);
    const page = 'x'.repeat(300);
    for (let k = 0; k < 10; k++) queue.run(`p${k}`, page);
    const device = new StoreDevice(a, new Uint8Array(32));
    expect(device.unsent(BATCH_MESSAGES, 1_000).map((m) => m.column)).toEqual(['p0', 'p1', 'p2']);
    // one value over the bound still goes, alone
    expect(device.unsent(BATCH_MESSAGES, 100).map((m) => m.column)).toEqual(['p0']);
    expect(device.unsent(BATCH_MESSAGES)).toHaveLength(10);
    expect(BATCH_CHARS).toBeLessThan(MAX_FILE_BYTES / 2);
  });

  it('takes only well-formed pages: anything else is refused or waits, and writes nothing', () => {
    const { db } = tempDb();
    const schema = new Map(SYNCED_TABLES.map((t) => [t, new Map(syncedColumns(db, t).map((c) => [c, true]))]));
    const columnsOf = (t: string): Map<string, unknown> | undefined => schema.get(t);
    const take = (column: string, value: unknown): string => applyActionPage(db, 'a1.abcdef', column, value, columnsOf);
    const page = (entries: unknown[], first = 0): string => JSON.stringify([first, entries]);
    const refused: [string, unknown][] = [
      ['p0', 'not json'],
      ['p0', 42],
      ['x0', page([['events', 'e1']])],
      ['p01', page([['events', 'e1']])],
      ['p0', JSON.stringify({ first: 0 })],
      ['p0', page([])],
      ['p0', page([['events', 'e1']], 2 ** 60)],
      ['p0', page([['events', 'e1']], 0.5)],
      ['p0', page([['events; DROP TABLE tasks', 'e1']])],
      ['p0', page([['actions', 'a1']])],
      ['p0', page([['events', '']])],
      ['p0', page([['events', 'e'.repeat(129)]])],
      ['p0', page([['events', 'e1', { id: 'e2', title: 'x' }]])],
      ['p0', page([['events', 'e1', { id: 'e1', title: { nested: true } }]])],
      ['p0', page([['events', 'e1', { id: 'e1', _exists: 1 }]])],
      ['p0', page([['events', 'e1', [1, 2]]])],
      ['p0', page([['events', 'e1', null, 1]])],
      ['p0', page([['events', 'e1', null, 0, 'more']])],
      ['p0', page(Array.from({ length: 5_001 }, (_, i) => ['events', `e${i}`]))],
      ['p0', `[0,${'['.repeat(100_000)}${']'.repeat(100_000)}]`],
    ];
    for (const [column, value] of refused) expect(take(column, value), `${column} ${String(value).slice(0, 80)}`).toBe('refused');
    // a column this schema does not have (a newer Tidy's): waits for an update
    expect(take('p0', page([['events', 'e1', { id: 'e1', newer_column: 1 }]]))).toBe('unknown');
    expect(take('p0', page([['gadgets', 'g1']]))).toBe('unknown');
    expect(db.prepare(`SELECT COUNT(*) AS n FROM action_rows`).get()).toEqual({ n: 0 });
    // a good page is written once, however often it comes, and reads back as it was sent
    const good = page([['events', 'e1'], ['events', 'e2', { id: 'e2', title: 'Before' }], ['events', 'e3', { id: 'e3', title: 'Gone' }, 0]], 7);
    expect(take('p0', good)).toBe('ok');
    expect(take('p0', good)).toBe('ok');
    expect(db.prepare(`SELECT n, tbl, row_id, before, after, after_kept FROM action_rows ORDER BY n`).all()).toEqual([
      { n: 7, tbl: 'events', row_id: 'e1', before: null, after: null, after_kept: 0 },
      { n: 8, tbl: 'events', row_id: 'e2', before: '{"id":"e2","title":"Before"}', after: null, after_kept: 0 },
      { n: 9, tbl: 'events', row_id: 'e3', before: '{"id":"e3","title":"Gone"}', after: null, after_kept: 1 },
    ]);
    expect([...actionPages(db, 'a1.abcdef')]).toEqual([{ column: 'p0', value: good }]);
  });
});
