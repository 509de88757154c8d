/**
 * Rich tasks in the window: sections of a project, subtask progress ("2/5"), indent and outdent, comments,
 * labels (the Labels view), the filter box and saved filters. Every change is one logged operation, so it
 * shows in Actions and can be undone; reads refetch on `data.changed` (refreshRich).
 */
import type { Comment, Section, Task } from '../../../src-shared/domain';
import type { LabelInfo, SavedFilter, SyncConflict, SyncHistoryTable, Topic } from '../../../src-shared/ipc';
import { createCoalescer } from '../../lib/coalesce';
import type { Problem } from '../../lib/problem';
import { isoDay } from '../../lib/due';
import { idle, loadInto, type Loadable, type ValueOf } from '../../store/loadable';
import { attempt, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';
import { TASK_PAGE, type TaskPage } from './data-slice';

export interface Progress {
  done: number;
  total: number;
}

export interface RichSlice {
  /** Live sections by project id, loaded on demand. */
  sections: Record<string, Section[]>;
  /** Direct subtasks done / all, by task id, for the tasks lists have shown. */
  progress: Record<string, Progress>;
  /** Counts the changes to tasks seen (data.changed): lists refetch their progress when it moves. */
  tasksVersion: number;
  /** A task's comments, by task id, loaded when its editor opens. */
  comments: Record<string, Loadable<Comment[]>>;
  /**
   * The sync history of rows open in an editor (a task, an event, a project, a list), by `table:row` (values
   * overwritten by a concurrent edit on another device); shown by ui/SyncHistory.
   */
  syncConflicts: Record<string, SyncConflict[]>;
  labels: Loadable<LabelInfo[]>;
  /** The label the Labels view shows, and its open tasks. */
  label: Loadable<TaskPage> & { name: string | null };
  savedFilters: Loadable<SavedFilter[]>;
  /** The filter box's query and what it matched (a bad query: `problem`, its one line naming the position). */
  filter: Loadable<TaskPage> & { query: string };
  loadSections(project: string): Promise<void>;
  loadProgress(tasks: readonly string[]): Promise<void>;
  loadComments(task: string): Promise<void>;
  addComment(task: string, text: string): Promise<Problem | null>;
  loadSyncConflicts(table: SyncHistoryTable, row: string): Promise<void>;
  loadLabels(): Promise<void>;
  openLabel(name: string | null): Promise<void>;
  loadSavedFilters(): Promise<void>;
  runFilter(query: string): Promise<void>;
  /** Opens the Filters view with a saved filter's query. */
  openSavedFilter(f: SavedFilter): Promise<void>;
  saveFilter(name: string, query: string): Promise<Problem | null>;
  deleteFilter(f: SavedFilter): Promise<void>;
  createSection(project: string, name: string): Promise<Problem | null>;
  renameSection(section: string, name: string): Promise<Problem | null>;
  archiveSection(section: Section): Promise<void>;
  /** Puts a section just before `before` (null: last) in its project; undoable. */
  moveSection(section: Section, before: string | null, way: 'up' | 'down'): Promise<void>;
  /** Makes the task a subtask of the one above it (its sibling in the project's order); one level up. */
  indentTask(task: Task): Promise<void>;
  outdentTask(task: Task): Promise<void>;
  /** Makes the task a subtask of `parent` (a task dropped onto another). */
  nestTask(task: Task, parent: Task): Promise<void>;
  /** Gives a label a colour (#rrggbb) or takes it off (null); undoable. */
  setLabelColour(label: string, colour: string | null): Promise<void>;
  /** Refetches what is loaded and depends on these topics. */
  refreshRich(topics: readonly Topic[]): Promise<void>;
}

declare module '../../store/types' {
  interface AppState extends RichSlice {}
}

/** Sync histories kept at once (the editors open: a task's beside its project's, say). */
const KEPT_HISTORIES = 4;
/** The topic that says a history's rows changed. */
const HISTORY_TOPIC: Record<SyncHistoryTable, Topic> = { tasks: 'tasks', events: 'events', projects: 'projects', lists: 'lists', routines: 'routines' };

/** At most this many task ids per progress request (a page of a view). */
const PROGRESS_BATCH = 2000;

export const createRichSlice =
  ({ api }: Deps): SliceCreator<RichSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();
    const load = <K extends 'labels' | 'label' | 'savedFilters' | 'filter'>(key: K, fetch: () => Promise<ValueOf<K> | undefined>) => coalesce(key, () => loadInto(set, key, fetch));
    const today = () => isoDay(new Date(Date.now()));
    const shown = (l: Loadable<unknown>) => l.value !== null || l.loading || l.problem !== null;
    let filterSeq = 0;

    const fetchLabel = async (): Promise<TaskPage | undefined> => {
      const name = get().label.name;
      if (name === null) return undefined;
      // The name travels escaped: a label is one word, but \ keeps the filter language's operators text.
      const page = await api.invoke('tasks.find', { filter: `@${name.replace(/[\\&|!()]/g, '\\$&')}`, today: today(), limit: TASK_PAGE });
      return get().label.name === name ? page : undefined;
    };

    const loadComments = (task: string) =>
      coalesce(`comments:${task}`, async () => {
        // Only the open editor's comments are kept (and refetched on changes).
        set((s) => ({ comments: { [task]: { ...(s.comments[task] ?? idle()), loading: true } } }));
        const r = await attempt(
          () => api.invoke('tasks.comments', { task }),
          (value) => set((s) => ({ comments: { ...s.comments, [task]: { value, loading: false, problem: null } } })),
        );
        if (r) set((s) => ({ comments: { ...s.comments, [task]: { ...(s.comments[task] ?? idle()), loading: false, problem: r } } }));
      });

    const loadSyncConflicts = (table: SyncHistoryTable, row: string) =>
      coalesce(`sync-conflicts:${table}:${row}`, async () => {
        try {
          const list = await api.invoke('sync.conflicts', { table, row });
          // Only the open editors' histories are kept (and refetched on changes): the last few opened.
          set((s) => ({ syncConflicts: { ...Object.fromEntries(Object.entries(s.syncConflicts).slice(-(KEPT_HISTORIES - 1))), [`${table}:${row}`]: list } }));
        } catch {
          // The history is a note beside the task; the editor works without it.
        }
      });

    return {
      sections: {},
      progress: {},
      tasksVersion: 0,
      comments: {},
      syncConflicts: {},
      labels: idle(),
      label: { ...idle(), name: null },
      savedFilters: idle(),
      filter: { ...idle(), query: '' },

      loadSections: (project) =>
        coalesce(`sections:${project}`, async () => {
          try {
            const list = await api.invoke('sections.list', { project });
            set((s) => ({ sections: { ...s.sections, [project]: list } }));
          } catch {
            // Sections are a grouping: without them the tasks are still shown, in one list.
          }
        }),
      loadProgress: async (tasks) => {
        const ids = [...new Set(tasks)].slice(0, PROGRESS_BATCH);
        if (ids.length === 0) return;
        // A burst of changes (an agent run) costs a list at most two requests.
        await coalesce(`progress:${ids.join(' ')}`, async () => {
          try {
            const counts = await api.invoke('tasks.progress', { tasks: ids });
            set((s) => ({ progress: { ...s.progress, ...Object.fromEntries(counts.map((c) => [c.id, { done: c.done, total: c.total }])) } }));
          } catch {
            // "2/5" is a hint beside the task; the list works without it.
          }
        });
      },
      loadComments,
      loadSyncConflicts,
      addComment: (task, text) =>
        attempt(
          () => api.invoke('tasks.comment', { task, text }),
          () => {
            get().announce('Comment added');
            void loadComments(task);
          },
        ),
      loadLabels: () => load('labels', () => api.invoke('labels.list', {})),
      openLabel: async (name) => {
        if (name !== get().label.name) set({ label: { ...idle(), name } });
        await load('label', fetchLabel);
      },
      loadSavedFilters: () => load('savedFilters', () => api.invoke('filters.list', {})),
      runFilter: async (query) => {
        const seq = ++filterSeq;
        if (!query.trim()) {
          set({ filter: { ...idle(), query } });
          return;
        }
        set((s) => ({ filter: { ...s.filter, query, loading: true } }));
        const r = await attempt(
          () => api.invoke('tasks.find', { filter: query, today: today(), limit: TASK_PAGE }),
          (value) => {
            // Only the answer to the latest query is shown.
            if (seq === filterSeq) set({ filter: { value, loading: false, problem: null, query } });
          },
        );
        if (r && seq === filterSeq) set({ filter: { value: null, loading: false, problem: r, query } });
      },
      openSavedFilter: async (f) => {
        get().show('filters');
        await get().runFilter(f.query);
      },
      saveFilter: (name, query) =>
        attempt(
          () => api.invoke('filters.save', { name, query }),
          (r) => get().notify(`Saved the filter ${r.value.name}`),
        ),
      deleteFilter: async (f) => {
        const r = await request(get, () => api.invoke('filters.delete', { filter: f.id }));
        if (r.ok) get().notifyUndoable(`Deleted the filter ${f.name}`, r.value.actionId);
      },
      createSection: (project, name) =>
        attempt(
          () => api.invoke('sections.create', { project, name }),
          (r) => get().announce(`Created the section ${r.value.name}`),
        ),
      renameSection: (section, name) =>
        attempt(
          () => api.invoke('sections.rename', { section, name }),
          (r) => get().announce(`Renamed the section to ${r.value.name}`),
        ),
      archiveSection: async (section) => {
        const r = await request(get, () => api.invoke('sections.archive', { section: section.id }));
        if (r.ok) get().notifyUndoable(`Archived the section ${section.name}`, r.value.actionId);
      },
      moveSection: async (section, before, way) => {
        const r = await request(get, () => api.invoke('sections.reorder', { section: section.id, before }));
        if (r.ok) get().notifyUndoable(`Moved the section ${section.name} ${way}`, r.value.actionId);
      },
      indentTask: async (task) => {
        const r = await request(get, () => api.invoke('tasks.indent', { task: task.id }));
        if (r.ok) get().notifyUndoable(`${task.content} is now a subtask`, r.value.actionId);
      },
      outdentTask: async (task) => {
        const r = await request(get, () => api.invoke('tasks.outdent', { task: task.id }));
        if (r.ok) get().notifyUndoable(`${task.content} moved up a level`, r.value.actionId);
      },
      nestTask: async (task, parent) => {
        const r = await request(get, () => api.invoke('tasks.update', { task: task.id, parent: parent.id }));
        if (r.ok) get().notifyUndoable(`${task.content} is now a subtask of ${parent.content}`, r.value.actionId);
      },
      setLabelColour: async (label, colour) => {
        const r = await request(get, () => api.invoke('labels.colour', { label, colour }));
        if (r.ok) get().notifyUndoable(colour ? `Coloured @${label}` : `Took the colour off @${label}`, r.value.actionId);
      },

      refreshRich: async (topics) => {
        const s = get();
        await Promise.all(
          Object.keys(s.syncConflicts).map((key) => {
            const [table, row] = key.split(':') as [SyncHistoryTable, string];
            return topics.includes('sync') || topics.includes(HISTORY_TOPIC[table]) ? loadSyncConflicts(table, row) : null;
          }),
        );
        if (!topics.some((t) => t === 'tasks' || t === 'projects')) return;
        if (topics.includes('tasks')) set((s) => ({ tasksVersion: s.tasksVersion + 1 }));
        await Promise.all([
          ...Object.keys(s.sections).map((p) => s.loadSections(p)),
          ...Object.keys(s.comments).map((t) => loadComments(t)),
          shown(s.labels) ? s.loadLabels() : null,
          s.label.name !== null ? load('label', fetchLabel) : null,
          shown(s.savedFilters) ? s.loadSavedFilters() : null,
          s.filter.query.trim() && (s.filter.value || s.filter.loading) ? s.runFilter(s.filter.query) : null,
        ]);
      },
    };
  };
