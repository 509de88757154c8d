// Migration 11: actions carry `what` (verb, kind, id, name, count, reverses). A log written by schema 10
// (no `what`) reads the same after the migration, with `what` written from the operation, the rows it
// changed and the undo chain, and its entries still undo and redo.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addListItem,
  addTask,
  checkListItem,
  completeTask,
  createProject,
  getTask,
  importCalendar,
  listActions,
  makeList,
  moveTask,
  openDatabase,
  recordAction,
  redoRequest,
  renameProject,
  undoAction,
  undoRequest,
  type Db,
} from '../../../src-main/core';
import { backfillActionWhat, LATEST_VERSION, migrations } from '../../../src-main/core/store/migrations';
import { okValue, tempDir, userCtx } from '../../support/db';

const ICS = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', 'UID:e1@test', 'DTSTAMP:20200101T000000Z', 'DTSTART:20350301T090000Z', 'DTEND:20350301T100000Z', 'SUMMARY:Dentist', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

/** Actions of every shape: changes, a rename, an item checked and unchecked, an import, an undo and a redo, a tool outside Tidy. */
function writeLog(db: Db): void {
  const p = okValue(createProject(db, userCtx(db), { name: 'Home' }));
  const t = okValue(addTask(db, userCtx(db), { content: 'Buy milk', project: p.id }));
  okValue(moveTask(db, userCtx(db), { task: t.id, project: 'inbox' }));
  okValue(renameProject(db, userCtx(db), { project: p.id, name: 'House' }));
  const l = okValue(makeList(db, userCtx(db), { name: 'Shopping' }));
  const i = okValue(addListItem(db, userCtx(db), { list: l.id, text: 'Eggs' }));
  okValue(checkListItem(db, userCtx(db), { list: l.id, item: i.id, checked: true }));
  okValue(checkListItem(db, userCtx(db), { list: l.id, item: i.id, checked: false }));
  const ctx = userCtx(db);
  okValue(completeTask(db, ctx, { task: t.id }));
  okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) })); // undid the completion
  okValue(redoRequest(db, ctx.requestId, { ctx: userCtx(db) })); // redid it
  okValue(importCalendar(db, userCtx(db), { fileName: 'dentist.ics', text: ICS }));
  db.transaction(() =>
    recordAction(db, { requestId: 'r9', source: 'agent' }, { tool: 'files__write', args: {}, summary: 'Ran write on the MCP server files (cannot be undone)', what: { verb: 'ran', kind: null, id: null, name: 'write', count: 1, reverses: null } }, []),
  )();
}

/**
 * The log as schema 10 left it: the same rows with no `what`. (The rows are written by today's code, whose
 * tasks have schema 12's columns, so the file stays at today's schema and `what` is emptied; the second test
 * opens a real schema-10 file.) Then the backfill that migration 11 runs.
 */
function backfillAsSchema10(path: string): void {
  const db = openDatabase(path);
  db.exec(`UPDATE actions SET what = NULL`);
  backfillActionWhat(db);
  db.close();
}

