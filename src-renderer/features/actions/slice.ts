/**
 * The action log (the undo list): paged newest first, grouped by request, with undo per action and per
 * request, redo of undone entries, and refusals (conflicts) kept next to the entry they concern.
 */
import type { ActionEntry } from '../../../src-shared/domain';
import type { ActionGroup, Output } from '../../../src-shared/ipc';
import { createCoalescer } from '../../lib/coalesce';
import { reportWords } from '../../../src-shared/actions';
import { toProblem, type Problem } from '../../lib/problem';
import type { Deps, SliceCreator } from '../../store/types';

/** What a refused undo or redo says, and whether undoing the later actions too (cascade) could do it. */
export interface UndoProblem extends Problem {
  /** The undo (or redo) can be retried with `cascade` (the later actions that block it are undone first). */
  canCascade: boolean;
  /** Which it was: the card's title, its words and its button say the same. */
  verb: 'undo' | 'redo';
}

/**
 * Whether a kept refusal still applies to its row: a refused redo while the thing can still be redone, a
 * refused undo while it can still be undone. Once it was done some other way ("Redo all", Ctrl+Z, another
 * window, the CLI) the note would be stale, so it is not shown.
 */
export const stillApplies = (problem: UndoProblem, row: { canUndo: boolean; canRedo: boolean }): boolean =>
  problem.verb === 'redo' ? row.canRedo : row.canUndo;

/** The button a blocked undo or redo card offers, and its hint names. */
export const CASCADE_LABEL = { undo: 'Undo with later changes', redo: 'Redo, undoing later changes' } as const;

/** Where a problem or a pending undo belongs: one entry, or a whole request. */
export const actionKey = (id: string): string => `a:${id}`;
export const requestKey = (requestId: string): string => `r:${requestId}`;

export interface ActionsSlice {
  log: {
    groups: ActionGroup[];
    /** Entries loaded so far. */
    count: number;
    /** The cursor of the next (older) page; null when everything is loaded. */
    nextBefore: string | null;
    loaded: boolean;
    loading: boolean;
    problem: Problem | null;
  };
  /** Refused undos and redos, by actionKey / requestKey. */
  undoProblems: Record<string, UndoProblem>;
  /** Undos and redos in flight, by actionKey / requestKey. */
  undoPending: Record<string, true>;
  loadActions(): Promise<void>;
  /** The next older page; does nothing when all is loaded or a load runs. */
  loadMoreActions(): Promise<void>;
  undoAction(actionId: string, cascade?: boolean): Promise<boolean>;
  undoRequest(requestId: string, cascade?: boolean): Promise<boolean>;
  redoAction(actionId: string, cascade?: boolean): Promise<boolean>;
  /** Puts every undone change of a request back in effect. */
  redoRequest(requestId: string, cascade?: boolean): Promise<boolean>;
  /**
   * Ctrl+Z outside a text field: undoes again what this window redid last, else the most recent request
   * still in effect. Either way the request goes on this window's redo stack.
   */
  undoLastRequest(): Promise<boolean>;
  /** Ctrl+Shift+Z / Ctrl+Y: redoes the request this window undid last (like an editor's redo). */
  redoLastRequest(): Promise<boolean>;
  /**
   * This window's requests undone as a whole, the newest last: what Redo brings back. Like an editor's,
   * it is the window's own (another window's undos are not on it) and lives as long as the window.
   */
  redoStack: string[];
  /** Requests this window redid, the newest last: Ctrl+Z undoes these again first. */
  redoneStack: string[];
  dismissUndoProblem(key: string): void;
  /** Brings back the archived project or list a refused undo names (its details' `parent`). */
  unarchiveParent(parent: { kind: string; id: string }): Promise<boolean>;
}

declare module '../../store/types' {
  interface AppState extends ActionsSlice {}
}

export const FIRST_PAGE = 200;
const NEXT_PAGE = 500;
/** The contract's largest page. */
const MAX_PAGE = 1000;
/** A refresh reloads what was loaded, up to this many entries (past it, "load more" fetches the rest again). */
const MAX_REFRESH = 5000;

/** Appends an older page; a request cut by the page boundary continues in the last group. */
export function mergeGroups(older: ActionGroup[], page: ActionGroup[]): ActionGroup[] {
  if (older.length === 0) return page;
  if (page.length === 0) return older;
  const last = older[older.length - 1]!;
  const [first, ...rest] = page;
  if (first!.requestId !== last.requestId) return [...older, ...page];
  return [...older.slice(0, -1), { ...last, actions: [...last.actions, ...first!.actions] }, ...rest];
}

/** An entry that can be undone: in effect, and not itself an undo (undoing an undo is the original's Redo). */
export const canUndo = (a: ActionEntry): boolean => a.undoneAt === null && a.undoes === null && a.external !== true;
/** An entry that can be redone: an undone change (its undo is in effect). An undone undo is the original back in effect. */
export const canRedo = (a: ActionEntry): boolean => a.undoneAt !== null && a.undoes === null;

type LogRow = { kind: 'group'; group: ActionGroup; key: string } | { kind: 'entry'; entry: ActionEntry; key: string };

