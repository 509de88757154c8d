/**
 * The handler of every channel of the IPC contract: plain functions over the core, with their
 * dependencies passed in. The same object serves the Electron transport, the web host and the tests.
 * A user's edits are logged like the CLI's: each request is one undoable entry in the action log.
 */
import type { Result } from '../../src-shared/result';
import { SettingsSchema, type ActionGroup } from '../../src-shared/ipc';
import {
  addListItem,
  addTask,
  archiveList,
  archiveListItem,
  archiveProject,
  archiveTask,
  checkListItem,
  completeTask,
  createProject,
  DomainError,
  editListItem,
  getActionRow,
  listActions,
  listItems,
  listLists,
  listProjects,
  listTasks,
  makeList,
  moveTask,
  newUserRequest,
  readSettings,
  renameList,
  renameProject,
  reopenTask,
  unarchiveList,
  unarchiveProject,
  undoAction,
  undoLast,
  undoRun,
  updateTask,
  writeSetting,
  type Db,
  type Mutated,
} from '../core';
import type { ActionEntry } from '../../src-shared/domain';
import type { Handlers } from './dispatch';

export interface HostDeps {
  db: Db;
}

/** A refused request becomes a DomainError, which the dispatcher turns into a `failed` reply. */
function must<T>(r: Result<T>): T {
  if (!r.ok) throw new DomainError(r.error, r.hint);
  return r.value;
}

function logged<T>(r: Mutated<T>): { value: T; actionId: string } {
  if (!r.ok) throw new DomainError(r.error, r.hint);
  return { value: r.value, actionId: r.actionId };
}

/** Consecutive entries of one request form a group (the log is newest first, so a request's actions are adjacent). */
export function groupByRequest(entries: ActionEntry[]): ActionGroup[] {
  const groups: ActionGroup[] = [];
  for (const e of entries) {
    const last = groups.at(-1);
    if (last && last.runId === e.runId) last.actions.push(e);
    else groups.push({ runId: e.runId, source: e.source, actions: [e] });
  }
  return groups;
}

export function createHandlers({ db }: HostDeps): Handlers {
  const ctx = () => newUserRequest(db);
  const undoOptions = (cascade?: boolean) => ({ ctx: ctx(), cascade });

  /** The in-effect undo entry that reversed `actionId` (the core keeps this lookup private; a thin adapter until it offers one). */
  const undoerOf = (actionId: string): string | null =>
    (db.prepare(`SELECT id FROM actions WHERE undoes = ? AND undone_at IS NULL ORDER BY seq DESC LIMIT 1`).get(actionId) as { id: string } | undefined)?.id ??
    null;

  return {
    'tasks.list': (i) => listTasks(db, i),
    'tasks.add': (i) => logged(addTask(db, ctx(), i)),
    'tasks.update': (i) => logged(updateTask(db, ctx(), i)),
    'tasks.move': (i) => logged(moveTask(db, ctx(), i)),
    'tasks.complete': (i) => logged(completeTask(db, ctx(), i)),
    'tasks.reopen': (i) => logged(reopenTask(db, ctx(), i)),
    'tasks.archive': (i) => logged(archiveTask(db, ctx(), i)),

    'projects.list': (i) =>
      listProjects(db, i).map((p) => ({ ...p, openTasks: listTasks(db, { project: p.id, limit: 0 }).total })),
    'projects.create': (i) => logged(createProject(db, ctx(), i)),
    'projects.rename': (i) => logged(renameProject(db, ctx(), i)),
    'projects.archive': (i) => logged(archiveProject(db, ctx(), i)),
    'projects.unarchive': (i) => logged(unarchiveProject(db, ctx(), i)),

    'lists.list': (i) => listLists(db, i),
    'lists.items': (i) => listItems(db, i.list, i),
    'lists.create': (i) => logged(makeList(db, ctx(), i)),
    'lists.rename': (i) => logged(renameList(db, ctx(), i)),
    'lists.archive': (i) => logged(archiveList(db, ctx(), i)),
    'lists.unarchive': (i) => logged(unarchiveList(db, ctx(), i)),
    'lists.addItem': (i) => logged(addListItem(db, ctx(), i)),
    'lists.editItem': (i) => logged(editListItem(db, ctx(), i)),
    'lists.checkItem': (i) => logged(checkListItem(db, ctx(), i)),
    'lists.archiveItem': (i) => logged(archiveListItem(db, ctx(), i)),

    'capture.add': (i) => logged(addTask(db, ctx(), { content: i.text })),

    'actions.list': (i) => {
      const limit = i.limit ?? 100;
      // One more than asked tells whether there is a next page.
      const entries = listActions(db, { limit: limit + 1, before: i.before, runId: i.runId });
      const page = entries.slice(0, limit);
      return { groups: groupByRequest(page), nextBefore: entries.length > limit ? page.at(-1)!.id : null };
    },
    'actions.undo': (i) => must(undoAction(db, i.actionId, undoOptions(i.cascade))),
    'actions.undoRequest': (i) => must(undoRun(db, i.runId, undoOptions(i.cascade))),
    'actions.undoLast': () => must(undoLast(db, undoOptions())),
    'actions.redo': (i) => {
      const row = getActionRow(db, i.actionId);
      if (!row) throw new DomainError(`no action with id ${i.actionId}`, 'open the action log to see action ids');
      if (row.undone_at === null) throw new DomainError(`action ${row.id} is in effect; there is nothing to redo`, 'redo applies to an undone action');
      // Redo is the undo of the entry that undid it.
      const target = undoerOf(row.id);
      if (target === null) throw new DomainError(`action ${row.id} cannot be redone`, 'undo its undo in the action log instead');
      return must(undoAction(db, target, undoOptions()));
    },

    // readSettings types enum settings loosely (as string); the contract's schema gives them their exact type.
    'settings.get': () => SettingsSchema.parse(readSettings(db)),
    'settings.set': (i) => {
      must(writeSetting(db, i.key, i.value));
      return SettingsSchema.parse(readSettings(db));
    },
  };
}
