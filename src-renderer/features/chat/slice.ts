/**
 * The chat: conversations, the open conversation's runs (each a request and its answer), the runs going
 * on (folded from the agent's events as they arrive), approvals, cancel, and the run the trace shows.
 */
import type { ActionEntry } from '../../../src-shared/domain';
import type { AgentEvent, ApprovalDecision, RunInfo, RunStatus } from '../../../src-shared/events';
import type { Conversation, Output } from '../../../src-shared/ipc';
import { createCoalescer } from '../../lib/coalesce';
import { toProblem, type Problem } from '../../lib/problem';
import { toolLabel } from '../../lib/format';
import { applyEvent, replay, runFromInfo, waitingApprovals, type Approval, type RunState } from '../../lib/runs';
import { idle, loaded, loadInto, type Loadable } from '../../store/loadable';
import type { Deps, SliceCreator } from '../../store/types';
import { request } from '../../store/request';

export type { Conversation };

export interface ChatSlice {
  conversations: Loadable<Conversation[]>;
  /** The open conversation; null for a new one, which the first message creates. */
  conversationId: string | null;
  /** Every run the UI knows: those of the open conversation and any that went on while the UI was open. */
  runs: Record<string, RunState>;
  /** The open conversation's runs, oldest first. */
  thread: Loadable<string[]>;
  /** The run the trace panel shows. */
  traceRunId: string | null;
  traceProblem: Problem | null;
  /** A message on its way: shown at once, until its run exists. */
  sending: { conversationId: string | null; text: string } | null;
  /** Why the last message could not be sent (no key, no endpoint…), with what to do. */
  sendProblem: Problem | null;
  /** The composer's text, kept while the user looks at other views. */
  draft: string;
  /** Answers sent for approvals still waiting for the run to confirm them, by approvalKey. */
  approvalsSent: Record<string, ApprovalDecision>;
  /** What each run changed (its entries in the action log, newest first), by run id, for runs shown with their changes. */
  runChanges: Record<string, ActionEntry[]>;
  /** Whether archived conversations are listed instead of the live ones. */
  showArchived: boolean;
  /**
   * Whether the new conversation (conversationId null) is incognito: its first message creates it so,
   * and it neither reads nor writes memory. Opening any conversation turns it off.
   */
  incognito: boolean;
  /** Makes the new conversation incognito, or not (only while conversationId is null). */
  setIncognito(on: boolean): void;
  /** Task and project names by id beyond the loaded views, for approvals about tasks the run did not read. */
  knownNames: Record<string, string>;
  /** Fills knownNames from every task (up to a page) and project, archived ones too. */
  loadKnownNames(): Promise<void>;

  loadConversations(): Promise<void>;
  openConversation(id: string | null): Promise<void>;
  renameConversation(id: string, title: string): Promise<boolean>;
  /** Archives a conversation (out of the list, kept), or brings it back. */
  /** `forgetMemories`: archiving also forgets the memories it made (each an undoable change). */
  archiveConversation(id: string, archived: boolean, forgetMemories?: boolean): Promise<boolean>;
  setShowArchived(archived: boolean): void;
  /** Loads (or reloads) what a run changed, for the summary under its answer. */
  loadRunChanges(runId: string): Promise<void>;
  /** The conversation as a file (Markdown, or JSON with every run's trace); rejects with a BridgeError. */
  exportConversation(id: string, format: 'markdown' | 'json'): Promise<Output<'conversations.export'>>;
  setDraft(text: string): void;
  send(text: string): Promise<boolean>;
  /**
   * Sends the composer's text. The box empties at once, so what the user types while the request goes
   * out is the start of the next message and is kept; a refused message comes back into the box.
   */
  sendDraft(): Promise<boolean>;
  /** Cancels a run (default: the one going on in the open conversation). */
  stop(runId?: string): Promise<void>;
  answerApproval(runId: string, approvalId: string, decision: ApprovalDecision): Promise<void>;
  /** Shows a run in the trace panel, loading its stored trace if needed. */
  showTrace(runId: string): Promise<void>;
  /** Folds one agent event in (wired to the bridge's agent events). */
  receive(event: AgentEvent): void;
  /** Refetches after `data.changed` (e.g. a run started from the quick-capture window). */
  refreshChat(topics: readonly string[]): Promise<void>;
}