/**
 * Groups flattened into the rows of the virtual list: a header per request, then its entries. Undo and
 * redo entries are folded into the entry they reversed (it shows Undone, with Redo): undoing adds no row,
 * so the row under the pointer stays where it is, and the next click lands on what the user aimed at.
 */
export function logRows(groups: ActionGroup[]): LogRow[] {
  const rows: LogRow[] = [];
  for (const [i, g] of groups.entries()) {
    const shown = g.actions.filter((a) => a.undoes === null);
    if (shown.length === 0) continue;
    const group = shown.length === g.actions.length ? g : { ...g, actions: shown };
    rows.push({ kind: 'group', group, key: `g${i}:${g.requestId}` });
    for (const e of shown) rows.push({ kind: 'entry', entry: e, key: e.id });
  }
  return rows;
}

const countOf = (groups: ActionGroup[]): number => groups.reduce((n, g) => n + g.actions.length, 0);

export const createActionsSlice =
  ({ api }: Deps): SliceCreator<ActionsSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();

    /** Fetches the newest `want` entries (at least one page) in pages of the contract's size. */
    const fetchNewest = async (want: number): Promise<Output<'actions.list'>> => {
      let groups: ActionGroup[] = [];
      let before: string | null = null;
      let count = 0;
      do {
        const page: Output<'actions.list'> = await api.invoke('actions.list', {
          limit: Math.min(MAX_PAGE, Math.max(want - count, 1)),
          ...(before ? { before } : {}),
        });
        groups = mergeGroups(groups, page.groups);
        count = countOf(groups);
        before = page.nextBefore;
      } while (before !== null && count < want);
      return { groups, nextBefore: before };
    };

    const reload = () =>
      coalesce('reload', async () => {
        set((s) => ({ log: { ...s.log, loading: true } }));
        try {
          const want = Math.min(Math.max(get().log.count, FIRST_PAGE), MAX_REFRESH);
          const { groups, nextBefore } = await fetchNewest(want);
          set({ log: { groups, nextBefore, count: countOf(groups), loaded: true, loading: false, problem: null } });
        } catch (e) {
          set((s) => ({ log: { ...s.log, loading: false, problem: toProblem(e) } }));
        }
      });

    /** Runs an undo or redo; its refusal is kept by `key`. The log itself refreshes on data.changed. */
    const undo = async (key: string, run: () => Promise<unknown>, cascadable: boolean, verb: UndoProblem['verb'] = 'undo'): Promise<boolean> => {
      if (get().undoPending[key]) return false;
      set((s) => ({ undoPending: { ...s.undoPending, [key]: true }, undoProblems: without(s.undoProblems, key) }));
      try {
        await run();
        return true;
      } catch (e) {
        const p = toProblem(e);
        // Later actions block it: the UI offers undoing them too as a button.
        const canCascade = cascadable && p.reason === 'undo_blocked';
        set((s) => ({ undoProblems: { ...s.undoProblems, [key]: { ...p, ...undoWords(p, verb), canCascade, verb } } }));
        return false;
      } finally {
        set((s) => ({ undoPending: without(s.undoPending, key) }));
      }
    };

    /** Says what an undo or redo did, in the status region (as Ctrl+Z does), and a row that came back under another name. */
    const said = (report: Output<'actions.undo'>) => get().notify([reportWords(report), ...(report.renamed ?? [])].join(' · '));

    /** The redo stack follows every whole-request undo and redo of this window. */
    const undoneHere = (requestId: string | undefined) =>
      requestId && set((s) => ({ redoStack: [...s.redoStack.filter((r) => r !== requestId), requestId], redoneStack: s.redoneStack.filter((r) => r !== requestId) }));
    const redoneHere = (requestId: string) =>
      set((s) => ({ redoStack: s.redoStack.filter((r) => r !== requestId), redoneStack: [...s.redoneStack.filter((r) => r !== requestId), requestId] }));

    return {
      log: { groups: [], count: 0, nextBefore: null, loaded: false, loading: false, problem: null },
      undoProblems: {},
      undoPending: {},

      loadActions: reload,
      loadMoreActions: async () => {
        const { log } = get();
        if (!log.loaded || log.nextBefore === null || log.loading) return;
        const before = log.nextBefore;
        set({ log: { ...log, loading: true } });
        try {
          const page = await api.invoke('actions.list', { limit: NEXT_PAGE, before });
          set((s) => {
            // A refresh replaced the log meanwhile: this page no longer follows it.
            if (s.log.nextBefore !== before) return { log: { ...s.log, loading: false } };
            const groups = mergeGroups(s.log.groups, page.groups);
            return { log: { ...s.log, groups, count: countOf(groups), nextBefore: page.nextBefore, loading: false, problem: null } };
          });
        } catch (e) {
          set((s) => ({ log: { ...s.log, loading: false, problem: toProblem(e) } }));
        }
      },

      redoStack: [],
      redoneStack: [],

      undoAction: (actionId, cascade) => undo(actionKey(actionId), async () => said(await api.invoke('actions.undo', { actionId, ...(cascade ? { cascade } : {}) })), !cascade),
      undoRequest: (requestId, cascade) =>
        undo(
          requestKey(requestId),
          async () => {
            const report = await api.invoke('actions.undoRequest', { requestId, ...(cascade ? { cascade } : {}) });
            undoneHere(requestId);
            said(report);
          },
          !cascade,
        ),
      redoAction: (actionId, cascade) =>
        undo(actionKey(actionId), async () => said(await api.invoke('actions.redo', { actionId, ...(cascade ? { cascade } : {}) })), !cascade, 'redo'),
      redoRequest: (requestId, cascade) =>
        undo(
          requestKey(requestId),
          async () => {
            const report = await api.invoke('actions.redoRequest', { requestId, ...(cascade ? { cascade } : {}) });
            redoneHere(requestId);
            said(report);
          },
          !cascade,
          'redo',
        ),
      undoLastRequest: async () => {
        try {
          // What this window redid last is what Ctrl+Z takes back first, as in an editor.
          const again = get().redoneStack.at(-1);
          const report = again ? await api.invoke('actions.undoRequest', { requestId: again }) : await api.invoke('actions.undoLast', {});
          undoneHere(report.requestId ?? again);
          said(report);
          return true;
        } catch (e) {
          const words = undoWords(toProblem(e));
          get().notify(`${words.message} — ${words.hint}`, 'error');
          return false;
        }
      },
      redoLastRequest: async () => {
        const requestId = get().redoStack.at(-1);
        if (!requestId) {
          get().notify('There is nothing to redo — Redo brings back what Undo took back in this window', 'error');
          return false;
        }
        try {
          const report = await api.invoke('actions.redoRequest', { requestId });
          redoneHere(requestId);
          said(report);
          return true;
        } catch (e) {
          const p = toProblem(e);
          // Redone elsewhere meanwhile: it leaves the stack, so the next Redo goes on to the one before.
          if (p.reason !== 'undo_blocked') set((s) => ({ redoStack: s.redoStack.filter((r) => r !== requestId) }));
          const words = undoWords(p, 'redo');
          get().notify(`${words.message} — ${words.hint}`, 'error');
          return false;
        }
      },
      dismissUndoProblem: (key) => set((s) => ({ undoProblems: without(s.undoProblems, key) })),
      unarchiveParent: async (parent) => {
        try {
          if (parent.kind === 'list') await api.invoke('lists.unarchive', { list: parent.id });
          else await api.invoke('projects.unarchive', { project: parent.id });
          return true;
        } catch (e) {
          const p = toProblem(e);
          get().notify(`${p.message} — ${p.hint}`, 'error');
          return false;
        }
      },
    };
  };

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A refused undo or redo in the UI's words, from its code and details: the core's own words name actions
 * by id and give CLI advice ("with --cascade"); next to the entry the blockers are named by what they did,
 * and the advice is the button that follows it.
 */
