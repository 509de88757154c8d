// Property tests of the action log: whatever users and the agent do, undo restores exactly, or refuses
// and changes nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as core from '../../../src-main/core';
import { changesOf, getActionRow } from '../../../src-main/core/actions/log';
import { readRow } from '../../../src-main/core/actions/changes';
import type { Db } from '../../../src-main/core';
import { snapshot } from '../../support/db';

const names = fc.constantFrom('Work', 'work', 'Home', 'Ärger', 'ärger', 'Inbox', 'Birthday', ' ');
const texts = fc.constantFrom('milk', 'Bake the cake', 'x', 'write talk', '', 'ünïcödé');
const idx = fc.nat({ max: 20 });

const mutation = fc.oneof(
  fc.record({ k: fc.constant('createProject'), name: names }),
  fc.record({ k: fc.constant('renameProject'), p: idx, name: names }),
  fc.record({ k: fc.constant('archiveProject'), p: idx }),
  fc.record({ k: fc.constant('unarchiveProject'), p: idx }),
  fc.record({ k: fc.constant('addTask'), text: texts, p: fc.option(idx, { nil: undefined }) }),
  fc.record({ k: fc.constant('addTask'), text: texts, p: fc.option(idx, { nil: undefined }) }),
  fc.record({ k: fc.constant('updateTask'), t: idx, text: fc.option(texts, { nil: undefined }), priority: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }) }),
  fc.record({ k: fc.constant('moveTask'), t: idx, p: idx }),
  fc.record({
    k: fc.constant('scheduleTask'),
    t: idx,
    due: fc.option(fc.constantFrom('2026-11-20', '2026-11-23T09:00', '2027-01-31', 'tomorrow', 'not a date', ''), { nil: undefined }),
    recurrence: fc.option(fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO', 'every 2 weeks', 'every weekday', 'FREQ=MONTHLY', 'none', 'bogus'), { nil: undefined }),
  }),
  fc.record({ k: fc.constant('reorderTask'), t: idx, before: fc.option(idx, { nil: null }) }),
  fc.record({ k: fc.constant('snoozeTask'), t: idx, minutes: fc.constantFrom(1, 10, 60, 0) }),
  fc.record({ k: fc.constantFrom('completeTask', 'reopenTask', 'archiveTask'), t: idx }),
  fc.record({ k: fc.constant('makeList'), name: names }),
  fc.record({ k: fc.constant('renameList'), l: idx, name: names }),
  fc.record({ k: fc.constant('archiveList'), l: idx }),
  fc.record({ k: fc.constant('addItem'), l: idx, text: texts }),
  fc.record({ k: fc.constant('editItem'), l: idx, i: idx, text: texts }),
  fc.record({ k: fc.constant('checkItem'), l: idx, i: idx, checked: fc.boolean() }),
  fc.record({ k: fc.constant('archiveItem'), l: idx, i: idx }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

const undoStep = fc.record({ k: fc.constant('undo' as const), pick: fc.nat(), cascade: fc.boolean() });

function ids(db: Db, table: string): string[] {
  return (db.prepare(`SELECT id FROM ${table} ORDER BY rowid`).all() as { id: string }[]).map((r) => r.id);
}
const pick = (list: string[], i: number): string => (list.length ? list[i % list.length]! : 'none');

/** Applies one generated mutation through the public domain API. */
function apply(db: Db, op: Mutation, ctx: core.ActionContext = core.newUserRequest(db)): core.Mutated<unknown> {
  const p = (i: number) => pick(ids(db, 'projects'), i);
  const t = (i: number) => pick(ids(db, 'tasks'), i);
  const l = (i: number) => pick(ids(db, 'lists'), i);
  const item = (listRef: string, i: number) => pick((db.prepare(`SELECT id FROM list_items WHERE list_id = ? ORDER BY rowid`).all(listRef) as { id: string }[]).map((r) => r.id), i);
  switch (op.k) {
    case 'createProject': return core.createProject(db, ctx, { name: op.name });
    case 'renameProject': return core.renameProject(db, ctx, { project: p(op.p), name: op.name });
    case 'archiveProject': return core.archiveProject(db, ctx, { project: p(op.p) });
    case 'unarchiveProject': return core.unarchiveProject(db, ctx, { project: p(op.p) });
    case 'addTask': return core.addTask(db, ctx, { content: op.text, project: op.p === undefined ? undefined : p(op.p) });
    case 'updateTask': return core.updateTask(db, ctx, { task: t(op.t), content: op.text, priority: op.priority });
    case 'moveTask': return core.moveTask(db, ctx, { task: t(op.t), project: p(op.p) });
    case 'scheduleTask': return core.updateTask(db, ctx, { task: t(op.t), due: op.due, recurrence: op.recurrence });
    case 'reorderTask': return core.reorderTask(db, ctx, { task: t(op.t), before: op.before === null ? null : t(op.before) });
    case 'snoozeTask': return core.snoozeTask(db, ctx, { task: t(op.t), minutes: op.minutes });
    case 'completeTask': return core.completeTask(db, ctx, { task: t(op.t) });
    case 'reopenTask': return core.reopenTask(db, ctx, { task: t(op.t) });
    case 'archiveTask': return core.archiveTask(db, ctx, { task: t(op.t) });
    case 'makeList': return core.makeList(db, ctx, { name: op.name });
    case 'renameList': return core.renameList(db, ctx, { list: l(op.l), name: op.name });
    case 'archiveList': return core.archiveList(db, ctx, { list: l(op.l) });
    case 'addItem': return core.addListItem(db, ctx, { list: l(op.l), text: op.text });
    case 'editItem': return core.editListItem(db, ctx, { list: l(op.l), item: item(l(op.l), op.i), text: op.text });
    case 'checkItem': return core.checkListItem(db, ctx, { list: l(op.l), item: item(l(op.l), op.i), checked: op.checked });
    case 'archiveItem': return core.archiveListItem(db, ctx, { list: l(op.l), item: item(l(op.l), op.i) });
  }
}

const actionsTable = (db: Db) => db.prepare(`SELECT * FROM actions ORDER BY seq`).all();
const fkProblems = (db: Db) => db.prepare(`PRAGMA foreign_key_check`).all();

// Hundreds of generated histories, each on a fresh database: seconds of work that a machine busy with other
// jobs can stretch past the default 30 s. These check correctness, not speed (bench/ measures that).
describe('action log properties', { timeout: 180_000 }, () => {
  it('completing a repeating task rolls its due date on in one action, and undo gives back exactly the row before', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', 'FREQ=MONTHLY', 'FREQ=YEARLY', 'FREQ=DAILY;INTERVAL=3'),
        fc.constantFrom('2020-02-29', '2026-11-23', '2026-11-23T09:00', '2030-01-31', '2026-12-31T23:59'),
        fc.nat({ max: 3 }),
        (recurrence, due, others) => {
          const db = core.openDatabase(':memory:');
          try {
            for (let i = 0; i < others; i++) core.addTask(db, core.newUserRequest(db), { content: `other ${i}` });
            const task = core.addTask(db, core.newUserRequest(db), { content: 'repeat', due, recurrence });
            if (!task.ok) throw new Error(task.error);
            const before = snapshot(db);
            const logBefore = actionsTable(db).length;
            const done = core.completeTask(db, core.newUserRequest(db), { task: task.value.id });
            if (!done.ok) throw new Error(done.error);
            // Still open, due later than before and later than today, at the same time of day; one action.
            expect(done.value.status).toBe('open');
            expect(done.value.due! > due).toBe(true);
            expect(done.value.due!.slice(0, 10) > core.localDate()).toBe(true);
            expect(done.value.due!.slice(10)).toBe(due.slice(10));
            expect(done.value.completedAt).not.toBeNull();
            expect(actionsTable(db)).toHaveLength(logBefore + 1);
            const undo = core.undoAction(db, done.actionId, { ctx: core.newUserRequest(db) });
            if (!undo.ok) throw new Error(undo.error);
            expect(snapshot(db)).toEqual(before);
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('any sequence of changes, undone newest first, gives back exactly the starting data', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 40 }), (ops) => {
        const db = core.openDatabase(':memory:');
        try {
          const start = snapshot(db);
          const done: string[] = [];
          for (const op of ops) {
            const before = snapshot(db);
            const logBefore = actionsTable(db).length;
            const r = apply(db, op);
            if (r.ok) done.push(r.actionId);
            else {
              // A refused change leaves no trace at all.
              expect(snapshot(db)).toEqual(before);
              expect(actionsTable(db)).toHaveLength(logBefore);
              expect(r.hint.length).toBeGreaterThan(0);
            }
          }
          for (const id of done.reverse()) {
            const r = core.undoAction(db, id, { ctx: core.newUserRequest(db) });
            if (!r.ok) throw new Error(`undo ${id} refused: ${r.error}`);
          }
          expect(snapshot(db)).toEqual(start);
          expect(fkProblems(db)).toEqual([]);
        } finally {
          db.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a whole request undone at once gives back exactly the data before it, and redoing it gives back the data after', () => {
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 10 }), fc.array(mutation, { minLength: 1, maxLength: 30 }), (setup, ops) => {
        const db = core.openDatabase(':memory:');
        try {
          for (const op of setup) apply(db, op);
          const before = snapshot(db);
          const runId = 'r1';
          for (const op of ops) apply(db, op, { requestId: runId, source: 'agent' });
          const after = snapshot(db);
          const anyDone = (db.prepare(`SELECT count(*) AS n FROM actions WHERE request_id = ?`).get(runId) as { n: number }).n > 0;
          const undoCtx = core.newUserRequest(db);
          const r = core.undoRequest(db, runId, { ctx: undoCtx });
          if (!anyDone) {
            expect(r.ok).toBe(false);
            return;
          }
          if (!r.ok) throw new Error(r.error);
          expect(snapshot(db)).toEqual(before);
          const redo = core.undoRequest(db, undoCtx.requestId, { ctx: core.newUserRequest(db) });
          if (!redo.ok) throw new Error(redo.error);
          expect(snapshot(db)).toEqual(after);
        } finally {
          db.close();
        }
      }),
      { numRuns: 100 },
    );
  });

  it('undoing any single action (or undo, or redo) either restores exactly what it changed or refuses and changes nothing', () => {
    const seen = { undone: 0, refused: 0, cascaded: 0 };
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 3, arbitrary: mutation }, { weight: 2, arbitrary: undoStep }), { minLength: 5, maxLength: 60 }), (steps) => {
        const db = core.openDatabase(':memory:');
        try {
          for (const step of steps) {
            if (step.k !== 'undo') {
              apply(db, step);
              continue;
            }
            const all = actionsTable(db) as { id: string }[];
            if (all.length === 0) continue;
            const target = all[step.pick % all.length]!.id;
            const before = snapshot(db);
            const logBefore = actionsTable(db);
            const r = core.undoAction(db, target, { ctx: core.newUserRequest(db), cascade: step.cascade });
            if (r.ok) {
              seen.undone++;
              if (r.value.reversed.length > 1) seen.cascaded++;
              // The target's rows are back to their images from before it; the log grew by one entry per reversal.
              // (a row whose old name is taken now comes back under another, which the report says: otherwise exactly)
              for (const c of changesOf(getActionRow(db, target)!)) {
                const now = readRow(db, c.table, c.id);
                const said = (r.value.renamed ?? []).some((line) => c.before && now && line.includes(`“${String(c.before['name'])}” is back as “${String(now['name'])}”`));
                if (said && c.before && now) expect({ ...now, name: c.before['name'], name_key: c.before['name_key'] }).toEqual(c.before);
                else expect(now).toEqual(c.before);
              }
              expect(actionsTable(db)).toHaveLength(logBefore.length + r.value.reversed.length);
              expect(r.value.reversed.at(-1)!.id).toBe(target);
              if (!step.cascade) {
                const touched = new Set(changesOf(getActionRow(db, target)!).map((c) => `${c.table}:${c.id}`));
                const now = snapshot(db);
                for (const table of Object.keys(before)) {
                  const untouched = (rows: unknown[]) => (rows as { id?: string }[]).filter((row) => !touched.has(`${table}:${row.id}`));
                  expect(untouched(now[table]!)).toEqual(untouched(before[table]!));
                }
              }
            } else {
              seen.refused++;
              expect(snapshot(db)).toEqual(before);
              expect(actionsTable(db)).toEqual(logBefore);
            }
            expect(fkProblems(db)).toEqual([]);
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 300 },
    );
    // The generated histories really exercise all three outcomes.
    expect(seen.undone).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(20);
    expect(seen.cascaded).toBeGreaterThan(5);
  });
});
