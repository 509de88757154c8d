/**
 * The quick-capture window's answer in place: the run Ctrl+Enter started, the changes it made (from the
 * action log, so Undo and Redo show their effect), and "Open in Tidy", which brings the main window up
 * with that conversation.
 */
import type { ActionEntry } from '../../../src-shared/domain';
import type { Problem } from '../../lib/problem';
import { idle, loadInto, type Loadable } from '../../store/loadable';
import { attempt } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

export interface CaptureSlice {
  /** The run asked for from the capture window, shown under its box; null before the first ask. */
  captureRun: { runId: string; conversationId: string } | null;
  /** That run's changes, newest first. */
  captureChanges: Loadable<ActionEntry[]>;
  /** Sends the text to the agent in a new conversation; null when it started, else why not. */
  askFromCapture(text: string): Promise<Problem | null>;
  loadCaptureChanges(): Promise<void>;
  /** The main window shows the conversation; null when it was asked to, else why not. */
  openInTidy(): Promise<Problem | null>;
  /** Forgets the answer shown (a new capture begins), unless its run is still going: it may wait for an approval only this window shows. */
  clearCapture(): void;
}

declare module '../../store/types' {
  interface AppState extends CaptureSlice {}
}

export const createCaptureSlice =
  ({ api }: Deps): SliceCreator<CaptureSlice> =>
  (set, get) => ({
    captureRun: null,
    captureChanges: idle(),
    askFromCapture: (text) => attempt(() => api.invoke('capture.ask', { text }), (started) => set({ captureRun: started, captureChanges: idle() })),
    loadCaptureChanges: async () => {
      const run = get().captureRun;
      if (!run) return;
      await loadInto(set, 'captureChanges', async () => {
        const { groups } = await api.invoke('actions.list', { requestId: run.runId, limit: 1000 });
        // Another capture may have started meanwhile: its answer is not this one's.
        if (get().captureRun?.runId !== run.runId) return undefined;
        return groups.flatMap((g) => (g.requestId === run.runId ? g.actions : []));
      });
    },
    openInTidy: async () => {
      const run = get().captureRun;
      if (!run) return null;
      return attempt(() => api.invoke('app.open', { conversationId: run.conversationId }));
    },
    clearCapture: () => {
      const run = get().captureRun;
      if (run && (get().runs[run.runId]?.status ?? 'running') === 'running') return;
      set({ captureRun: null, captureChanges: idle() });
    },
  });
