import { reversalOf, reversalSummary, type ReversedAction } from '../../../src-shared/actions';
import type { Result } from '../../../src-shared/result';
import { attempt, fail } from '../fail';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { childrenOf, entity } from '../store/entities';
import { entityKey, readRow, restoreRow, sameRow, type Change, type Row, type Table } from './changes';
import { nameBack } from '../store/names';
import { changedBeside, changeOf, changesBeside, changesHere, changesOf, eachChange, getActionRow, recordAction, reverseBeside, whatOf, type ActionContext, type ActionRow } from './log';

export interface UndoOptions {
  /** The request the undo itself is logged under. */
  ctx: ActionContext;
  /** Undo the later actions that block this one first, newest first. */
  cascade?: boolean;
}

export interface UndoReport {
  /** The actions that were reversed, in the order they were reversed. */
  reversed: ReversedAction[];
  /** The new log entries that record those reversals (each one can be undone again: a redo). */
  created: string[];
  /** The request undone or redone as a whole (undoRequest, undoLast, redoRequest), so a window can redo what it undid. */
  requestId?: string;
  /**
   * Rows that did not come back as they were, one line each: under another name, theirs being taken now ("Project
   * “Errands” is back as “Errands 2”: its name is taken now"), or left removed, another device having removed
   * them at the same time ("Task “milk” stays removed: another device removed it meanwhile").
   */
  renamed?: string[];
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const MAX_NAMED = 5;

/** Reverses exactly one action, if nothing changed its data since (or, with cascade, after undoing what did). */
export function undoAction(db: Db, actionId: string, options: UndoOptions): Result<UndoReport> {
  return attempt(() =>
    db.transaction(() => {
      const row = getActionRow(db, actionId);
      if (!row) fail(`no action with id ${actionId}`, 'run `tidy log` to see action ids');
      const report: UndoReport = { reversed: [], created: [] };
      undoOne(db, row, options, report);
      return report;
    }).immediate(), // the write lock first: what the conflict check reads stays true until the undo commits
  );
}

/** Reverses every action of a request that is still in effect, newest first, all or nothing. */
export function undoRequest(db: Db, requestId: string, options: UndoOptions): Result<UndoReport> {
  return attempt(() =>
    db.transaction(() => {
      const rows = cached(db, `SELECT * FROM actions WHERE request_id = ? ORDER BY seq DESC`).all(requestId) as ActionRow[];
      if (rows.length === 0) fail(`no request with id ${requestId} has changed anything`, 'run `tidy log` to see request ids');
      const live = rows.filter((r) => r.undone_at === null && !isExternal(r));
      if (live.length === 0 && rows.every(isExternal))
        fail(`request ${requestId} changed nothing Tidy can undo: it only ran tools of MCP servers, outside Tidy`, 'undo those changes in the app or service they happened in', 'refused');
      if (live.length === 0) alreadyUndone(db, rows.find((r) => !isExternal(r))!, `everything request ${requestId} changed is already undone`);
      const report: UndoReport = { reversed: [], created: [], requestId };
      for (const r of live) {
        const fresh = getActionRow(db, r.id)!;
        if (fresh.undone_at === null) undoOne(db, fresh, options, report);
      }
      return report;
    }).immediate(),
  );
}

/** Puts an undone action back in effect: the undo of the in-effect entry that undid it. */
export function redoAction(db: Db, actionId: string, options: UndoOptions): Result<UndoReport> {
  const row = getActionRow(db, actionId);
  if (!row) return { ok: false, code: 'refused', error: `no action with id ${actionId}`, hint: 'run `tidy log` to see action ids' };
  if (row.undone_at === null) return { ok: false, code: 'refused', error: `action ${row.id} is in effect; there is nothing to redo`, hint: 'redo applies to an undone action' };
  const undoer = undoerOf(db, row.id);
  if (!undoer) return { ok: false, code: 'refused', error: `action ${row.id} cannot be redone`, hint: 'undo its undo in the action log instead' };
  return undoAction(db, undoer, options);
}

/**
 * Puts every undone change of a request back in effect, all or nothing: for each, oldest first (a project
 * comes back before the tasks moved into it), the undo of the in-effect entry that undid it.
 */
export function redoRequest(db: Db, requestId: string, options: UndoOptions): Result<UndoReport> {
  return attempt(() =>
    db.transaction(() => {
      const rows = cached(db, `SELECT * FROM actions WHERE request_id = ? AND undoes IS NULL ORDER BY seq`).all(requestId) as ActionRow[];
      if (rows.length === 0) fail(`no request with id ${requestId} has changed anything`, 'run `tidy log` to see request ids');
      const undone = rows.filter((r) => r.undone_at !== null);
      if (undone.length === 0) fail(`everything request ${requestId} changed is in effect; there is nothing to redo`, 'redo applies to an undone request', 'refused');
      const report: UndoReport = { reversed: [], created: [], requestId };
      for (const r of undone) {
        if (getActionRow(db, r.id)!.undone_at === null) continue; // a cascade above put it back already
        const undoer = undoerOf(db, r.id);
        if (!undoer) fail(`action ${r.id} (${r.summary}) cannot be redone`, 'undo its undo in the action log instead');
        undoOne(db, getActionRow(db, undoer)!, options, report);
      }
      return report;
    }).immediate(),
  );
}

/** Reverses the most recent request that still has changes in effect (undo, redo and undo again walk back). */
export function undoLast(db: Db, options: UndoOptions): Result<UndoReport> {
  const row = cached(db, `SELECT request_id FROM actions WHERE undone_at IS NULL AND undoes IS NULL AND changes != '[]' ORDER BY seq DESC LIMIT 1`).get() as
    | { request_id: string }
    | undefined;
  if (!row) return { ok: false, code: 'nothing_to_undo', error: 'there is nothing to undo', hint: 'every change in the log is already undone' };
  return undoRequest(db, row.request_id, options);
}

/**
 * An action that changed nothing in Tidy's data: a call of an MCP server's tool, logged so the user sees
 * it, but holding no before-image to restore.
 */
export const isExternal = (row: ActionRow): boolean => row.changes === '[]' && !(row.spilled > 0);

function undoOne(db: Db, row: ActionRow, options: UndoOptions, report: UndoReport): void {
  if (isExternal(row))
    fail(`can't undo ${row.id} (${row.summary}): it happened outside Tidy, on an MCP server`, 'undo it in the app or service it happened in', 'refused');
  if (row.undone_at !== null) alreadyUndone(db, row, `action ${row.id} is already undone`);
  if (!changesHere(db, row)) {
    const here = changesBeside(db, row);
    const all = (row.spilled + changesOf(row).length).toLocaleString('en');
    fail(
      here > 0
        ? `can't undo ${row.id} (${row.summary}): it changed ${all} rows, and the record of ${(row.spilled - here).toLocaleString('en')} of them has not arrived here yet`
        : `can't undo ${row.id} (${row.summary}): it changed ${all} rows, and the record of most of them is kept only in the database it was made in`,
      here > 0 ? 'sync again, or undo it on the device it was made on' : 'undo it on the device it was made on, or in that database',
      'refused',
    );
  }
  let blockers = findBlockers(db, row);
  if (blockers.length > 0 && options.cascade) {
    for (const b of blockers) {
      const fresh = getActionRow(db, b.id)!;
      if (fresh.undone_at === null) undoOne(db, fresh, options, report);
    }
    blockers = findBlockers(db, row);
  }
  if (blockers.length > 0) {
    const shown = blockers.slice(0, MAX_NAMED).map((b) => ({ id: b.id, summary: b.summary }));
    const more = blockers.length - shown.length;
    fail(
      `can't undo ${row.id} (${row.summary}): later changes touched the same data: ${shown.map((b) => `${b.id} (${b.summary})`).join(', ')}${more ? ` and ${more} more` : ''}`,
      `undo ${shown.map((b) => b.id).join(', ')} first, or undo ${row.id} with --cascade to undo them too`,
      'undo_blocked',
      { blockers: shown, more },
    );
  }
  apply(db, row, options.ctx, report);
}

function apply(db: Db, row: ActionRow, ctx: ActionContext, report: UndoReport): void {
  const changes = changesOf(row);
  // a large action's other changes, recorded reversed before anything is restored (log.ts)
  const spill = reverseBeside(db, row);
  // rows that come back under another name, their own being taken now (by sync, or by a row made since)
  const renamed = new Map<string, Row>();
  // rows an update of which is undone, removed since by a change made at the same time on another device (a later
  // removal here would be a blocker, findBlockers): they stay removed, and the undo records nothing for them
  const stays = new Set<string>();
  try {
    for (const c of eachChange(db, row, true)) {
      if (c.before !== null && c.after !== null && readRow(db, c.table, c.id) === null) {
        stays.add(entityKey(c.table, c.id));
        const name = c.after['name'] ?? c.after['content'] ?? c.after['title'];
        (report.renamed ??= []).push(`${capital(entity(c.table).word)}${typeof name === 'string' ? ` “${name}”` : ''} stays removed: another device removed it meanwhile`);
        continue;
      }
      let image = c.before;
      const other = image ? nameBack(db, c.table, { ...image, id: c.id }) : null;
      if (image && other) {
        image = { ...image, ...other };
        renamed.set(entityKey(c.table, c.id), image);
        (report.renamed ??= []).push(`${capital(entity(c.table).word)} “${String(c.before!['name'])}” is back as “${other.name}”: its name is taken now`);
      }
      restoreRow(db, c.table, c.id, image);
    }
  } catch (e) {
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
    if (code === 'SQLITE_CONSTRAINT_UNIQUE')
      fail(`can't undo ${row.id} (${row.summary}): its old name is taken now`, 'rename or archive the one that has that name, then undo again', 'refused', {
        why: 'its old name is taken now',
      });
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
      fail(`can't undo ${row.id} (${row.summary}): other data still refers to it`, `undo the later changes first, or undo ${row.id} with --cascade`, 'undo_blocked', {
        blockers: [],
        more: 0,
        why: 'other data still refers to it',
      });
    throw e;
  }
  for (const c of eachChange(db, row)) if (!stays.has(entityKey(c.table, c.id))) checkParentLive(db, row, c.table, c.before);
  const root = chainRoot(db, row);
  const reversed = whatOf(row);
  const verb = reversalOf(reversed);
  const inverse: Change[] = changes.filter((c) => !stays.has(entityKey(c.table, c.id))).map((c) => ({ table: c.table, id: c.id, before: c.after, after: renamed.get(entityKey(c.table, c.id)) ?? c.before })).reverse();
  const what = { ...reversed, verb, reverses: row.id };
  const id = recordAction(db, ctx, { tool: 'undo', args: { actionId: row.id }, summary: reversalSummary(verb, root.summary), what, undoes: row.id }, inverse, spill);
  markUndone(db, row.id);
  report.reversed.push({ id: row.id, summary: row.summary, what: reversed, subject: root.summary });
  report.created.push(id);
}

/** A restored row that is live (an open task, a live item) must not land in a parent that has been archived since. */
function checkParentLive(db: Db, row: ActionRow, table: string, image: Row | null): void {
  const link = entity(table).parent;
  if (!image || !link || !link.live(image)) return;
  const parent = readRow(db, link.table, String(image[link.column]));
  if (parent?.['archived_at']) {
    const word = entity(link.table).word;
    fail(`can't undo ${row.id} (${row.summary}): ${word} '${parent['name']}' is archived now`, `unarchive it first: tidy ${word} unarchive ${parent['id']}`, 'parent_archived', {
      parent: { kind: word, id: String(parent['id']), name: String(parent['name']) },
    });
  }
}

/** An action is undone exactly when an in-effect action undoes it; flipping one link flips the chain below it. */
function markUndone(db: Db, id: string): void {
  const now = new Date().toISOString();
  const set = cached(db, `UPDATE actions SET undone_at = ? WHERE id = ?`);
  let current: string | null = id;
  let undone = true;
  while (current) {
    set.run(undone ? now : null, current);
    current = getActionRow(db, current)!.undoes;
    undone = !undone;
  }
}

/** The change an undo or redo is about: the first action of its chain of undoes. */
function chainRoot(db: Db, row: ActionRow): ActionRow {
  let root = row;
  while (root.undoes) root = getActionRow(db, root.undoes)!;
  return root;
}

/** The in-effect action that undid `id`, if any. */
function undoerOf(db: Db, id: string): string | null {
  const row = cached(db, `SELECT id FROM actions WHERE undoes = ? AND undone_at IS NULL ORDER BY seq DESC LIMIT 1`).get(id) as { id: string } | undefined;
  return row?.id ?? null;
}

/** Fails: the action is undone already; says how to redo it (undo its undo) when that is possible. */
function alreadyUndone(db: Db, row: ActionRow, error: string): never {
  const undoer = undoerOf(db, row.id);
  return undoer ? fail(error, `to redo it, undo ${undoer}`, 'already_undone', { undoneBy: undoer }) : fail(error, 'nothing to do', 'already_undone');
}

interface LaterRow extends ActionRow {
  undoes_seq: number | null;
}

/**
 * The later actions, still in effect, that must be undone before `row` can be: for each row it changed
 * whose value differs now from what `row` left, the changes since, newest first, back to that value;
 * for a parent it created, whatever made other rows point at it; and for a row it puts back into a
 * parent that no longer exists, whatever removed that parent since. An undo/redo pair that happened
 * entirely after `row` cancels out and is skipped.
 */
function findBlockers(db: Db, row: ActionRow): ActionRow[] {
  const found = new Map<number, ActionRow>();
  const inline = new Set(changesOf(row).map((c) => entityKey(c.table, c.id)));
  // Each later action's own changes, parsed once (a re-import that changed many of this action's rows is met once per row).
  const parsed = new Map<number, Change[]>();
  const own = {
    has: (key: string): boolean => {
      if (inline.has(key)) return true;
      const at = key.indexOf(':');
      return changedBeside(db, row, key.slice(0, at), key.slice(at + 1));
    },
  };
  const walk = (key: string, settled: (image: Row | null) => boolean, since = row.seq): void => {
    const later = cached(
      db,
      `SELECT a.*, t.seq AS undoes_seq FROM action_entities e
       JOIN actions a ON a.seq = e.action_seq LEFT JOIN actions t ON t.id = a.undoes
       WHERE e.entity = ? AND e.action_seq > ? ORDER BY e.action_seq DESC`,
    ).all(key, since) as LaterRow[];
    for (const l of later) {
      if (l.undone_at !== null) continue;
      if (l.undoes_seq !== null && l.undoes_seq > row.seq) continue;
      found.set(l.seq, l);
      const at = key.indexOf(':');
      let own = parsed.get(l.seq);
      if (!own) parsed.set(l.seq, (own = changesOf(l)));
      const change = changeOf(db, l, key.slice(0, at), key.slice(at + 1), own);
      if (change && settled(change.before)) break;
    }
  };
  for (const c of eachChange(db, row)) {
    // a change received without its after image (`current`): every later change of the row comes first
    if (c.current) walk(entityKey(c.table, c.id), () => false);
    else if (!sameRow(readRow(db, c.table, c.id), c.after)) walk(entityKey(c.table, c.id), (image) => sameRow(image, c.after));
    // The row comes back pointing at a parent that is gone now (a redo of a move after "Undo all" removed
    // the project it moved into): the later change that removed the parent comes back first.
    const link = c.before ? entity(c.table).parent : undefined;
    if (c.before && link) {
      const parentId = String(c.before[link.column]);
      const key = entityKey(link.table as Table, parentId);
      if (!own.has(key) && readRow(db, link.table, parentId) === null) walk(key, (image) => image !== null);
    }
    if (c.before !== null || c.after === null) continue;
    for (const dep of childrenOf(c.table)) {
      const children = cached(db, `SELECT id FROM ${dep.table} WHERE ${dep.column} = ?`).all(c.id) as { id: string }[];
      for (const child of children) {
        const key = entityKey(dep.table, child.id);
        // every action that made it point here, also one logged here before this one: with sync, a task another
        // device added into a project can arrive before the project's creation, or be older than a row sync kept
        // (sync/kept.ts); locally a child always points at its parent after the parent was made
        if (!own.has(key)) walk(key, (image) => image === null || image[dep.column] !== c.id, 0);
      }
    }
  }
  return [...found.values()].sort((a, b) => b.seq - a.seq);
}
