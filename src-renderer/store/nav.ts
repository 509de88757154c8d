/** Which view is shown, the panels around it, and short-lived notices (toasts). */
import type { SliceCreator } from './types';

export const VIEWS = ['chat', 'inbox', 'projects', 'lists', 'actions', 'settings'] as const;
export type View = (typeof VIEWS)[number];

export const VIEW_LABELS: Record<View, string> = {
  chat: 'Chat',
  inbox: 'Inbox',
  projects: 'Projects',
  lists: 'Lists',
  actions: 'Actions',
  settings: 'Settings',
};

export const isView = (v: unknown): v is View => typeof v === 'string' && (VIEWS as readonly string[]).includes(v);

export interface Notice {
  id: number;
  text: string;
  /** `announce`: for screen readers only (what the screen already shows, e.g. an approval card appearing). */
  tone: 'info' | 'error' | 'announce';
}

export interface NavSlice {
  view: View;
  /** The trace panel on the right; remembered across launches. */
  traceOpen: boolean;
  helpOpen: boolean;
  notices: Notice[];
  show(view: View): void;
  toggleTrace(open?: boolean): void;
  toggleHelp(open?: boolean): void;
  notify(text: string, tone?: Notice['tone']): void;
  /** Says `text` in the polite status region without showing a notice. */
  announce(text: string): void;
  dismissNotice(id: number): void;
}

const MAX_NOTICES = 3;
let nextNotice = 1;

/** The newest notices shown, and the newest announcements: one kind never pushes the other out. */
function capped(list: Notice[]): Notice[] {
  const keep = new Set([...list.filter((n) => n.tone !== 'announce').slice(-MAX_NOTICES), ...list.filter((n) => n.tone === 'announce').slice(-MAX_NOTICES)]);
  return list.filter((n) => keep.has(n));
}

export const createNavSlice: SliceCreator<NavSlice> = (set) => ({
  view: 'chat',
  traceOpen: true,
  helpOpen: false,
  notices: [],
  show: (view) => set({ view, helpOpen: false }),
  toggleTrace: (open) => set((s) => ({ traceOpen: open ?? !s.traceOpen })),
  toggleHelp: (open) => set((s) => ({ helpOpen: open ?? !s.helpOpen })),
  notify: (text, tone = 'info') => set((s) => ({ notices: capped([...s.notices, { id: nextNotice++, text, tone }]) })),
  announce: (text) => set((s) => ({ notices: capped([...s.notices, { id: nextNotice++, text, tone: 'announce' }]) })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
});
