/** The data views: the inbox, projects and their tasks, lists and their items. Refetched on `data.changed`. */
import type { List, ListItem, Task } from '../../../src-shared/domain';
import type { Output, Topic } from '../../../src-shared/ipc';
import { createCoalescer } from '../../lib/coalesce';
import type { Problem } from '../../lib/problem';
import { isoDay } from '../../lib/due';
import { dueDateText, readableDates } from '../../lib/when';
import { nextDueOnCompletion } from '../../../src-shared/repeat-rules';
import { idle, loadInto, type Loadable, type ValueOf } from '../../store/loadable';
import { attempt, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

export type ProjectRow = Output<'projects.list'>[number];
export interface TaskPage {
  tasks: Task[];
  total: number;
}
export interface ListPage {
  list: List;
  items: ListItem[];
}

/** The forms of the data views, each showing its own refusal inline. */
export type DataForm = 'inbox.add' | 'today.add' | 'upcoming.add' | 'projects.create' | 'project.add' | 'lists.create' | 'list.add';

export interface DataSlice {
  inbox: Loadable<TaskPage>;
  projects: Loadable<ProjectRow[]>;
  /** The open project's tasks. */
  project: Loadable<TaskPage> & { id: string | null };
  lists: Loadable<List[]>;
  /** The open list and its items. */
  list: Loadable<ListPage> & { id: string | null };
  formProblems: Partial<Record<DataForm, Problem>>;
  loadInbox(): Promise<void>;
  loadProjects(): Promise<void>;
  openProject(id: string | null): Promise<void>;
  loadLists(): Promise<void>;
  openList(id: string | null): Promise<void>;
  /** Refetches what is shown and depends on these topics. */
  refreshData(topics: readonly Topic[]): Promise<void>;
  /** Refetch what was loaded: the inbox; the projects and the open project; the lists and the open list. */
  refreshInbox(): Promise<void>;
  refreshProjects(): Promise<void>;
  refreshLists(): Promise<void>;
  setTaskDone(taskId: string, done: boolean): Promise<void>;
  createProject(name: string): Promise<boolean>;
  createList(name: string): Promise<boolean>;
  addListItem(list: string, text: string): Promise<boolean>;
  checkListItem(list: string, item: string, checked: boolean): Promise<void>;
}

declare module '../../store/types' {
  interface AppState extends DataSlice {}
}

/** At most this many tasks are shown per view (the count says how many there are). */
export const TASK_PAGE = 1000;


export const createDataSlice =
  ({ api }: Deps): SliceCreator<DataSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();

    /** Loads one resource into `key`; a burst of calls costs at most two fetches. */
    const load = <K extends 'inbox' | 'projects' | 'project' | 'lists' | 'list'>(key: K, fetch: () => Promise<ValueOf<K> | undefined>) =>
      coalesce(key, () => loadInto(set, key, fetch));

    /** Runs an edit; a refusal is shown by its form (or as a notice), the change itself arrives as data.changed. */
    const edit = async (form: DataForm | null, run: () => Promise<unknown>): Promise<boolean> => {
      // A form owns its refusal (an inline error); without one it is told in a notice.
      if (!form) return (await request(get, run)).ok;
      const problem = await attempt(run);
      set((s) => ({ formProblems: { ...s.formProblems, [form]: problem ?? undefined } }));
      return problem === null;
    };

    const fetchProject = async (): Promise<TaskPage | undefined> => {
      const id = get().project.id;
      if (id === null) return undefined;
      const page = await api.invoke('tasks.list', { project: id, limit: TASK_PAGE });
      return get().project.id === id ? page : undefined;
    };
    const fetchList = async (): Promise<ListPage | undefined> => {
      const id = get().list.id;
      if (id === null) return undefined;
      const page = await api.invoke('lists.items', { list: id });
      return get().list.id === id ? page : undefined;
    };

    const shown = (l: Loadable<unknown>) => l.value !== null || l.loading || l.problem !== null;

    return {
      inbox: idle(),
      projects: idle(),
      project: { ...idle(), id: null },
      lists: idle(),
      list: { ...idle(), id: null },
      formProblems: {},

      loadInbox: () => load('inbox', () => api.invoke('tasks.list', { project: 'inbox', limit: TASK_PAGE })),
      loadProjects: () => load('projects', () => api.invoke('projects.list')),
      openProject: async (id) => {
        if (id !== get().project.id) set({ project: { ...idle(), id } });
        await load('project', fetchProject);
      },
      loadLists: () => load('lists', () => api.invoke('lists.list')),
      openList: async (id) => {
        if (id !== get().list.id) set({ list: { ...idle(), id } });
        await load('list', fetchList);
      },

      refreshData: async (topics) => {
        const s = get();
        const has = (...t: Topic[]) => t.some((x) => topics.includes(x));
        const jobs: Promise<void>[] = [];
        if (has('tasks', 'projects')) jobs.push(s.refreshInbox(), s.refreshProjects());
        if (has('lists')) jobs.push(s.refreshLists());
        await Promise.all(jobs);
      },
      refreshInbox: async () => {
        if (shown(get().inbox)) await get().loadInbox();
      },
      refreshProjects: async () => {
        const s = get();
        // The project list carries the open-task counts (the sidebar's inbox count too).
        await Promise.all([shown(s.projects) ? s.loadProjects() : null, s.project.id !== null ? load('project', fetchProject) : null]);
      },
      refreshLists: async () => {
        const s = get();
        await Promise.all([shown(s.lists) ? s.loadLists() : null, s.list.id !== null ? load('list', fetchList) : null]);
      },

      setTaskDone: async (task, done) => {
        // The box ticks at once; the views refetch on data.changed (or now, to undo the tick, if refused).
        const status = done ? ('done' as const) : ('open' as const);
        const tick = (page: TaskPage | null) => page && { ...page, tasks: page.tasks.map((t) => (t.id === task ? { ...t, status } : t)) };
        const pages = ['inbox', 'project', 'today', 'upcoming', 'completed'] as const;
        set((s) => Object.fromEntries(pages.map((k) => [k, { ...s[k], value: tick(s[k].value) }])));
        const content = pages.flatMap((k) => get()[k].value?.tasks ?? []).find((t) => t.id === task)?.content;
        let actionId: string | null = null;
        let after = '';
        const ok = await edit(null, async () => {
          const r = await (done ? api.invoke('tasks.complete', { task }) : api.invoke('tasks.reopen', { task }));
          actionId = r.actionId;
          const t = r.value;
          // A repeating task stays open with its next due: the notice says when it comes back; one whose
          // rule gives no later date is done for good, and the notice says why (as the CLI does).
          if (done && t.status === 'open' && t.due) after = ` · Next: ${dueDateText(t.due)}`;
          else if (done && t.status === 'done' && t.recurrence && t.due) {
            const { clause } = nextDueOnCompletion(t.recurrence, t.due, isoDay(new Date()));
            if (clause) after = ` · ${readableDates(clause)}`;
          }
        });
        if (!ok) await get().refreshData(['tasks']);
        else if (content !== undefined && actionId !== null) get().notifyUndoable(`${done ? 'Completed' : 'Reopened'}: ${content}${after}`, actionId);
      },
      createProject: (name) => edit('projects.create', () => api.invoke('projects.create', { name })),
      createList: (name) => edit('lists.create', () => api.invoke('lists.create', { name })),
      addListItem: (list, text) => edit('list.add', () => api.invoke('lists.addItem', { list, text })),
      checkListItem: async (list, item, checked) => {
        set((s) => ({ list: { ...s.list, value: s.list.value && { ...s.list.value, items: s.list.value.items.map((i) => (i.id === item ? { ...i, checked } : i)) } } }));
        const text = get().list.value?.items.find((i) => i.id === item)?.text;
        const ok = await edit(null, () => api.invoke('lists.checkItem', { list, item, checked }));
        if (!ok) await get().refreshData(['lists']);
        else if (text !== undefined) get().announce(`${checked ? 'Checked' : 'Unchecked'}: ${text}`);
      },
    };
  };
