/**
 * The Routines view's data: the routines (schedule in words, next runs, last result), the history of their
 * runs with each run's changes from the action log (so Undo all shows its effect), and the approvals they
 * wait for. Adding, pausing, removing and running now go through the `routines.*` channels; a refusal is
 * given back for the form (adding) or told in a notice (the buttons).
 */
import type { ActionEntry } from '../../../src-shared/domain';
import type { PendingApproval } from '../../../src-shared/approvals';
import { routineNotification, type RoutineInfo, type RoutineRun } from '../../../src-shared/routines';
import { systemNotify } from '../../lib/notify';
import type { EventPayload, Input, Output, Topic } from '../../../src-shared/ipc';
import { toProblem, type Problem } from '../../lib/problem';
import { idle, loadInto, type Loadable } from '../../store/loadable';
import { attempt, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

/** How many runs the history shows (newest first). */
const HISTORY_LIMIT = 50;

/** A notice is a line or two: a longer text (a run's error) is cut, the history has it whole. */
const NOTICE_CHARS = 300;

/** How Run now ended, after the routine's name; the history shows the run's own message. */
const RUN_NOW_WORDS: Record<string, string> = {
  done: 'ran; its changes are in the history',
  waiting: 'waits for your answer',
  error: 'failed; see its history',
  limit: 'stopped at its limit; see its history',
  cancelled: 'was cancelled',
  skipped: 'was skipped',
  running: 'is running',
};

interface NewRoutine {
  name: string;
  schedule: string;
  request: string;
}

/** What the edit form changes (only the fields given). */
export type RoutinePatch = Omit<Input<'routines.edit'>, 'routine'>;

export interface RoutinesSlice {
  routines: Loadable<RoutineInfo[]>;
  /** Every routine's runs, newest first. */
  routineRuns: Loadable<RoutineRun[]>;
  /** Approvals routines' runs wait for. */
  routineApprovals: Loadable<PendingApproval[]>;
  /** The changes of each run shown in the history, by run id, newest first. */
  routineChanges: Record<string, ActionEntry[]>;
  /** Routines with a call in flight (Run now, Pause, Remove), by id. */
  routineBusy: Record<string, true>;
  loadRoutines(): Promise<void>;
  refreshRoutines(topics: readonly Topic[]): Promise<void>;
  /** Adds a routine; null when added, else why not (the schedule's one-line error, for the form). */
  addRoutine(input: NewRoutine): Promise<Problem | null>;
  setRoutineEnabled(id: string, enabled: boolean): Promise<void>;
  /** Changes a routine (logged: the notice offers Undo); null when changed, else why not (for the form). */
  editRoutine(id: string, patch: RoutinePatch): Promise<Problem | null>;
  /** Schedule words read as a routine would (the words and the next three runs), or why not; changes nothing. */
  previewSchedule(schedule: string): Promise<Output<'routines.preview'> | Problem>;
  /** Opens a run where it happened: its routine's conversation in the chat, at that run, with its trace. */
  openRoutineRun(runId: string): Promise<void>;
  removeRoutine(id: string): Promise<void>;
  runRoutineNow(id: string): Promise<void>;
  loadRoutineChanges(runId: string): Promise<void>;
  answerRoutineApproval(id: string, decision: 'approve' | 'decline'): Promise<void>;
  /**
   * A routine's run changed something, waits for an answer, failed, or the routine was paused (the
   * `routine.notice` event): a notice with "Show routines". A run this window started with Run now says so
   * itself when it ends, so its notices are not repeated.
   */
  receiveRoutineNotice(notice: EventPayload<'routine.notice'>): void;
}

declare module '../../store/types' {
  interface AppState extends RoutinesSlice {}
}

const without = <T>(map: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _, ...rest } = map;
  return rest;
};

