/**
 * Editing by hand: tasks (edit, move, archive), projects and lists (rename, archive, unarchive), list
 * items (edit, archive). Every change is one logged operation (src-shared/operations.ts), so it shows in
 * Actions and can be undone there; the ones that make something leave a view get an Undo on their notice.
 */
import { INBOX_ID, type List, type Task } from '../../../src-shared/domain';
import type { Output } from '../../../src-shared/ipc';
import { createCoalescer } from '../../lib/coalesce';
import { toProblem, type Problem } from '../../lib/problem';
import { actionKey } from '../actions/slice';
import { isoDay } from '../../lib/due';
import { TASK_PAGE, type DataForm, type ProjectRow, type TaskPage } from './data-slice';
import { idle, loadInto, type Loadable, type ValueOf } from '../../store/loadable';
import { attempt, outcome, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

/** What an inline edit of a task changes; what is left out stays as it is. */
export interface TaskPatch {
  content?: string;
  /** 1 = p1 = most urgent … 4 = normal. */
  priority?: number;
  /** A due as stored, or null to clear it. */
  due?: string | null;
  /** The project id to move it to. */
  project?: string;
  /** An RRULE value, or null to stop the repeating. */
  recurrence?: string | null;
  /** Markdown, or null to clear it. */
  description?: string | null;
  /** YYYY-MM-DD, or null to clear it. */
  deadline?: string | null;
  /** Minutes or words (45m, 2h, 1h30m), or null to clear it. */
  durationMin?: number | string | null;
  /** All its labels (replaces them). */
  labels?: string[];
  /** A section id of its project, or null to take it out of its section. */
  section?: string | null;
}

type TaskCounts = Output<'tasks.counts'>;
export type SearchResults = Output<'search.query'>;

/** Where a task is added from: a form of the window (which shows its own refusal), or the capture window. */
export type AddBox = DataForm | 'capture';
/** A box's defaults for what its line does not say, and whether an unknown #name becomes a project. */
export interface AddDefaults {
  project?: string;
  section?: string;
  due?: string;
  createProject?: boolean;
}
/** A box's add: the words that say what was stored (and what stayed in the text), or why nothing was. */
type Added = { ok: true; words: string } | { ok: false; problem: Problem };

/** What an add stored, in words: where it went, a project it made, and what stayed in the text. */
function addedWords(a: Output<'capture.add'>): string {
  if (a.createdProject) return `Created project ${a.createdProject} and added “${a.value.content}” to it`;
  const stayed = [
    a.unread.project &&
      `there is no project “${a.unread.project.name}”, so it stays in the text${a.unread.project.suggestion ? ` · Did you mean ${a.unread.project.suggestion}?` : ''}`,
    a.unread.repeat && `“${a.unread.repeat}” is not a repeat Tidy reads, so it stays in the text`,
  ].filter(Boolean);
  if (stayed.length) return `Added to ${a.value.project}: ${stayed.join('; ')}`;
  return `Added to ${a.value.projectId === INBOX_ID ? 'the inbox' : a.value.project}: ${a.value.content}`;
}

/** How long Snooze puts a reminder off. */
export const SNOOZE_MINUTES = 10;

export interface TasksSlice {
  /** Open tasks due today or before (overdue first). */
  today: Loadable<TaskPage>;
  /** Open tasks due from today to the 7th day, by due. */
  upcoming: Loadable<TaskPage>;
  /** Completed tasks, the most recent first. */
  completed: Loadable<TaskPage>;
  /** The sidebar's numbers; null until loaded. */
  counts: TaskCounts | null;
  /** The search box's words and what they found (null before the first search). */
  search: Loadable<SearchResults> & { query: string };
  /** Tasks whose due time has come and that the user has not answered yet (newest last). */
  reminders: Task[];
  loadToday(): Promise<void>;
  loadUpcoming(): Promise<void>;
  loadCompleted(): Promise<void>;
  loadCounts(): Promise<void>;
  /** Refetches a task view if it is shown (and the counts with Today, if loaded). */
  refreshTaskView(view: 'today' | 'upcoming' | 'completed'): Promise<void>;
  /** Runs the shown search again. */
  refreshSearch(): Promise<void>;
  runSearch(query: string): Promise<void>;
  /** Puts `task` just before `before` in its project (last when null). */
  reorderTask(task: Task, before: Task | null): Promise<void>;
  receiveReminder(task: Task): void;
  dismissReminder(taskId: string): void;
  snoozeReminder(task: Task): Promise<void>;
  archivedProjects: Loadable<ProjectRow[]>;
  archivedLists: Loadable<List[]>;
  loadArchivedProjects(): Promise<void>;
  loadArchivedLists(): Promise<void>;
  /**
   * The one way a box adds a task (every add field and the quick-capture window): the line as typed, read
   * on the main side (`capture.add`) as `tidy add` reads it: its content, due, priority, repeat, labels and
   * #project, else the box's `defaults` (a project view's project and section, Today's date), else the
   * inbox. With `createProject`, a #name that is no project yet becomes one (one undoable request). A
   * field's refusal is its form's (`formProblems`); what stayed in the text (an unknown #project, with
   * "Did you mean …?", or an unread repeat) is said in the answer's words, on every route. The window's
   * boxes tell those words in a notice; the capture window shows them under its box.
   */
  addTask(box: AddBox, text: string, defaults?: AddDefaults): Promise<Added>;
  /** Applies an inline edit (one update and, if the project changed, one move). Null when it worked. */
  editTask(task: Task, patch: TaskPatch): Promise<Problem | null>;
  archiveTask(task: Task): Promise<void>;
  renameProject(id: string, name: string): Promise<Problem | null>;
  archiveProject(id: string): Promise<Problem | null>;
  unarchiveProject(id: string): Promise<Problem | null>;
  renameList(id: string, name: string): Promise<Problem | null>;
  archiveList(id: string): Promise<Problem | null>;
  unarchiveList(id: string): Promise<Problem | null>;
  editListItem(list: string, item: string, text: string): Promise<Problem | null>;
  archiveListItem(list: string, item: string): Promise<Problem | null>;
  /** Shows `text` with an Undo button that undoes the logged action `actionId`. */
  notifyUndoable(text: string, actionId: string): void;
  /** A visible notice of where a task went ("Added to Family"), with Open to go there. */
  notifyWentTo(text: string, projectId: string): void;
}

declare module '../../store/types' {
  interface AppState extends TasksSlice {}
}

export const createTasksSlice =
  ({ api }: Deps): SliceCreator<TasksSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();
    const load = <K extends 'archivedProjects' | 'archivedLists' | 'today' | 'upcoming' | 'completed'>(key: K, fetch: () => Promise<ValueOf<K> | undefined>) =>
      coalesce(key, () => loadInto(set, key, fetch));

    /** A change from a button, which has no field to put a refusal by: it is told in a notice (store/request.ts). */
    const act = async <T>(run: () => Promise<T>, then?: (value: T) => void): Promise<Problem | null> => {
      const r = await request(get, run);
      if (!r.ok) return r.problem;
      then?.(r.value);
      return null;
    };

    const refreshArchived = () => {
      const s = get();
      return Promise.all([s.archivedProjects.value ? s.loadArchivedProjects() : null, s.archivedLists.value ? s.loadArchivedLists() : null]);
    };

    const shown = (l: Loadable<unknown>) => l.value !== null || l.loading || l.problem !== null;
    /** The renderer's own date: "today" is the user's day, not the host's. */
    const today = () => isoDay(new Date(Date.now()));
    const view = (v: 'today' | 'upcoming' | 'completed') => () => api.invoke('tasks.list', { view: v, today: today(), limit: TASK_PAGE });
    let searchSeq = 0;

    return {
      today: idle(),
      upcoming: idle(),
      completed: idle(),
      counts: null,
      search: { ...idle(), query: '' },
      reminders: [],
      loadToday: () => load('today', view('today')),
      loadUpcoming: () => load('upcoming', view('upcoming')),
      loadCompleted: () => load('completed', view('completed')),
      loadCounts: () =>
        coalesce('counts', async () => {
          try {
            set({ counts: await api.invoke('tasks.counts', { today: today() }) });
          } catch {
            // The counts are a hint beside the names; the views themselves say what failed.
          }
        }),
      refreshTaskView: async (v) => {
        const s = get();
        const loader = { today: s.loadToday, upcoming: s.loadUpcoming, completed: s.loadCompleted }[v];
        await Promise.all([v === 'today' && s.counts ? s.loadCounts() : null, shown(s[v]) ? loader() : null]);
      },
      refreshSearch: async () => {
        const { query } = get().search;
        if (query.trim()) await get().runSearch(query);
      },
      runSearch: async (query) => {
        const seq = ++searchSeq;
        set((s) => ({ search: { ...s.search, query, loading: query.trim() !== '' } }));
        if (!query.trim()) {
          set({ search: { ...idle(), query } });
          return;
        }
        try {
          const value = await api.invoke('search.query', { query, limit: 50 });
          // Only the answer to the latest words is shown.
          if (seq === searchSeq) set({ search: { value, loading: false, problem: null, query } });
        } catch (e) {
          if (seq === searchSeq) set((s) => ({ search: { ...s.search, loading: false, problem: toProblem(e) } }));
        }
      },
      reorderTask: async (task, before) => {
        await act(
          () => api.invoke('tasks.reorder', { task: task.id, before: before?.id ?? null }),
          () => get().announce(before ? `Moved ${task.content} before ${before.content}` : `Moved ${task.content} to the end`),
        );
      },
      receiveReminder: (task) => {
        set((s) => ({ reminders: [...s.reminders.filter((t) => t.id !== task.id), task] }));
        get().announce(`Reminder: ${task.content} is due`);
      },
      dismissReminder: (id) => set((s) => ({ reminders: s.reminders.filter((t) => t.id !== id) })),
      snoozeReminder: async (task) => {
        const problem = await act(() => api.invoke('tasks.snooze', { task: task.id, minutes: SNOOZE_MINUTES }));
        if (!problem) {
          get().dismissReminder(task.id);
          get().announce(`Snoozed for ${SNOOZE_MINUTES} minutes: ${task.content}`);
        }
      },
      archivedProjects: idle(),
      archivedLists: idle(),
      loadArchivedProjects: () =>
        load('archivedProjects', async () => (await api.invoke('projects.list', { includeArchived: true })).filter((p) => p.archivedAt !== null)),
      loadArchivedLists: () => load('archivedLists', async () => (await api.invoke('lists.list', { includeArchived: true })).filter((l) => l.archivedAt !== null)),

      addTask: async (box, text, defaults = {}) => {
        const { createProject, ...given } = defaults;
        const r = await outcome(() => api.invoke('capture.add', { text, ...given, ...(createProject ? { createProject } : {}) }));
        if (box !== 'capture') set((s) => ({ formProblems: { ...s.formProblems, [box]: r.ok ? undefined : r.problem } }));
        if (!r.ok) return { ok: false, problem: r.problem };
        const a = r.value;
        const words = addedWords(a);
        if (a.createdProject) void get().loadProjects();
        if (box === 'capture') return { ok: true, words };
        if (a.createdProject)
          get().notify(words, 'info', {
            label: 'Undo',
            run: async () => {
              if (a.requestId) await get().undoRequest(a.requestId);
            },
          });
        else if (a.unread.project || a.unread.repeat) get().notify(words);
        // Into another project than the box's: it leaves this view, so say where it went.
        else if (a.value.projectId !== (given.project ?? INBOX_ID)) get().notifyWentTo(`Added to ${a.value.project}`, a.value.projectId);
        else get().announce(`Added: ${a.value.content}`);
        return { ok: true, words };
      },
      editTask: async (task, patch) => {
        const update: Omit<TaskPatch, 'project'> = {};
        if (patch.content !== undefined && patch.content !== task.content) update.content = patch.content;
        if (patch.priority !== undefined && patch.priority !== task.priority) update.priority = patch.priority;
        if (patch.due !== undefined && patch.due !== task.due) update.due = patch.due;
        if (patch.recurrence !== undefined && patch.recurrence !== task.recurrence) update.recurrence = patch.recurrence;
        // The rich fields are sent as the editor found them changed.
        for (const k of ['description', 'deadline', 'durationMin', 'labels', 'section'] as const) if (patch[k] !== undefined) Object.assign(update, { [k]: patch[k] });
        const move = patch.project !== undefined && patch.project !== task.projectId ? patch.project : null;
        if (Object.keys(update).length > 0) {
          const problem = await attempt(() => api.invoke('tasks.update', { task: task.id, ...update }));
          if (problem) return problem;
        }
        if (move) {
          const problem = await attempt(() => api.invoke('tasks.move', { task: task.id, project: move }));
          if (problem) return problem;
        }
        if (move) {
          const to = get().projects.value?.find((p) => p.id === move)?.name ?? 'another project';
          get().notifyWentTo(`Moved “${update.content ?? task.content}” to ${to}`, move);
        } else if (Object.keys(update).length > 0) get().announce(`Saved: ${update.content ?? task.content}`);
        return null;
      },
      archiveTask: async (task) => {
        await act(
          () => api.invoke('tasks.archive', { task: task.id }),
          (r) => get().notifyUndoable(`Archived: ${task.content}`, r.actionId),
        );
      },

      renameProject: (id, name) => attempt(() => api.invoke('projects.rename', { project: id, name }), (r) => get().announce(`Renamed to ${r.value.name}`)),
      archiveProject: (id) =>
        act(
          () => api.invoke('projects.archive', { project: id }),
          (r) => {
            get().notifyUndoable(`Archived the project ${r.value.name}`, r.actionId);
            void refreshArchived();
          },
        ),
      unarchiveProject: (id) =>
        act(
          () => api.invoke('projects.unarchive', { project: id }),
          (r) => {
            get().notify(`Brought back the project ${r.value.name}`);
            void refreshArchived();
          },
        ),
      renameList: (id, name) => attempt(() => api.invoke('lists.rename', { list: id, name }), (r) => get().announce(`Renamed to ${r.value.name}`)),
      archiveList: (id) =>
        act(
          () => api.invoke('lists.archive', { list: id }),
          (r) => {
            get().notifyUndoable(`Archived the list ${r.value.name}`, r.actionId);
            void refreshArchived();
          },
        ),
      unarchiveList: (id) =>
        act(
          () => api.invoke('lists.unarchive', { list: id }),
          (r) => {
            get().notify(`Brought back the list ${r.value.name}`);
            void refreshArchived();
          },
        ),
      editListItem: (list, item, text) => attempt(() => api.invoke('lists.editItem', { list, item, text }), (r) => get().announce(`Saved: ${r.value.text}`)),
      archiveListItem: (list, item) =>
        act(
          () => api.invoke('lists.archiveItem', { list, item }),
          (r) => get().notifyUndoable(`Archived: ${r.value.text}`, r.actionId),
        ),

      notifyWentTo: (text, projectId) =>
        get().notify(text, 'info', {
          label: 'Open',
          run: () => {
            get().show('projects');
            return get().openProject(projectId);
          },
        }),
      notifyUndoable: (text, actionId) =>
        get().notify(text, 'info', {
          label: 'Undo',
          run: async () => {
            if (await get().undoAction(actionId)) return;
            // The refusal belongs to the entry in Actions; here it is said as a notice instead.
            const key = actionKey(actionId);
            const problem = get().undoProblems[key];
            get().dismissUndoProblem(key);
            if (problem) get().notifyProblem(problem);
          },
        }),
    };
  };

export { createRichSlice, type RichSlice, type Progress } from './rich-slice';
export { createDataSlice, TASK_PAGE, type DataSlice, type DataForm, type ProjectRow, type TaskPage, type ListPage } from './data-slice';
