/** The main window: a skip link, the sidebar, the current view, the trace panel; the global keyboard shortcuts. */
import { useEffect, useRef, useState } from 'react';
import { composer, focusWhenReady } from '../lib/focus';
import { activeRun, waitingApproval, TracePanel } from '../features/chat';
import { traceVisible } from '../store/nav';
import { useApp, useAppStore } from '../store/react';
import { viewDef, viewForDigit, type View } from '../store/views';
import { SEARCH_BOX } from '../features/search';
import { Reminders } from '../features/tasks';
import { GoTo } from './GoTo';
import { HelpOverlay } from './HelpOverlay';
import { Notices } from '../ui/Notices';
import { cyclePanes } from './panes';
import { SCREENS } from './screens';
import { isTyping } from '../ui/shortcuts';
import { Sidebar } from './Sidebar';

/**
 * Below this width (a narrow window, or 200% zoom of a laptop screen) the trace is an overlay opened on
 * demand, so the conversation keeps the room it needs.
 */
const NARROW = '(max-width: 860px)';

/** The add field of the view on screen (features/tasks/QuickAdd.tsx's form), if it has one. */
const ADD_FIELD = '#main form.quick-add input';

/** The place a view's keyboard user starts from: the message box, or the view's heading. */
function viewTarget(view: View): HTMLElement | null {
  if (viewDef(view).focus === 'composer') return composer();
  return document.querySelector<HTMLElement>('main [data-view-heading]') ?? document.querySelector<HTMLElement>('main');
}

export function App() {
  const view = useApp((s) => s.view);
  // While the first-run welcome asks for a model and nothing ran yet, the trace would be an empty panel
  // taking 380 px from the welcome's form: it shows once there is something to trace.
  const trace = useApp((s) => traceVisible(s) && !(s.view === 'chat' && s.setup.state === 'needed' && s.traceRunId === null));
  const narrow = useApp((s) => s.narrow);
  const helpOpen = useApp((s) => s.helpOpen);
  const store = useAppStore();
  const [goTo, setGoTo] = useState(false);
  const Screen = SCREENS[view];
  /** A view opened from the keyboard: its start gets the focus once it is on screen. */
  const focusOnShow = useRef(false);

  useEffect(() => {
    document.title = `${viewDef(view).label} — Tidy`;
    if (focusOnShow.current) {
      focusOnShow.current = false;
      viewTarget(view)?.focus();
    }
  }, [view]);

  useEffect(() => {
    // The sidebar's counts and the conversation list are wanted from the start.
    void store.getState().loadProjects();
    void store.getState().loadCounts();
    void store.getState().loadConversations();
  }, [store]);

  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const apply = () => store.getState().setNarrow(query.matches);
    apply();
    query.addEventListener('change', apply);
    return () => query.removeEventListener('change', apply);
  }, [store]);

  useEffect(() => {
    /** Shows a view and puts the focus on its start (never left on the page body after the field it was in is gone). */
    const open = (target: View) => {
      const s = store.getState();
      if (s.view === target) viewTarget(target)?.focus();
      else {
        focusOnShow.current = true;
        s.show(target);
      }
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const s = store.getState();
      const mod = e.ctrlKey || e.metaKey;
      const digitView = e.altKey && !mod ? viewForDigit(e.code) : null;
      if (e.key === 'Escape') {
        const traceEl = document.querySelector('[data-pane="trace"]');
        if (s.helpOpen) s.toggleHelp(false);
        else if (s.narrow && s.traceOverlay && traceEl?.contains(e.target as Node)) s.toggleTrace(false);
        else if (activeRun(s)) void s.stop();
        else return;
      } else if (e.key === 'F6' && !mod && !e.altKey) {
        cyclePanes(e.shiftKey);
      } else if (digitView) {
        open(digitView);
      } else if (e.altKey && !mod && e.code === 'Digit0') {
        // Every view by name: Alt+1…9 reach only the first nine.
        setGoTo(true);
      } else if (e.key === 'q' && !mod && !e.altKey && !isTyping(e.target)) {
        // To the add field: this view's, or the Inbox's when this view has none.
        const field = () => document.querySelector<HTMLInputElement>(ADD_FIELD);
        if (field()) field()!.focus();
        else {
          if (s.view !== 'inbox') s.show('inbox');
          focusWhenReady(field);
        }
      } else if (e.altKey && !mod && e.code === 'KeyN') {
        void s.openConversation(null);
        open('chat');
      } else if (e.altKey && !mod && (e.code === 'KeyA' || e.code === 'KeyD')) {
        // A chord, never a typed character: the one keyboard answer to an approval besides its focused buttons.
        const waiting = waitingApproval(s);
        if (!waiting) return;
        void s.answerApproval(waiting.runId, waiting.approval.approvalId, e.code === 'KeyA' ? 'approve' : 'decline');
      } else if (e.altKey && !mod && e.code === 'KeyT') {
        s.toggleTraceHere();
      } else if ((mod && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'f') || (e.key === '/' && !mod && !e.altKey && !isTyping(e.target))) {
        // The app's own search instead of the page's find: Tidy's data is not all on screen.
        if (s.view !== 'search') s.show('search');
        focusWhenReady(() => document.getElementById(SEARCH_BOX));
        (document.getElementById(SEARCH_BOX) as HTMLInputElement | null)?.select();
      } else if (mod && !e.altKey && e.key.toLowerCase() === 'k') {
        open('chat');
      } else if (mod && !e.altKey && !e.shiftKey && e.code === 'KeyZ' && !isTyping(e.target)) {
        // Outside a text field (there the keys undo typing): the last request, as an editor's undo.
        void s.undoLastRequest();
      } else if (mod && !e.altKey && ((e.shiftKey && e.code === 'KeyZ') || (!e.shiftKey && e.code === 'KeyY')) && !isTyping(e.target)) {
        void s.redoLastRequest();
      } else if (e.key === '?' && !mod && !isTyping(e.target)) {
        s.toggleHelp(true);
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);

  return (
    <>
      <div className={`shell${trace && !narrow ? ' with-trace' : ''}`} inert={helpOpen || goTo}>
        <a
          className="skip-link"
          href="#main"
          onClick={(e) => {
            e.preventDefault();
            viewTarget(view)?.focus();
          }}
        >
          Skip to main content
        </a>
        <Sidebar />
        <main id="main" className="main" aria-label={viewDef(view).label} tabIndex={-1}>
          <Screen />
        </main>
        {trace && <TracePanel overlay={narrow} />}
      </div>
      <HelpOverlay />
      {goTo && (
        <GoTo
          onClose={() => setGoTo(false)}
          onGo={(target) => {
            setGoTo(false);
            if (store.getState().view === target) setTimeout(() => viewTarget(target)?.focus(), 0);
            else {
              focusOnShow.current = true;
              store.getState().show(target);
            }
          }}
        />
      )}
      <Reminders />
      <Notices />
    </>
  );
}