declare module '../../store/types' {
  interface AppState extends ChatSlice {}
}

/** Runs shown per conversation (the newest); a 1,000-message conversation is 500 runs. */
const THREAD_LIMIT = 1000;

/** The run going on in the open conversation, if any. */
export function activeRun(s: Pick<ChatSlice, 'runs' | 'thread'>): RunState | null {
  const ids = s.thread.value ?? [];
  for (let i = ids.length - 1; i >= 0; i--) {
    const r = s.runs[ids[i]!];
    if (r?.status === 'running') return r;
  }
  return null;
}

/** The most changes a run's summary lists (the summary line counts them all up to this). */
const RUN_CHANGES_LIMIT = 1000;

/** Approval ids count within a run. */
export const approvalKey = (runId: string, approvalId: string): string => `${runId}/${approvalId}`;

/** The approval a run waits for (the oldest first), if any: what Alt+A / Alt+D answer. The run is the open conversation's unless given (the quick-capture window gives its own). */
export function waitingApproval(s: Pick<ChatSlice, 'runs' | 'thread' | 'approvalsSent'>, run: RunState | null | undefined = activeRun(s)): { runId: string; approval: Approval } | null {
  const approval = run && waitingApprovals(run).find((a) => !(approvalKey(run.id, a.approvalId) in s.approvalsSent));
  return run && approval ? { runId: run.id, approval } : null;
}

/** A run known only from the reply to `send`, until its events arrive. */
function placeholder(id: string, conversationId: string, request: string, at: string): RunState {
  return {
    ...runFromInfo({
      id,
      conversationId,
      status: 'running',
      request,
      answer: null,
      message: null,
      stopReason: null,
      model: '',
      protocol: 'native',
      actions: 0,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      startedAt: at,
      finishedAt: null,
    }),
    protocol: null,
    steps: [],
  };
}

/** A listed run over what the UI has: live detail wins, unless the list knows it ended (events were missed). */
function mergeInfo(known: RunState | undefined, info: RunInfo): RunState {
  if (!known) return runFromInfo(info);
  if (known.status === 'running' && info.status !== 'running') return { ...runFromInfo(info), steps: null, approvals: known.approvals };
  return known;
}

const FINISHED: Record<RunStatus, string> = {
  done: 'Tidy has finished.',
  error: 'Tidy stopped with an error.',
  cancelled: 'Tidy stopped.',
  limit: 'Tidy stopped at a limit.',
};

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

