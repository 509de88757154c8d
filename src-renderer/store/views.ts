/**
 * The views of the main window, in one list: it drives the sidebar (order, label, icon), the address
 * (#/inbox), the shortcuts (Alt+1… in this order), where the focus goes when a view is opened by a
 * shortcut, and which data topics refresh it. The screen of each view is mapped in app/screens.tsx,
 * typed so that a view without one does not compile. Recipe for a new view: docs in that file's header.
 */
import type { Topic } from '../../src-shared/ipc';
import type { AppState } from './types';

interface ViewDef {
  id: string;
  label: string;
  /** A 24×24 line icon, drawn with currentColor (one SVG path). */
  icon: string;
  /**
   * Where the focus goes when the view is opened from the keyboard: the message box, or the view's
   * heading (from where Tab reaches its first control).
   */
  focus: 'composer' | 'heading';
  /** The data topics (src-shared/ipc.ts) whose change may alter what the view shows. */
  topics: readonly Topic[];
  /** Refetches what the view shows after its topics changed (only what it has loaded). */
  refresh(s: AppState, topics: readonly Topic[]): Promise<void>;
}

export const VIEW_DEFS = [
  {
    id: 'chat',
    label: 'Chat',
    icon: 'M4 5h16v11H9l-5 4z',
    focus: 'composer',
    // actions: the changes shown under each answer follow undo and redo.
    topics: ['conversations', 'runs', 'actions'],
    refresh: (s, topics) => s.refreshChat(topics),
  },
  {
    id: 'inbox',
    label: 'Inbox',
    icon: 'M4 13l2-8h12l2 8v6H4zM4 13h5l1 2h4l1-2h5',
    focus: 'heading',
    topics: ['tasks', 'projects'],
    refresh: (s) => s.refreshInbox(),
  },
  {
    id: 'today',
    label: 'Today',
    icon: 'M4 6h16v14H4zM4 10h16M8 3v4M16 3v4M10.5 13.5h3v3h-3z',
    focus: 'heading',
    // The sidebar's counts come with it: refreshed whenever loaded.
    topics: ['tasks', 'projects'],
    refresh: (s) => s.refreshTaskView('today'),
  },
  {
    id: 'upcoming',
    label: 'Upcoming',
    icon: 'M4 6h16v14H4zM4 10h16M8 3v4M16 3v4M8 15h7M13 13l2 2-2 2',
    focus: 'heading',
    topics: ['tasks', 'projects'],
    refresh: (s) => s.refreshTaskView('upcoming'),
  },
  {
    id: 'calendar',
    label: 'Calendar',
    icon: 'M4 6h16v14H4zM4 10h16M8 3v5M16 3v5',
    focus: 'heading',
    // Working hours are settings: the settings slice refetches them on its own topic.
    topics: ['events'],
    refresh: (s) => s.refreshCalendar(),
  },
  {
    id: 'projects',
    label: 'Projects',
    icon: 'M3 6h6l2 2h10v11H3z',
    focus: 'heading',
    // The project list carries the open-task counts, the sidebar's inbox count too: refreshed whenever loaded.
    topics: ['tasks', 'projects'],
    refresh: async (s) => {
      await Promise.all([s.refreshProjects(), s.archivedProjects.value ? s.loadArchivedProjects() : null]);
    },
  },
  {
    id: 'lists',
    label: 'Lists',
    icon: 'M9 6h11M9 12h11M9 18h11M4 6h1M4 12h1M4 18h1',
    focus: 'heading',
    topics: ['lists'],
    refresh: async (s) => {
      await Promise.all([s.refreshLists(), s.archivedLists.value ? s.loadArchivedLists() : null]);
    },
  },
  {
    id: 'actions',
    label: 'Actions',
    icon: 'M9 14L4 9l5-5M4 9h10a6 6 0 010 12h-3',
    focus: 'heading',
    topics: ['actions'],
    refresh: async (s) => {
      if (s.log.loaded) await s.loadActions();
    },
  },
  {
    id: 'settings',
    label: 'Settings',
    icon: 'M12 15a3 3 0 100-6 3 3 0 000 6zM19 12l2-1-1-3-2 .3-1.5-1.5L17 5l-3-1-1 2h-2L10 4 7 5l.5 1.8L6 8.3 4 8l-1 3 2 1v0l-2 1 1 3 2-.3 1.5 1.5L7 19l3 1 1-2h2l1 2 3-1-.5-1.8 1.5-1.5 2 .3 1-3z',
    focus: 'heading',
    topics: ['settings', 'providers', 'secrets'],
    refresh: (s, topics) => s.refreshSettings(topics),
  },
  {
    id: 'completed',
    label: 'Completed',
    icon: 'M12 21a9 9 0 100-18 9 9 0 000 18zM8 12l3 3 5-6',
    focus: 'heading',
    topics: ['tasks', 'projects'],
    refresh: (s) => s.refreshTaskView('completed'),
  },
  {
    id: 'search',
    label: 'Search',
    icon: 'M11 18a7 7 0 100-14 7 7 0 000 14zM16 16l5 5',
    // Ctrl+F or / lands in the search box (app/App.tsx); from the sidebar, on the heading like the others.
    focus: 'heading',
    topics: ['tasks', 'projects', 'lists', 'conversations'],
    refresh: (s) => s.refreshSearch(),
  },
  {
    id: 'labels',
    label: 'Labels',
    icon: 'M3 12V4h8l10 10-8 8zM7.5 8.5h.01',
    focus: 'heading',
    // Last, so that Alt+1…9 keep their views. Refetched with the sections and comments other views show, by
    // refreshRich (app/store.ts).
    topics: ['tasks', 'projects'],
    refresh: () => Promise.resolve(),
  },
  {
    id: 'filters',
    label: 'Filters',
    icon: 'M3 5h18l-7 8v6l-4 2v-8z',
    focus: 'heading',
    topics: ['tasks', 'projects'],
    refresh: () => Promise.resolve(),
  },
  {
    id: 'routines',
    label: 'Routines',
    icon: 'M12 21a9 9 0 100-18 9 9 0 000 18zM12 7v5l3 2M3 4v4h4',
    focus: 'heading',
    // actions: the changes under each run follow undo and redo.
    topics: ['routines', 'runs', 'actions'],
    refresh: (s, topics) => s.refreshRoutines(topics),
  },
  {
    id: 'memory',
    label: 'Memory',
    icon: 'M9 4a3 3 0 00-3 3 3 3 0 00-2 5 3 3 0 002 5 3 3 0 006 1V5a3 3 0 00-3-1zM15 4a3 3 0 013 3 3 3 0 012 5 3 3 0 01-2 5 3 3 0 01-6 1',
    focus: 'heading',
    // Settings: the memory switch and budget are settings.
    topics: ['memory', 'settings', 'projects'],
    refresh: (s) => s.refreshMemory(),
  },
] as const satisfies readonly ViewDef[];

export type View = (typeof VIEW_DEFS)[number]['id'];

export const VIEWS: readonly View[] = VIEW_DEFS.map((v) => v.id);

const BY_ID = new Map<string, ViewDef>(VIEW_DEFS.map((v) => [v.id, v]));

export const isView = (v: unknown): v is View => typeof v === 'string' && BY_ID.has(v);

export function viewDef(id: View): ViewDef {
  return BY_ID.get(id)!;
}

/** Alt+1…9: the view in that place of the list, if any. */
export function viewForDigit(code: string): View | null {
  const m = /^Digit([1-9])$/.exec(code);
  return m ? (VIEWS[Number(m[1]) - 1] ?? null) : null;
}

/** Refreshes every view whose topics are among `topics` (wired to `data.changed` in store/index.ts). */
export async function refreshViews(s: AppState, topics: readonly Topic[]): Promise<void> {
  const views = VIEW_DEFS.filter((v: ViewDef) => v.topics.some((t) => topics.includes(t)));
  await Promise.all(views.map((v: ViewDef) => v.refresh(s, topics)));
}
