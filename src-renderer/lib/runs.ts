/**
 * A run as the UI shows it, folded from the agent's events: the same fold serves the live stream and a
 * stored trace replayed later, so both look the same (src-shared/events.ts).
 */
import type { AgentEvent, ApprovalDecision, ApprovalForm, RunInfo, RunStatus, StopReason, TokenUsage, WireProtocol } from '../../src-shared/events';

export type TraceEvent = Exclude<AgentEvent, { type: 'text_delta' }>;

export interface Approval {
  approvalId: string;
  callId: string;
  tool: string;
  args: unknown;
  message: string;
  /** The card shows the call as an editable form of this kind (the tool declares it). */
  form?: ApprovalForm;
  /** null while the run waits for the user. */
  decision: ApprovalDecision | null;
  /** What the user changed in the arguments before approving, in words (as the model was told). */
  edits?: string;
  /** The arguments the call ran with when the user edited them: what was done, shown on the answered card. */
  usedArgs?: unknown;
  /** The question restated for `usedArgs` (e.g. the booking with its edited title and time). */
  usedMessage?: string;
}

export interface RunState {
  id: string;
  conversationId: string;
  request: string;
  status: RunStatus | 'running';
  model: string;
  protocol: WireProtocol | null;
  baseUrl: string | null;
  /** The answer text streamed so far (reset when it turns out to be the thought before a tool call). */
  streamed: string;
  /** Reasoning some servers stream separately. */
  reasoning: string;
  answer: string | null;
  /** Why a run that is not `done` stopped. */
  message: string | null;
  /** For status `limit`: which limit stopped it. */
  stopReason: StopReason | null;
  /** The kind of the fatal error that ended it ('auth', 'network', …), for the advice the chat shows. */
  errorKind: string | null;
  approvals: Approval[];
  /** The trace without the streamed pieces, in order; null until a past run's trace is loaded. */
  steps: TraceEvent[] | null;
  usage: TokenUsage;
  actions: number;
  startedAt: string;
  finishedAt: string | null;
}

const ZERO: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** A past run as listed (its trace is loaded on demand). */
export function runFromInfo(info: RunInfo): RunState {
  return {
    id: info.id,
    conversationId: info.conversationId,
    request: info.request,
    status: info.status,
    model: info.model,
    protocol: info.protocol,
    baseUrl: null,
    streamed: '',
    reasoning: '',
    answer: info.answer,
    message: info.message,
    stopReason: info.stopReason,
    errorKind: null,
    approvals: [],
    steps: null,
    usage: info.usage,
    actions: info.actions,
    startedAt: info.startedAt,
    finishedAt: info.finishedAt,
  };
}

function blank(e: AgentEvent): RunState {
  return {
    id: e.runId,
    conversationId: e.type === 'run_started' ? e.conversationId : '',
    request: e.type === 'run_started' ? e.request : '',
    status: 'running',
    model: e.type === 'run_started' ? e.model : '',
    protocol: e.type === 'run_started' ? e.protocol : null,
    baseUrl: e.type === 'run_started' ? e.baseUrl : null,
    streamed: '',
    reasoning: '',
    answer: null,
    message: null,
    stopReason: null,
    errorKind: null,
    approvals: [],
    steps: [],
    usage: ZERO,
    actions: 0,
    startedAt: e.at,
    finishedAt: null,
  };
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
  ...(a.cachedTokens !== undefined || b.cachedTokens !== undefined ? { cachedTokens: (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0) } : {}),
});

/** One event folded into its run. Pure: returns a new state (or the same one when nothing changed). */
export function applyEvent(run: RunState | undefined, e: AgentEvent): RunState {
  const r = run ?? blank(e);
  if (e.type === 'text_delta') {
    return e.kind === 'text' ? { ...r, streamed: r.streamed + e.text } : { ...r, reasoning: r.reasoning + e.text };
  }
  // A stored trace may be loaded while the live events still arrive: an event seen before is not added twice.
  const steps = r.steps === null ? null : r.steps.some((s) => s.seq === e.seq) ? r.steps : insertBySeq(r.steps, e);
  const next: RunState = { ...r, steps };
  switch (e.type) {
    case 'run_started':
      return { ...next, conversationId: e.conversationId, request: e.request, model: e.model, protocol: e.protocol, baseUrl: e.baseUrl, startedAt: e.at };
    case 'thought':
      // What was streamed before a tool call was this thought, not the answer.
      return { ...next, streamed: '' };
    case 'approval_requested':
      if (r.approvals.some((a) => a.approvalId === e.approvalId)) return next;
      return { ...next, approvals: [...r.approvals, { approvalId: e.approvalId, callId: e.callId, tool: e.tool, args: e.args, message: e.message, ...(e.form ? { form: e.form } : {}), decision: null }] };
    case 'approval_resolved':
      return {
        ...next,
        approvals: r.approvals.map((a) =>
          a.approvalId === e.approvalId
            ? { ...a, decision: e.decision, ...(e.edits ? { edits: e.edits, usedArgs: e.args } : {}), ...(e.edits && e.message ? { usedMessage: e.message } : {}) }
            : a,
        ),
      };
    case 'usage':
      // run_finished carries the totals; until then the usage events add up.
      return { ...next, usage: addUsage(r.usage, e) };
    case 'answer':
      return { ...next, answer: e.text, streamed: '' };
    case 'error':
      return e.fatal ? { ...next, errorKind: e.kind, message: e.message } : next;
    case 'run_finished':
      return {
        ...next,
        status: e.status,
        message: e.message ?? next.message,
        stopReason: e.stopReason ?? null,
        usage: e.usage,
        actions: e.actions,
        finishedAt: e.at,
        streamed: '',
      };
    default:
      return next;
  }
}

function insertBySeq(steps: TraceEvent[], e: TraceEvent): TraceEvent[] {
  const last = steps[steps.length - 1];
  if (!last || last.seq < e.seq) return [...steps, e];
  const i = steps.findIndex((s) => s.seq > e.seq);
  return [...steps.slice(0, i), e, ...steps.slice(i)];
}

/** Replays a stored trace (all its events) into a run state. */
export function replay(events: readonly AgentEvent[], base?: RunState): RunState | undefined {
  let run: RunState | undefined = base ? { ...base, steps: [], approvals: [] } : undefined;
  for (const e of events) run = applyEvent(run, e);
  return run;
}

/** The open approvals of a run, i.e. what it waits for. */
export const waitingApprovals = (run: RunState): Approval[] => (run.status === 'running' ? run.approvals.filter((a) => a.decision === null) : []);

/** The agent's latest thought in a run, to show under the message while it works. */
export function latestThought(run: RunState): string | null {
  for (let i = (run.steps?.length ?? 0) - 1; i >= 0; i--) {
    const s = run.steps![i]!;
    if (s.type === 'thought') return s.text;
  }
  return null;
}

/** Whole seconds (or ms for short runs) from start to finish, or to `now` while running. */
export function elapsedMs(run: RunState, now: number): number {
  const start = Date.parse(run.startedAt);
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return Math.max(0, end - start);
}

/** The fields the user changed on the card, in words: "title and start". */
export function changedFields(before: unknown, after: unknown): string {
  const a = (before && typeof before === 'object' ? before : {}) as Record<string, unknown>;
  const b = (after && typeof after === 'object' ? after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).map((k) => k.replace(/_/g, ' '));
  if (keys.length === 0) return 'the call';
  return keys.length === 1 ? keys[0]! : `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)!}`;
}
