/** Which view is shown, the panels around it, and short-lived notices (toasts). */
import { problemLine, type Problem } from '../lib/problem';
import type { SliceCreator } from './types';
import type { View } from './views';

export type { View } from './views';

export interface Notice {
  id: number;
  text: string;
  /** `announce`: for screen readers only (what the screen already shows, e.g. an approval card appearing). */
  tone: 'info' | 'error' | 'announce';
  /** For an error: the problem's code (what kind of failure), beside its words. */
  code?: Problem['code'];
  /** A button on the notice, e.g. Undo on "Completed: …"; pressing it also dismisses the notice. */
  action?: NoticeAction;
}

interface NoticeAction {
  label: string;
  run(): unknown;
}

export interface NavSlice {
  view: View;
  /** The trace panel on the right; remembered across launches. */
  traceOpen: boolean;
  /** A narrow window (or a high zoom): the trace is an overlay, opened only when asked for. */
  narrow: boolean;
  /** The trace overlay of a narrow window; not remembered. */
  traceOverlay: boolean;
  /** The trace stays on every view; unpinned it belongs to the chat. Remembered across launches. */
  tracePinned: boolean;
  pinTrace(pinned: boolean): void;
  /** Alt+T and the sidebar's button: shows or hides the trace here; outside the chat, showing it pins it. */
  toggleTraceHere(): void;
  setNarrow(narrow: boolean): void;
  helpOpen: boolean;
  notices: Notice[];
  show(view: View): void;
  toggleTrace(open?: boolean): void;
  toggleHelp(open?: boolean): void;
  notify(text: string, tone?: Notice['tone'], action?: NoticeAction): void;
  /** Tells a failure in an error notice: its message and hint, with its code (store/request.ts). */
  notifyProblem(problem: Pick<Problem, 'code' | 'message' | 'hint'>): void;
  /** Says `text` in the polite status region without showing a notice. */
  announce(text: string): void;
  dismissNotice(id: number): void;
}

declare module './types' {
  interface AppState extends NavSlice {}
}

/** Whether the trace panel is on screen: docked in a wide window, as an overlay in a narrow one. */
export const traceShown = (s: Pick<NavSlice, 'narrow' | 'traceOpen' | 'traceOverlay'>): boolean => (s.narrow ? s.traceOverlay : s.traceOpen);

/** Whether the trace is on screen in the current view: on the chat's, or on every view when pinned. */
export const traceVisible = (s: Pick<NavSlice, 'narrow' | 'traceOpen' | 'traceOverlay' | 'tracePinned' | 'view'>): boolean =>
  traceShown(s) && (s.view === 'chat' || s.tracePinned);

/** Notices on screen at once (announcements counted apart): a newer one pushes the oldest out. */
export const MAX_NOTICES = 3;
/** How long a plain notice (or an announcement) stays. */
export const NOTICE_MS = 6000;
let nextNotice = 1;

/**
 * How long a notice stays on its own (ms), or null: until dismissed. A notice that holds an action (Undo,
 * Open) waits for the user, and so does an error; they still leave when the view changes (`show`) or
 * newer notices push them out (`capped`), so they never stack without end.
 */
export function noticeLifetime(n: Pick<Notice, 'tone' | 'action'>): number | null {
  return n.tone === 'error' || n.action ? null : NOTICE_MS;
}

/** The newest notices shown, and the newest announcements: one kind never pushes the other out. */
function capped(list: Notice[]): Notice[] {
  const keep = new Set([...list.filter((n) => n.tone !== 'announce').slice(-MAX_NOTICES), ...list.filter((n) => n.tone === 'announce').slice(-MAX_NOTICES)]);
  return list.filter((n) => keep.has(n));
}

export const createNavSlice: SliceCreator<NavSlice> = (set) => ({
  view: 'chat',
  traceOpen: true,
  narrow: false,
  traceOverlay: false,
  tracePinned: false,
  pinTrace: (tracePinned) => set({ tracePinned }),
  toggleTraceHere: () =>
    set((s) => {
      const open = !traceVisible(s);
      return { ...(s.narrow ? { traceOverlay: open } : { traceOpen: open }), ...(open && s.view !== 'chat' ? { tracePinned: true } : {}) };
    }),
  helpOpen: false,
  notices: [],
  // Another view: a notice's Undo or Open belongs to what the user just left, so those notices go.
  show: (view) => set((s) => ({ view, helpOpen: false, ...(view !== s.view ? { notices: s.notices.filter((n) => !n.action) } : {}) })),
  setNarrow: (narrow) => set({ narrow, traceOverlay: false }),
  toggleTrace: (open) => set((s) => (s.narrow ? { traceOverlay: open ?? !s.traceOverlay } : { traceOpen: open ?? !s.traceOpen })),
  toggleHelp: (open) => set((s) => ({ helpOpen: open ?? !s.helpOpen })),
  notify: (text, tone = 'info', action) => set((s) => ({ notices: capped([...s.notices, { id: nextNotice++, text, tone, ...(action ? { action } : {}) }]) })),
  notifyProblem: (p) => set((s) => ({ notices: capped([...s.notices, { id: nextNotice++, text: problemLine(p), tone: 'error', code: p.code }]) })),
  announce: (text) => set((s) => ({ notices: capped([...s.notices, { id: nextNotice++, text, tone: 'announce' }]) })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
});