export const createRoutinesSlice =
  ({ api }: Deps): SliceCreator<RoutinesSlice> =>
  (set, get) => {
    const loadList = () => loadInto(set, 'routines', () => api.invoke('routines.list', {}));
    const loadHistory = () => loadInto(set, 'routineRuns', () => api.invoke('routines.history', { limit: HISTORY_LIMIT }));
    const loadApprovals = () =>
      loadInto(set, 'routineApprovals', async () => (await api.invoke('approvals.list', {})).filter((a) => a.routineId !== null && a.decidedAt === null));
    const loadAll = async () => {
      await Promise.all([loadList(), loadHistory(), loadApprovals()]);
    };
    /** A button's call, with the routine marked busy while it runs; a refusal is a notice. */
    const busy = async (id: string, run: () => Promise<unknown>) => {
      if (get().routineBusy[id]) return;
      set((s) => ({ routineBusy: { ...s.routineBusy, [id]: true } }));
      try {
        await request(get, run);
      } finally {
        set((s) => ({ routineBusy: without(s.routineBusy, id) }));
      }
    };

    return {
      routines: idle(),
      routineRuns: idle(),
      routineApprovals: idle(),
      routineChanges: {},
      routineBusy: {},

      loadRoutines: loadAll,
      refreshRoutines: async (topics) => {
        if (get().routines.value === null && get().routineRuns.value === null) return;
        const jobs: Promise<unknown>[] = [];
        if (topics.includes('routines') || topics.includes('runs')) jobs.push(loadAll());
        // Undo and redo change what each shown run's changes say.
        if (topics.includes('actions')) jobs.push(...Object.keys(get().routineChanges).map((runId) => get().loadRoutineChanges(runId)));
        await Promise.all(jobs);
      },
      addRoutine: (input) =>
        attempt(
          () => api.invoke('routines.add', { name: input.name.trim(), schedule: input.schedule.trim(), request: input.request.trim() }),
          () => void loadAll(),
        ),
      editRoutine: (id, patch) =>
        attempt(
          () => api.invoke('routines.edit', { routine: id, ...patch }),
          (r) => {
            void loadAll();
            get().notify(`Changed routine: ${r.value.name}`, 'info', { label: 'Undo', run: () => get().undoAction(r.actionId) });
          },
        ),
      previewSchedule: async (schedule) => {
        try {
          return await api.invoke('routines.preview', { schedule });
        } catch (e) {
          return toProblem(e);
        }
      },
      openRoutineRun: async (runId) => {
        const r = await request(get, () => api.invoke('runs.trace', { runId }));
        if (!r.ok) return;
        await get().openConversation(r.value.run.conversationId);
        get().show('chat');
        get().toggleTrace(true);
        await get().showTrace(runId);
      },
      setRoutineEnabled: (id, enabled) => busy(id, () => api.invoke('routines.edit', { routine: id, enabled }).then(loadAll)),
      removeRoutine: (id) =>
        busy(id, async () => {
          const { value, actionId } = await api.invoke('routines.remove', { routine: id });
          await loadAll();
          // Removing is logged like any change: the notice offers it back.
          get().notify(`Removed routine: ${value.name}`, 'info', { label: 'Undo', run: () => get().undoAction(actionId) });
        }),
      runRoutineNow: (id) =>
        busy(id, async () => {
          const r = await api.invoke('routines.runNow', { routine: id });
          await loadAll();
          if (r.runId) await get().loadRoutineChanges(r.runId);
          const name = get().routines.value?.find((x) => x.id === id)?.name ?? 'The routine';
          get().notify(`${name} ${RUN_NOW_WORDS[r.status] ?? `ended: ${r.status}`}.`, r.status === 'error' ? 'error' : 'info');
        }),
      loadRoutineChanges: async (runId) => {
        try {
          const { groups } = await api.invoke('actions.list', { requestId: runId, limit: 1000 });
          const entries = groups.flatMap((g) => (g.requestId === runId ? g.actions : []));
          set((s) => ({ routineChanges: { ...s.routineChanges, [runId]: entries } }));
        } catch {
          // The history still shows the run; its changes come with the next refresh.
        }
      },
      receiveRoutineNotice: (n) => {
        if (n.routineId && get().routineBusy[n.routineId]) return;
        const tone = n.kind === 'failed' || n.kind === 'paused' ? 'error' : 'info';
        get().notify(n.text.length > NOTICE_CHARS ? `${n.text.slice(0, NOTICE_CHARS)}…` : n.text, tone, { label: 'Show routines', run: () => get().show('routines') });
        // In a browser that allowed notifications, a system one too (the desktop app's main process shows its own).
        const inBrowser = typeof window !== 'undefined' && window.tidy === undefined;
        const system = inBrowser ? routineNotification(n, { windowInFront: document.visibilityState === 'visible' && document.hasFocus() }) : null;
        if (system) systemNotify(system.title, { body: system.body, tag: system.tag, onClick: () => get().show('routines') });
      },
      answerRoutineApproval: (id, decision) => busy(id, () => api.invoke('approvals.answer', { id, decision }).then(loadAll)),
    };
  };
