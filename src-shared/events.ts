/**
 * The agent's event stream: one discriminated union (on `type`). The loop emits these; the SQLite trace
 * writer, the CLI printer and the IPC forwarder are each one subscriber. A stored trace is the same
 * events, so replaying it renders exactly what was shown live.
 */
import { z } from 'zod';
import { ModelErrorKind } from './model-errors';

/** How a run ended. `limit`: a stop predicate fired (max actions, time limit, a repeated call). */
export const RunStatus = z.enum(['done', 'error', 'cancelled', 'limit']);
export type RunStatus = z.infer<typeof RunStatus>;

/** The wire protocol a run speaks: native tool calls, or the json ReAct format in plain text. */
export const WireProtocol = z.enum(['native', 'json']);
export type WireProtocol = z.infer<typeof WireProtocol>;

/** The user's answer to an approval request. `always`: approve, and stop asking for this tool (approvals.<tool> = auto). */
export const ApprovalDecision = z.enum(['approve', 'decline', 'always']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** The user's answer with, optionally, the tool's arguments as they edited them on the approval card. */
export interface ApprovalAnswer {
  decision: ApprovalDecision;
  args?: unknown;
}

/**
 * What an `error` event is about: a failed model call (ModelErrorKind), a reply the protocol could not
 * read (`invalid_reply`), an MCP server left out of the run (`mcp`), or anything else that went wrong inside Tidy (`internal`).
 */
export const RunErrorKind = z.union([ModelErrorKind, z.enum(['invalid_reply', 'internal', 'storage', 'context', 'mcp'])]);
export type RunErrorKind = z.infer<typeof RunErrorKind>;

export const TokenUsage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  /** Of the prompt tokens, those the provider served from its prompt cache (when it says). */
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** Every event carries its run, its position in the run (0, 1, 2, …) and when it happened (ISO 8601). */
const base = { runId: z.string(), seq: z.number().int().nonnegative(), at: z.string() };

/** Which limit ended a run with status `limit`: max actions, the time limit, or the same call repeated (a loop). */
export const StopReason = z.enum(['actions', 'time', 'loop']);
export type StopReason = z.infer<typeof StopReason>;

/** An approval card that shows the call as an editable form: `event` (title, start, end, attendees). */
export const ApprovalForm = z.enum(['event', 'plan']);
export type ApprovalForm = z.infer<typeof ApprovalForm>;

export const AgentEvent = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('run_started'),
    conversationId: z.string(),
    /** The user's message this run answers. */
    request: z.string(),
    model: z.string(),
    baseUrl: z.string(),
    protocol: WireProtocol,
  }),
  /** A piece of streamed model output: answer text, or reasoning some servers send separately. */
  z.object({ ...base, type: z.literal('text_delta'), kind: z.enum(['text', 'reasoning']), text: z.string() }),
  /** The model's reasoning for its next step (the json protocol's `thought`, or text sent with native tool calls). */
  z.object({ ...base, type: z.literal('thought'), text: z.string() }),
  z.object({ ...base, type: z.literal('tool_call'), callId: z.string(), tool: z.string(), args: z.unknown() }),
  z.object({
    ...base,
    type: z.literal('tool_result'),
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    /** What the model was sent back: the tool's value, or {error, hint}. */
    result: z.unknown(),
    /** The action-log entry a mutating tool wrote (undo it with `tidy undo <actionId>`). */
    actionId: z.string().optional(),
    /** For a tool of an MCP server the user added: that server. What it did happened outside Tidy and cannot be undone. */
    external: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('approval_requested'),
    approvalId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    /** The question to show, e.g. "Complete task 'Buy milk'?". */
    message: z.string(),
    /** The card shows the call as an editable form of this kind (the tool declares it: `approvalForm`). */
    form: ApprovalForm.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('approval_resolved'),
    approvalId: z.string(),
    decision: ApprovalDecision,
    /** The arguments the tool ran with, when the user edited them before approving. */
    args: z.unknown().optional(),
    /** What the user changed, in words (what the model was told). */
    edits: z.string().optional(),
    /** With edits: the question restated for the values actually used (the card and trace show it, not the model's). */
    message: z.string().optional(),
  }),
  /** Token usage of one model call (run_finished carries the totals). */
  z.object({ ...base, type: z.literal('usage'), ...TokenUsage.shape }),
  z.object({ ...base, type: z.literal('answer'), text: z.string() }),
  /** `fatal: false` is a problem the run recovered from (e.g. switching to the json protocol). */
  z.object({ ...base, type: z.literal('error'), message: z.string(), kind: RunErrorKind, fatal: z.boolean() }),
  z.object({
    ...base,
    type: z.literal('run_finished'),
    status: RunStatus,
    /** Why a run that is not `done` stopped, in one line (e.g. "stopped: reached the limit of 20 actions"). */
    message: z.string().optional(),
    /** For status `limit`: which limit stopped it. */
    stopReason: StopReason.optional(),
    /** Tool calls that ran (the number the action limit counts; a batch call is one). */
    actions: z.number().int().nonnegative(),
    usage: TokenUsage,
  }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
export type AgentEventType = AgentEvent['type'];

/** An event as the loop builds it, before the emitter stamps runId, seq and time. */
type Unstamped<E> = E extends unknown ? Omit<E, 'runId' | 'seq' | 'at'> : never;
export type AgentEventBody = Unstamped<AgentEvent>;

/** One run as `tidy runs` and the UI list it. */
export const RunInfo = z.object({
  id: z.string(),
  conversationId: z.string(),
  /** `running` while it goes on (or if the process died during it). */
  status: z.union([RunStatus, z.literal('running')]),
  request: z.string(),
  answer: z.string().nullable(),
  message: z.string().nullable(),
  /** For status `limit`: which limit stopped it. */
  stopReason: StopReason.nullable(),
  model: z.string(),
  protocol: WireProtocol,
  actions: z.number().int(),
  usage: TokenUsage,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type RunInfo = z.infer<typeof RunInfo>;
