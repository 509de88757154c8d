// A large action (an .ics import of thousands of events) keeps only its first changes in its own JSON value
// and the rest in action_rows (src-main/core/actions/changes.ts): the log row stays small, and undo, redo
// and the undo of a re-import still restore the exact rows.
import { describe, expect, it } from 'vitest';
import { getActionRow, importCalendar, listActions, redoAction, undoAction } from '../../../src-main/core';
import { INLINE_CHANGES } from '../../../src-main/core/actions/changes';
import { bigIcs, imported, ok, pad } from '../../support/big-ics';
import { snapshot, tempDb, userCtx } from '../../support/db';

const N = INLINE_CHANGES + 500;

/** `n` events from 2020 on (fixed dates), each with a 300-character description; `title(i)` names event i, null leaves it out. */
function ics(n: number, title: (i: number) => string | null): string {
  const day = (i: number): string => {
    const d = new Date(Date.UTC(2020, 0, 1) + (i % 2000) * 86_400_000);
    return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  };
  return bigIcs(n, title, day, 'Agenda and notes. '.repeat(17).slice(0, 300));
}

describe('a large action', () => {
  it('keeps its log row small, and undo, redo and the undo of a re-import restore the exact rows', () => {
    const { db } = tempDb();
    const empty = snapshot(db);
    const first = imported(db, ics(N, (i) => `Meeting ${i}`));
    const afterFirst = snapshot(db);
    expect(afterFirst['events']).toHaveLength(N);

    // The action's own JSON holds its first changes only; the rest (the calendar and N events in all) are beside it.
    const row = getActionRow(db, first)!;
    expect(JSON.parse(row.changes)).toHaveLength(INLINE_CHANGES);
    expect(row.spilled).toBe(N + 1 - INLINE_CHANGES);
    expect(row.changes.length).toBeLessThan(INLINE_CHANGES * 1_000);
    // The log shows it as one action, not as a call outside Tidy.
    expect(listActions(db, { limit: 1 })[0]).toMatchObject({ id: first, summary: `Imported calendar 'Big' from big.ics (${N} events)` });
    expect(listActions(db, { limit: 1 })[0]!.external).toBeUndefined();

    // Undo, then redo, then undo again: each time exactly the rows before.
    const undone = undoAction(db, first, { ctx: userCtx(db) });
    ok(undone);
    expect(snapshot(db)).toEqual(empty);
    ok(redoAction(db, first, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(afterFirst);

    // A re-import that changes events on both sides of the first INLINE_CHANGES, drops some and adds some.
    const changed = (i: number): string | null => (i % 500 === 7 ? null : i % 250 === 3 ? `Moved ${i}` : `Meeting ${i}`);
    const again = importCalendar(db, userCtx(db), { fileName: 'big.ics', text: ics(N + 50, changed) });
    ok(again);
    expect(again.ok && again.value).toMatchObject({ added: 50 - 1, updated: 6, removed: 3 });
    const afterAgain = snapshot(db);
    const second = again.ok ? again.actionId : '';

    // The first import cannot be undone under the re-import (which changed its events, some of them kept beside it).
    const blocked = undoAction(db, first, { ctx: userCtx(db) });
    expect(blocked).toMatchObject({ ok: false, code: 'undo_blocked' });
    expect(!blocked.ok && blocked.error).toContain(second);
    expect(snapshot(db)).toEqual(afterAgain);

    ok(undoAction(db, second, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(afterFirst);
    ok(redoAction(db, second, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(afterAgain);
    ok(undoAction(db, first, { ctx: userCtx(db), cascade: true }));
    expect(snapshot(db)).toEqual(empty);
  }, 60_000);

  it('refuses to undo in one line where its rows beside it are missing (a copy of the log from another device)', () => {
    const { db } = tempDb();
    const empty = snapshot(db);
    const first = imported(db, ics(INLINE_CHANGES + 10, (i) => `Meeting ${i}`));
    const afterFirst = snapshot(db);
    db.prepare(`DELETE FROM action_rows WHERE action_id = ?`).run(first);
    expect(undoAction(db, first, { ctx: userCtx(db) })).toMatchObject({
      ok: false,
      code: 'refused',
      error: expect.stringMatching(/changed 1,011 rows, and the record of most of them is kept only in the database it was made in/),
    });
    expect(snapshot(db)).toEqual(afterFirst);
    expect(snapshot(db)).not.toEqual(empty);
  });
});
