/** The main window: sidebar, the current view, the trace panel; the global keyboard shortcuts. */
import { useEffect } from 'react';
import { activeRun, waitingApproval } from '../store/chat';
import { VIEW_LABELS } from '../store/nav';
import { useApp, useAppStore } from '../store/react';
import { ActionsView } from '../views/ActionsView';
import { ChatView } from '../views/ChatView';
import { InboxView } from '../views/InboxView';
import { ListsView } from '../views/ListsView';
import { ProjectsView } from '../views/ProjectsView';
import { SettingsView } from '../views/SettingsView';
import { TracePanel } from '../views/TracePanel';
import { HelpOverlay } from './HelpOverlay';
import { Notices } from './Notices';
import { isTyping, viewForDigit } from './shortcuts';
import { Sidebar } from './Sidebar';

/** Focuses the message box once the chat has rendered. */
const focusComposer = () => setTimeout(() => document.getElementById('composer')?.focus(), 0);

export function App() {
  const view = useApp((s) => s.view);
  const traceOpen = useApp((s) => s.traceOpen);
  const store = useAppStore();

  useEffect(() => {
    document.title = `${VIEW_LABELS[view]} — Tidy`;
  }, [view]);

  useEffect(() => {
    // The sidebar's inbox count and the conversation list are wanted from the start.
    void store.getState().loadProjects();
    void store.getState().loadConversations();
  }, [store]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const s = store.getState();
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === 'Escape') {
        if (s.helpOpen) s.toggleHelp(false);
        else if (activeRun(s)) void s.stop();
        else return;
      } else if (e.altKey && !mod && viewForDigit(e.code)) {
        s.show(viewForDigit(e.code)!);
        if (s.view === 'chat') focusComposer();
      } else if (e.altKey && !mod && e.code === 'KeyN') {
        s.show('chat');
        void s.openConversation(null);
        focusComposer();
      } else if (e.altKey && !mod && (e.code === 'KeyA' || e.code === 'KeyD')) {
        // A chord, never a typed character: the one keyboard answer to an approval besides its focused buttons.
        const waiting = waitingApproval(s);
        if (!waiting) return;
        void s.answerApproval(waiting.runId, waiting.approval.approvalId, e.code === 'KeyA' ? 'approve' : 'decline');
      } else if (e.altKey && !mod && e.code === 'KeyT') {
        s.toggleTrace();
      } else if (mod && !e.altKey && e.key.toLowerCase() === 'k') {
        s.show('chat');
        focusComposer();
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'z' && !isTyping(e.target)) {
        void s.undoLastRequest();
      } else if (e.key === '?' && !mod && !isTyping(e.target)) {
        s.toggleHelp(true);
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);

  return (
    <div className={`shell${traceOpen ? ' with-trace' : ''}`}>
      <Sidebar />
      <main className="main" aria-label={VIEW_LABELS[view]}>
        {view === 'chat' && <ChatView />}
        {view === 'inbox' && <InboxView />}
        {view === 'projects' && <ProjectsView />}
        {view === 'lists' && <ListsView />}
        {view === 'actions' && <ActionsView />}
        {view === 'settings' && <SettingsView />}
      </main>
      {traceOpen && <TracePanel />}
      <HelpOverlay />
      <Notices />
    </div>
  );
}
