// Redo after "Undo all" on an organise request: every refusal's recommended action must work (the
// blocker check names the later change to undo first, and --cascade does it), and no sequence of
// undo / redo / cascade loops or leaves the data half-done.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addTask, createProject, openDatabase, listActions, moveTask, redoAction, redoRequest, undoAction, undoRequest, type ActionContext, type Db } from '../../../src-main/core';
import { readRow, type Row } from '../../../src-main/core/actions/changes';
import { changesOf, getActionRow, type ActionRow } from '../../../src-main/core/actions/log';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

const run: ActionContext = { requestId: 'r1', source: 'agent' };

/** Three tasks in the inbox, then an organise request r1: create project Family, move the three into it. */
function seeded(memory = false): { db: Db; tasks: string[]; before: ReturnType<typeof snapshot>; after: ReturnType<typeof snapshot>; originals: string[] } {
  const db = memory ? openDatabase(':memory:') : tempDb().db;
  const tasks = ['Buy milk', 'Call mum', 'Book dentist'].map((content) => okValue(addTask(db, userCtx(db), { content })).id);
  const before = snapshot(db);
  const originals: string[] = [];
  const p = createProject(db, run, { name: 'Family' });
  if (!p.ok) throw new Error(p.error);
  originals.push(p.actionId);
  for (const t of tasks) {
    const m = moveTask(db, run, { task: t, project: 'Family' });
    if (!m.ok) throw new Error(m.error);
    originals.push(m.actionId);
  }
  return { db, tasks, before, after: snapshot(db), originals };
}

describe('redo of one change after undoing the whole request', () => {
  it('names the undo of the project as the change to undo first, and --cascade puts the project back, then the move', () => {
    const { db, originals } = seeded();
    okValue(undoRequest(db, 'r1', { ctx: userCtx(db) }));
    const move = originals[1]!;
    const createUndo = listActions(db, { limit: 1 })[0]!; // "Undid: Created project 'Family'", the last undo
    expect(createUndo.summary).toBe("Undid: Created project 'Family'");
    const r = redoAction(db, move, { ctx: userCtx(db) });
    expect(r).toMatchObject({ ok: false, code: 'undo_blocked' });
    if (r.ok) return;
    expect(r.error).toContain(createUndo.id);
    expect(r.hint).toContain(`undo ${createUndo.id} first`);
    expect((r as { details?: { blockers: { id: string }[] } }).details?.blockers.map((b) => b.id)).toEqual([createUndo.id]);
    // The recommended action works: redo with cascade (the window's "Redo, undoing later changes", tidy undo <undo id> --cascade).
    const done = okValue(redoAction(db, move, { ctx: userCtx(db), cascade: true }));
    expect(done.reversed.map((x) => x.summary)).toEqual(["Undid: Created project 'Family'", "Undid: Moved 'Buy milk' to Family"]);
    expect(getActionRow(db, originals[0]!)!.undone_at).toBeNull();
    expect(getActionRow(db, move)!.undone_at).toBeNull();
    expect(getActionRow(db, originals[2]!)!.undone_at).not.toBeNull();
    // And then redoing the rest of the request finishes it.
    okValue(redoRequest(db, 'r1', { ctx: userCtx(db) }));
  });

  it('also works as undo of the undo entry itself (tidy undo <id> --cascade)', () => {
    const { db, originals, after } = seeded();
    okValue(undoRequest(db, 'r1', { ctx: userCtx(db) }));
    const undoOfMove = (db.prepare(`SELECT id FROM actions WHERE undoes = ?`).get(originals[3]!) as { id: string }).id;
    expect(undoAction(db, undoOfMove, { ctx: userCtx(db) })).toMatchObject({ ok: false, code: 'undo_blocked' });
    okValue(undoAction(db, undoOfMove, { ctx: userCtx(db), cascade: true }));
    okValue(redoRequest(db, 'r1', { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(after);
  });
});

type Step =
  | { k: 'undoAction'; pick: number; cascade: boolean }
  | { k: 'redoAction'; pick: number; cascade: boolean }
  | { k: 'undoRequest'; cascade: boolean }
  | { k: 'redoRequest'; cascade: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant('undoAction' as const), pick: fc.nat(), cascade: fc.boolean() }),
  fc.record({ k: fc.constant('redoAction' as const), pick: fc.nat(), cascade: fc.boolean() }),
  fc.record({ k: fc.constant('undoRequest' as const), cascade: fc.boolean() }),
  fc.record({ k: fc.constant('redoRequest' as const), cascade: fc.boolean() }),
);

type Outcome = { ok: true } | { ok: false; code?: string; error: string; hint: string; details?: unknown };

function perform(db: Db, s: Step, originals: string[], cascade: boolean): Outcome {
  const ctx = userCtx(db);
  switch (s.k) {
    case 'undoAction': {
      // Any entry of the log: an original, an undo, a redo.
      const all = (db.prepare(`SELECT id FROM actions WHERE request_id = 'r1' OR undoes IS NOT NULL ORDER BY seq`).all() as { id: string }[]).map((r) => r.id);
      return undoAction(db, all[s.pick % all.length]!, { ctx, cascade });
    }
    case 'redoAction':
      return redoAction(db, originals[s.pick % originals.length]!, { ctx, cascade });
    case 'undoRequest':
      return undoRequest(db, 'r1', { ctx, cascade });
    case 'redoRequest':
      return redoRequest(db, 'r1', { ctx, cascade });
  }
}

/** Each original of r1 is either fully in effect (its rows as it left them) or fully undone (as it found them). */
function consistent(db: Db, originals: string[]): void {
  for (const id of originals) {
    const row = getActionRow(db, id) as ActionRow;
    for (const c of changesOf(row)) {
      const now = readRow(db, c.table, c.id);
      const want: Row | null = row.undone_at === null ? c.after : c.before;
      expect({ action: row.summary, undone: row.undone_at !== null, row: now }).toEqual({ action: row.summary, undone: row.undone_at !== null, row: want });
    }
  }
}

describe('undo / redo / cascade sequences over an organise request (property)', { timeout: 180_000 }, () => {
  it('never refuse with advice that fails, never change data on a refusal, and keep every change all-in or all-out', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const { db, originals, before, after } = seeded(true);
        try {
          for (const s of steps) {
            const was = snapshot(db);
            const count = listActions(db).length;
            const r = perform(db, s, originals, s.cascade);
            if (!r.ok) {
              expect(snapshot(db)).toEqual(was);
              expect(listActions(db)).toHaveLength(count);
              // Blocked without cascade: the refusal names what blocks it, and the recommended --cascade works.
              if (r.code === 'undo_blocked') {
                expect(s.cascade, `${r.error} even with cascade`).toBe(false);
                expect((r.details as { blockers: unknown[] }).blockers.length, r.error).toBeGreaterThan(0);
                const again = perform(db, s, originals, true);
                expect(again.ok ? 'ok' : `${again.error} (${again.hint})`).toBe('ok');
              } else {
                expect(['already_undone', 'refused']).toContain(r.code);
              }
            }
            consistent(db, originals);
          }
          // From wherever it got to, the request can always be undone in full and redone in full.
          const u = undoRequest(db, 'r1', { ctx: userCtx(db), cascade: true });
          if (!u.ok) expect(u.code).toBe('already_undone');
          expect(snapshot(db)).toEqual(before);
          okValue(redoRequest(db, 'r1', { ctx: userCtx(db), cascade: true }));
          expect(snapshot(db)).toEqual(after);
        } finally {
          db.close();
        }
      }),
      { numRuns: Number(process.env['TIDY_PROPERTY_RUNS'] ?? 100) },
    );
  });
});