export function undoWords(p: Problem, verb: UndoProblem['verb'] = 'undo'): { message: string; hint: string } {
  const d = p.details ?? {};
  switch (p.reason) {
    case 'undo_blocked': {
      const named = (d.blockers ?? []).map((b) => b.summary).join('; ');
      return {
        message: named ? `Later changes touched the same data: ${named}${d.more ? ` and ${d.more} more` : ''}.` : capital(d.why ?? p.message),
        hint: `undo those later changes first, or choose "${CASCADE_LABEL[verb]}" to undo them too`,
      };
    }
    case 'already_undone':
      return { message: 'This is already undone.', hint: d.undoneBy ? 'choose "Redo" to bring it back' : 'nothing to do' };
    case 'parent_archived':
      return { message: `The ${d.parent?.kind ?? 'parent'} '${d.parent?.name ?? ''}' is archived now.`, hint: `choose "${unarchiveLabel(d.parent?.kind ?? 'parent', verb)}" to bring it back first` };
    case 'nothing_to_undo':
      return { message: 'There is nothing to undo.', hint: 'every change in the log is already undone' };
    default:
      return { message: d.why ? capital(d.why) : p.message, hint: p.hint };
  }
}

/** The button of a refusal for want of an archived project or list: it brings it back, then tries again. */
/** A request's heading in the Actions log: the user's words, an MCP client, an import — never an id where words exist. */
export function requestTitle(g: Pick<ActionGroup, 'source' | 'request' | 'requestId' | 'actions'>): string {
  if (g.source === 'user') return g.actions.length > 1 ? 'Your changes' : 'Your change';
  if (g.source === 'mcp') return g.request ? `${g.request} (through MCP)` : `An MCP client's session ${g.requestId}`;
  if (g.source === 'import') return g.request ? `“${g.request}”` : 'Imported from a file';
  return g.request ? `“${g.request}”` : `Agent request ${g.requestId}`;
}

export const unarchiveLabel = (kind: string, verb: UndoProblem['verb']): string => `Unarchive the ${kind} and ${verb}`;

/** What an undo or redo did, in words: `reportWords` of src-shared/actions.ts. */
export { reportWords };