describe('migration 11: actions say what they did as data', () => {
  it('writes the same `what` for a schema-10 log as the code writes today, keeps the summaries, and the entries still undo and redo', () => {
    const path = join(tempDir(), 'tidy.db');
    const live = openDatabase(path);
    writeLog(live);
    const expected = listActions(live, { limit: 1000 });
    live.close();
    backfillAsSchema10(path);

    const db = openDatabase(path);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    const after = listActions(db, { limit: 1000 });
    expect(after).toEqual(expected);
    const by = new Map(after.map((a) => [a.tool === 'undo' ? `${a.tool}:${a.what.verb}` : a.tool, a]));
    expect(by.get('create_project')!.what).toEqual({ verb: 'created', kind: 'project', id: expect.stringMatching(/^p\d+$/), name: 'Home', count: 1, reverses: null });
    expect(by.get('rename_project')!.what).toMatchObject({ verb: 'renamed', kind: 'project', name: 'House' });
    expect(by.get('move_task')!.what).toMatchObject({ verb: 'moved', kind: 'task', name: 'Buy milk' });
    expect(after.filter((a) => a.tool === 'check_list_item').map((a) => a.what.verb)).toEqual(['unchecked', 'checked']);
    expect(by.get('import_calendar')!.what).toMatchObject({ verb: 'imported', kind: 'calendar', count: 1 });
    expect(by.get('files__write')!.what).toEqual({ verb: 'ran', kind: null, id: null, name: 'write', count: 1, reverses: null });
    const completed = by.get('complete_task')!;
    const undid = by.get('undo:undid')!;
    const redid = by.get('undo:redid')!;
    expect(undid.what).toEqual({ ...completed.what, verb: 'undid', reverses: completed.id });
    expect(redid.what).toEqual({ ...completed.what, verb: 'redid', reverses: undid.id });
    expect(undid.summary).toBe(`Undid: ${completed.summary}`); // old summaries are kept for display

    // Still undoes and redoes, and the new entries follow the chain.
    const t = by.get('add_task')!.what.id!;
    expect(getTask(db, t).status).toBe('done');
    const again = okValue(undoAction(db, redid.id, { ctx: userCtx(db) }));
    expect(again.reversed[0]).toMatchObject({ id: redid.id, what: { verb: 'redid' }, subject: completed.summary });
    expect(getTask(db, t).status).toBe('open');
    const newest = listActions(db, { limit: 1 })[0]!;
    expect(newest.what).toEqual({ ...completed.what, verb: 'undid', reverses: redid.id });
    okValue(undoAction(db, newest.id, { ctx: userCtx(db) }));
    expect(getTask(db, t).status).toBe('done');
    expect(listActions(db, { limit: 1 })[0]!.what.verb).toBe('redid');
    const move = by.get('move_task')!;
    const cascaded = okValue(undoRequest(db, move.requestId, { ctx: userCtx(db), cascade: true }));
    expect(cascaded.reversed.map((r) => r.what.verb)).toEqual(['completed', 'moved']); // the completion first, then the move
    expect(getTask(db, t)).toMatchObject({ status: 'open', projectId: by.get('create_project')!.what.id });
    db.close();
  });

  it('reads a log whose rows hold damaged JSON as changes of no kind, and leaves no row without `what`', () => {
    const path = join(tempDir(), 'tidy.db');
    const old = openDatabase(path, { migrations: migrations.slice(0, 10) });
    const log = old.prepare(`INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at, undoes) VALUES (?, 'u1', 'user', ?, '{}', ?, ?, '2020-01-01T00:00:00.000Z', ?)`);
    log.run('a1', 'move_task', '{not json', 'Moved', null);
    log.run('a2', 'undo', '[{"table":"tasks"}]', 'Undid: Moved', 'a1'); // undoes the damaged one
    log.run('a3', 'some_future_tool', JSON.stringify([{ table: 'tasks', id: 't1', before: null, after: { id: 't1', content: 'x'.repeat(100_000) } }]), 'Did', null);
    old.close();
    const db = openDatabase(path);
    expect(db.prepare(`SELECT count(*) FROM actions WHERE what IS NULL`).pluck().get()).toBe(0);
    const [a3, a2, a1] = listActions(db);
    expect(a1!.what).toEqual({ verb: 'moved', kind: 'task', id: null, name: null, count: 1, reverses: null });
    expect(a2!.what).toEqual({ verb: 'undid', kind: 'task', id: null, name: null, count: 1, reverses: 'a1' });
    expect(a3!.what).toMatchObject({ verb: 'changed', kind: 'task', id: 't1', count: 1 });
    // A value written by hand that is not a `what` reads as a change of no kind.
    db.prepare(`UPDATE actions SET what = '{"verb":"exploded"}' WHERE id = 'a1'`).run();
    db.prepare(`UPDATE actions SET what = 'nonsense' WHERE id = 'a3'`).run();
    expect(listActions(db).map((a) => a.what.verb)).toEqual(['changed', 'undid', 'changed']);
    db.close();
  });
});