export const createChatSlice =
  ({ api, now, nextFrame }: Deps): SliceCreator<ChatSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();

    // Streamed text pieces wait for the next frame and go in together: one store update (and one render of
    // the streaming message) per frame however fast they come. Any other event applies them first, so
    // the order of events is kept.
    let pieces: AgentEvent[] = [];
    let flushScheduled = false;
    const flushPieces = (): void => {
      flushScheduled = false;
      if (pieces.length === 0) return;
      const batch = pieces;
      pieces = [];
      set((s) => {
        const runs = { ...s.runs };
        for (const e of batch) runs[e.runId] = applyEvent(runs[e.runId], e);
        return { runs };
      });
    };

    const loadThread = (): Promise<void> =>
      coalesce('thread', async () => {
        const id = get().conversationId;
        if (id === null) return;
        set((s) => ({ thread: { ...s.thread, loading: true } }));
        try {
          const infos = await api.invoke('runs.list', { conversationId: id, limit: THREAD_LIMIT });
          if (get().conversationId !== id) return;
          set((s) => {
            const runs = { ...s.runs };
            const ids = [...infos].reverse().map((info) => {
              runs[info.id] = mergeInfo(runs[info.id], info);
              return info.id;
            });
            // Runs started since the list was read are kept at the end.
            for (const known of s.thread.value ?? []) if (!ids.includes(known) && runs[known]?.conversationId === id) ids.push(known);
            const traceRunId = s.traceRunId && runs[s.traceRunId]?.conversationId === id ? s.traceRunId : (ids[ids.length - 1] ?? null);
            return { runs, thread: loaded(ids), traceRunId };
          });
        } catch (e) {
          set((s) => ({ thread: { ...s.thread, loading: false, problem: toProblem(e) } }));
        }
      });

    /** What a screen reader hears as a run goes on: what it asks, what was answered, how it ended. */
    const announceEvent = (event: AgentEvent, run: RunState) => {
      const here = run.conversationId === get().conversationId;
      if (event.type === 'approval_requested') {
        get().announce(here ? `Approval needed: ${event.message} Alt+A approves, Alt+D declines.` : `Tidy needs your approval in another conversation: ${event.message}`);
      } else if (event.type === 'approval_resolved') {
        const approval = run.approvals.find((a) => a.approvalId === event.approvalId);
        const what = approval ? toolLabel(approval.tool) : 'the change';
        get().announce(event.decision === 'decline' ? `Declined: ${what}.` : `Approved: ${what}.`);
      } else if (event.type === 'run_finished') {
        get().announce(`${FINISHED[event.status]}${event.message && event.status !== 'done' ? ` ${event.message}` : ''}`);
      }
    };

    const addToThread = (run: RunState) =>
      set((s) => {
        if (run.conversationId !== s.conversationId) return {};
        const ids = s.thread.value ?? [];
        if (ids.includes(run.id)) return {};
        return { thread: { ...s.thread, value: [...ids, run.id] }, traceRunId: run.id };
      });

    return {
      conversations: idle(),
      conversationId: null,
      runs: {},
      thread: loaded<string[]>([]),
      traceRunId: null,
      traceProblem: null,
      sending: null,
      sendProblem: null,
      draft: '',
      approvalsSent: {},
      runChanges: {},
      showArchived: false,
      knownNames: {},

      loadKnownNames: () =>
        coalesce('names', async () => {
          try {
            const [tasks, projects] = await Promise.all([api.invoke('tasks.list', { status: 'all', limit: 1000 }), api.invoke('projects.list', { includeArchived: true })]);
            const names: Record<string, string> = {};
            for (const p of projects) names[p.id] = p.name;
            for (const t of tasks.tasks) names[t.id] = t.content;
            set({ knownNames: names });
          } catch {
            // Without them an approval shows the ids; its question (from the core) names the thing anyway.
          }
        }),

      loadConversations: () =>
        coalesce('conversations', () => loadInto(set, 'conversations', () => api.invoke('conversations.list', get().showArchived ? { archived: true } : {}))),

      setShowArchived: (archived) => {
        if (archived === get().showArchived) return;
        set({ showArchived: archived, conversations: idle() });
        void get().loadConversations();
      },

      archiveConversation: async (id, archived, forgetMemories) => {
        const r = await request(get, () =>
          archived ? api.invoke('conversations.archive', forgetMemories ? { id, forgetMemories: true } : { id }) : api.invoke('conversations.unarchive', { id }),
        );
        if (!r.ok) return false;
        get().notify(archived ? (forgetMemories ? 'Archived the conversation and forgot its memories' : 'Archived the conversation') : 'Unarchived the conversation');
        await get().loadConversations();
        return true;
      },

      loadRunChanges: (runId) =>
        coalesce(`changes:${runId}`, async () => {
          try {
            const page = await api.invoke('actions.list', { requestId: runId, limit: RUN_CHANGES_LIMIT });
            const entries = page.groups.flatMap((g) => g.actions);
            set((s) => ({ runChanges: { ...s.runChanges, [runId]: entries } }));
          } catch {
            // The summary is a convenience: without it the answer still shows, and Actions has every change.
          }
        }),

      incognito: false,
      setIncognito: (on) => {
        if (get().conversationId === null) set({ incognito: on });
      },

      openConversation: async (id) => {
        if (id === get().conversationId && id !== null) return;
        set({ incognito: false, conversationId: id, thread: id === null ? loaded<string[]>([]) : idle<string[]>(), traceRunId: null, sendProblem: null, traceProblem: null });
        await loadThread();
      },

      renameConversation: async (id, title) => {
        const r = await request(get, () => api.invoke('conversations.rename', { id, title }));
        if (!r.ok) return false;
        await get().loadConversations();
        return true;
      },

      exportConversation: (id, format) => api.invoke('conversations.export', { id, format }),

      setDraft: (draft) => set({ draft }),

      send: async (text) => {
        const message = text.trim();
        const s = get();
        if (!message || s.sending || activeRun(s)) return false;
        const conversationId = s.conversationId;
        set({ sending: { conversationId, text: message }, sendProblem: null });
        try {
          // An incognito conversation is created as such before its first message, so no request of it reads memory.
          const into = conversationId ?? (s.incognito ? (await api.invoke('conversations.create', { title: message.replace(/\s+/g, ' ').slice(0, 80), incognito: true })).id : null);
          const started = await api.invoke('agent.send', { message, ...(into ? { conversationId: into } : {}) });
          set((st) => {
            const known = st.runs[started.runId];
            const run = known ?? placeholder(started.runId, started.conversationId, message, new Date(now()).toISOString());
            const ids = st.conversationId === conversationId && conversationId !== null ? (st.thread.value ?? []) : [];
            return {
              sending: null,
              // The sent text leaves the box; anything typed since stays.
              draft: st.draft.trim() === message ? '' : st.draft,
              conversationId: started.conversationId,
              incognito: false,
              runs: { ...st.runs, [run.id]: run },
              thread: loaded(ids.includes(run.id) ? ids : [...ids, run.id]),
              traceRunId: run.id,
            };
          });
          if (conversationId === null) void get().loadConversations();
          return true;
        } catch (e) {
          set({ sending: null, sendProblem: toProblem(e) });
          return false;
        }
      },

      sendDraft: async () => {
        const text = get().draft;
        const s = get();
        if (!text.trim() || s.sending || activeRun(s)) return false;
        set({ draft: '' });
        const ok = await get().send(text);
        // Refused: the message comes back, before whatever was typed meanwhile.
        if (!ok) set((st) => ({ draft: st.draft ? `${text}\n${st.draft}` : text }));
        return ok;
      },

      stop: async (runId) => {
        const id = runId ?? activeRun(get())?.id;
        if (!id) return;
        await request(get, () => api.invoke('agent.cancel', { runId: id }));
      },

      answerApproval: async (runId, approvalId, decision) => {
        const key = approvalKey(runId, approvalId);
        if (key in get().approvalsSent) return;
        // The card's form may have edited the arguments (features/calendar/slice.ts): approving sends them, or is held while they are not valid.
        const edit = decision === 'decline' ? undefined : get().approvalEdits[key];
        if (edit?.problem) {
          get().notify(`Not approved yet: ${edit.problem}`, 'error');
          return;
        }
        set((s) => ({ approvalsSent: { ...s.approvalsSent, [key]: decision } }));
        const r = await request(get, () => api.invoke('agent.approve', { runId, approvalId, decision, ...(edit?.args ? { args: edit.args } : {}) }));
        // Refused: the card can be answered again.
        if (!r.ok) set((s) => ({ approvalsSent: without(s.approvalsSent, key) }));
      },

      showTrace: async (runId) => {
        set({ traceRunId: runId, traceProblem: null });
        const run = get().runs[runId];
        if (!run || run.steps !== null) return;
        try {
          const { events } = await api.invoke('runs.trace', { runId });
          set((s) => {
            const current = s.runs[runId];
            if (!current || current.steps !== null) return {};
            const replayed = replay(events, current);
            return replayed ? { runs: { ...s.runs, [runId]: replayed } } : {};
          });
        } catch (e) {
          set({ traceProblem: toProblem(e) });
        }
      },

      receive: (event) => {
        if (event.type === 'text_delta' && nextFrame) {
          pieces.push(event);
          if (!flushScheduled) {
            flushScheduled = true;
            nextFrame(flushPieces);
          }
          return;
        }
        flushPieces();
        const before = get().runs[event.runId];
        const run = applyEvent(before, event);
        set((s) => ({ runs: { ...s.runs, [run.id]: run } }));
        if (event.type === 'run_started') addToThread(run);
        announceEvent(event, run);
        if (event.type === 'run_finished' && run.conversationId !== get().conversationId) void get().loadConversations();
      },

      refreshChat: async (topics) => {
        const jobs: Promise<void>[] = [];
        if (topics.includes('actions')) {
          // An undo anywhere (Actions, Ctrl+Z, another window) shows in the summaries under the answers.
          const shown = new Set(get().thread.value ?? []);
          for (const runId of Object.keys(get().runChanges)) if (shown.has(runId)) jobs.push(get().loadRunChanges(runId));
        }
        if (topics.includes('conversations')) jobs.push(get().loadConversations());
        if (topics.includes('runs') && get().conversationId !== null) jobs.push(loadThread());
        await Promise.all(jobs);
      },
    };
  };
