/**
 * The agent as a host calls it (CLI, IPC bridge, web host): start a run for a message in a conversation,
 * cancel it, answer its approvals — all by run id. Plain functions; the dependencies are passed in.
 */
import { DEFAULT_SETTINGS, Protocol, SETTINGS, type Settings } from '../../../src-shared/settings';
import type { z } from 'zod';
import type { AgentEvent, ApprovalAnswer, ApprovalDecision } from '../../../src-shared/events';
import { fail } from '../fail';
import { describeIssues } from '../tools/invoke';
import type { Result } from '../../../src-shared/result';
import type { Model } from '../llm/port';
import { connectionModel, type Connection } from '../providers/connection';
import { readSettings, writeSetting } from '../settings';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { nextId } from '../store/ids';
import { approvalPolicy } from '../tools/invoke';
import { offeredTools, type Tool, type ToolServices } from '../tools/tool';
import { connectMcpServers, type McpConnections, type McpLauncher } from '../mcp/client';
import { noteMcpStarts } from '../mcp/health';
import { DEFAULT_LIMITS, type Limits } from './limits';
import { ApprovalDeferred, RunError, runAgent, type ApprovalRequest, type ResumedCall, type RunOutcome } from './loop';
import { decideApproval, expireRunApprovals, getApproval, noteContinuation, processAlive, recordApproval } from './approvals';
import type { ApprovalCard } from '../../../src-shared/approvals';
import { createToolServices } from '../tools/tool';
import { appendMessages, createConversation, getConversation, loadMessages, rememberedProtocol, rememberProtocol, type Endpoint } from './conversations';
import { createTraceWriter } from './trace';
import { memoryForRun } from './memory';
import { isObservation } from './protocols';

interface LiveRun {
  conversationId: string;
  controller: AbortController;
  /** Approvals waiting for the user, by approval id. */
  approvals: Map<string, { tool: string; input?: z.ZodType; resolve: (d: ApprovalAnswer) => void; rowId: string }>;
}

/**
 * The approvals setting as readSettings gives it (the stored value when it validates, else the default),
 * read alone: the loop asks before every tool call, and reading every setting and the provider profile
 * there cost more than the call of a small tool. The last value read is kept while its text is the same.
 */
function approvalsReader(db: Db): () => Settings['approvals'] {
  let last: { text: string; value: Settings['approvals'] } | undefined;
  return () => {
    const row = cached(db, `SELECT value FROM settings WHERE key = 'approvals'`).get() as { value: string } | undefined;
    if (!row) return DEFAULT_SETTINGS.approvals;
    if (last?.text !== row.value) {
      let value = DEFAULT_SETTINGS.approvals;
      try {
        const parsed = SETTINGS.approvals.schema.safeParse(JSON.parse(row.value));
        if (parsed.success) value = parsed.data;
      } catch {
        // Damaged outside Tidy: the default, as readSettings falls back to it.
      }
      last = { text: row.value, value };
    }
    return last.value;
  };
}

/** The runs going on in this process. A host keeps one and passes it to every call. */
export type LiveRuns = Map<string, LiveRun>;
export const createLiveRuns = (): LiveRuns => new Map();

export interface AgentDeps {
  db: Db;
  /** Builds the model client for an endpoint. The host decides where the API key comes from (keychain, env). */
  createModel: (endpoint: Endpoint) => Model;
  tools: readonly Tool[];
  live: LiveRuns;
  /** What the tools reach outside the database: one set per process, made by the host. */
  services?: ToolServices;
  /** Starts the MCP servers the user enabled, for one run (default: the real ones; none configured, nothing starts). */
  mcp?: McpLauncher;
}

export interface StartRunInput {
  message: string;
  /** Continue this conversation; without it a new conversation starts. */
  conversationId?: string;
  /** Per-request overrides of the settings (e.g. CLI flags). */
  baseUrl?: string;
  model?: string;
  protocol?: Protocol;
  stream?: boolean;
  limits?: Partial<Limits>;
  /** Run every tool without asking (`tidy ask --yes`). */
  approveAll?: boolean;
  /**
   * Do not wait for approvals: a call that needs one is kept as a pending approval row and the run ends
   * saying so (a routine's run); answering it later continues in a new run (`continueApproval`).
   */
  detached?: { routineId?: string | null };
  /** Only these of the offered tools (a routine's allowed tools). */
  allowTool?: (tool: Tool) => boolean;
  /** An answered approval of an earlier run, put back in the conversation before the model is asked. */
  resume?: ResumedCall;
  /** A new conversation that neither reads nor writes memory (`tidy ask --incognito`); ignored when continuing one. */
  incognito?: boolean;
}

export interface RunResult extends RunOutcome {
  runId: string;
  conversationId: string;
}

export interface StartedRun {
  runId: string;
  conversationId: string;
  /** Settles when the run ends (it never rejects: the result says how it ended). */
  finished: Promise<RunResult>;
}

/** How many stored messages a run loads: enough for any history window, bounded for a years-long conversation. */
const LOAD_MESSAGES = 500;

/**
 * Starts a run and returns at once; `onEvent` receives every event of the run (the trace writer gets them
 * too). A failure here (unknown conversation, a run already going on in it, an empty message) is a value.
 */
export function startRun(deps: AgentDeps, input: StartRunInput, onEvent: (event: AgentEvent) => void): Result<StartedRun> {
  const { db, live } = deps;
  const message = input.message.trim();
  if (!message) return { ok: false, error: 'the message is empty', hint: 'say what Tidy should do' };
  if (input.conversationId !== undefined) {
    if (!getConversation(db, input.conversationId))
      return { ok: false, error: `no conversation with id ${input.conversationId}`, hint: 'list runs to see conversation ids, or start a new conversation' };
    const busy = [...live.entries()].find(([, r]) => r.conversationId === input.conversationId);
    if (busy) return { ok: false, error: `run ${busy[0]} is still going on in conversation ${input.conversationId}`, hint: 'wait for it or cancel it first' };
  }

  const settings = readSettings(db);
  const endpoint: Endpoint = { baseUrl: input.baseUrl ?? settings.baseUrl, model: input.model ?? settings.model };
  const chosen = input.protocol ?? Protocol.catch('auto').parse(settings.protocol);
  const limits: Limits = {
    ...DEFAULT_LIMITS,
    maxActions: settings.maxActions,
    timeLimitMs: settings.timeLimitSec * 1000,
    historyLength: settings.historyLength,
    contextTokens: settings.contextTokens,
    ...input.limits,
  };

  const model = deps.createModel(endpoint);
  // One transaction for the run's id, its conversation and the user's message: one commit, not four.
  const { runId, conversationId, history } = db.transaction(() => {
    const runId = nextId(db, 'r');
    const conversationId = input.conversationId ?? createConversation(db, message, { incognito: input.incognito === true });
    const history = [...loadMessages(db, conversationId, LOAD_MESSAGES), { role: 'user' as const, content: message, at: new Date().toISOString() }];
    appendMessages(db, conversationId, runId, history.slice(-1));
    return { runId, conversationId, history };
  }).immediate();
  // The memories that apply, read once for the whole run: the prompt's block stays the same from step to step.
  const userText = history
    .filter((m) => m.role === 'user' && !isObservation(m))
    .map((m) => m.content ?? '')
    .join('\n');
  const memory = memoryForRun(db, settings, conversationId, userText);

  const run: LiveRun = { conversationId, controller: new AbortController(), approvals: new Map() };
  live.set(runId, run);
  // A trace that cannot be written ends the run with one line (the database is busy or full), never the process.
  const trace = createTraceWriter(db, { onError: (message) => run.controller.abort(new RunError(message)) });
  const listeners = [trace.event, onEvent];

  const approvals = approvalsReader(db);
  const launch = deps.mcp ?? connectMcpServers;
  const go = async (): Promise<RunOutcome> => {
  const mcp: McpConnections = await launch(settings.mcpServers, { signal: run.controller.signal, ...(deps.services ? { fetch: deps.services.fetch } : {}) }).catch((e: unknown) => ({
    tools: [],
    problems: [`the MCP servers could not be started: ${e instanceof Error ? e.message : String(e)}`],
    close: async () => {},
  }));
  const tools = [...offeredTools(deps.tools, settings), ...mcp.tools].filter((t) => input.allowTool?.(t) ?? true);
  const cardOf = (request: ApprovalRequest): ApprovalCard => {
    const tool = tools.find((t) => t.name === request.tool);
    let extra: { schedule?: string; nextRuns?: string[] } = {};
    try {
      const parsed = tool?.input.safeParse(request.args);
      if (tool?.card && parsed?.success)
        extra = tool.card(parsed.data, { db, action: { requestId: runId, source: 'agent' }, signal: run.controller.signal, services: deps.services ?? createToolServices() });
    } catch {
      // The card's extras are a courtesy: the question alone still asks.
    }
    return { approvalId: request.approvalId, message: request.message, ...(request.form ? { form: request.form } : {}), ...extra };
  };
  try {
  return await runAgent({
    runId,
    conversationId,
    baseUrl: endpoint.baseUrl,
    model,
    tools,
    ...(input.resume ? { resume: input.resume } : {}),
    notices: [...mcp.problems, ...(mcp.started ? noteMcpStarts(db, mcp.started) : [])],
    protocol: chosen === 'auto' ? (rememberedProtocol(db, endpoint) ?? 'native') : chosen,
    ...(chosen === 'auto' ? { onToolsUnsupported: (reason: string) => rememberProtocol(db, endpoint, 'json', reason) } : {}),
    messages: history,
    limits,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    stream: input.stream ?? settings.stream,
    signal: run.controller.signal,
    db,
    memory: { block: memory.block, ...(memory.off ? { off: memory.off } : {}) },
    ...(deps.services ? { services: deps.services } : {}),
    onEvent: (event) => {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A failing subscriber (a closed pipe, a UI gone away) must not stop the run or the others.
        }
      }
    },
    onMessages: (messages) => trace.messages(conversationId, runId, messages),
    // Read at every call, so an "always allow" given earlier in this run applies to the next call.
    needsApproval: (tool) => !input.approveAll && approvalPolicy(approvals(), tool) === 'ask',
    ...(input.approveAll ? {} : { bulkApproval: settings.bulkApproval }),
    approve: (request) => {
      const row = { runId, conversationId, callId: request.callId, tool: request.tool, args: request.args, card: cardOf(request) };
      if (input.detached) {
        const id = recordApproval(db, { ...row, mode: 'detached', routineId: input.detached.routineId ?? null });
        return Promise.reject(new ApprovalDeferred(id, request.message));
      }
      // Waits in place, and is a row too, so `tidy approvals` and other windows see it.
      const rowId = recordApproval(db, { ...row, mode: 'live' });
      return new Promise((resolve) => run.approvals.set(request.approvalId, { tool: request.tool, input: tools.find((t) => t.name === request.tool)?.input, resolve, rowId }));
    },
  });
  } finally {
    // The servers' processes end with the run.
    await mcp.close();
  }
  };
  const finished = go()
    .then((outcome) => ({ runId, conversationId, ...outcome }))
    .finally(() => {
      live.delete(runId);
      try {
        expireRunApprovals(db, runId);
      } catch {
        // The database is gone (closed at exit): nothing waits any more anyway.
      }
    });

  return { ok: true, value: { runId, conversationId, finished } };
}

/** What a host needs to start runs on a provider connection: the agent's deps, with the model made from the connection. */
export type ConnectionAgentDeps = Omit<AgentDeps, 'createModel'> & {
  /** The model client for a connection; default the OpenAI-compatible adapter. Tests pass a scripted one. */
  createModel?: (connection: Connection, endpoint: Endpoint) => Model;
};

/**
 * Starts a run on a provider connection (the active profile, or the CLI's overrides): the one way the CLI
 * and the hosts start runs. A missing key is refused before anything is sent: ApiKeyError or
 * KeychainUnavailableError, which each host words its own way.
 */
export async function startRunOn(
  connection: Connection,
  deps: ConnectionAgentDeps,
  input: Omit<StartRunInput, 'baseUrl' | 'model'>,
  onEvent: (event: AgentEvent) => void,
): Promise<Result<StartedRun>> {
  await connection.resolveKey();
  const make = deps.createModel ?? connectionModel;
  return startRun({ ...deps, createModel: (e) => make(connection, e) }, { ...input, baseUrl: connection.baseUrl, model: connection.model }, onEvent);
}

/** Cancels a run going on in this process. False if there is none with that id (it may have ended). */
export function cancelRun(deps: Pick<AgentDeps, 'live'>, runId: string): boolean {
  const run = deps.live.get(runId);
  if (!run) return false;
  run.controller.abort();
  return true;
}

/**
 * Answers an approval the run is waiting for. `always` also sets `approvals.<tool> = auto` (revocable in
 * the settings). False if that run or approval is not waiting (already answered, or the run ended).
 * `args` are the call's arguments as the user edited them (approve or always only): checked against the
 * tool's schema first; invalid ones throw a DomainError (`invalid_arguments`) and leave the approval waiting.
 */
export function answerApproval(deps: Pick<AgentDeps, 'db' | 'live'>, runId: string, approvalId: string, decision: ApprovalDecision, args?: unknown): boolean {
  const pending = deps.live.get(runId)?.approvals.get(approvalId);
  if (!pending) return false;
  if (args !== undefined) {
    if (decision === 'decline') fail('edited arguments come with an approval, not a decline', 'approve with the edited values, or decline without them', 'invalid_arguments');
    if (!pending.input) fail(`${pending.tool} cannot be edited here`, 'approve or decline it as it is', 'invalid_arguments');
    let parsed: { success: boolean; error?: z.ZodError };
    try {
      parsed = pending.input.safeParse(args);
    } catch {
      parsed = { success: false };
    }
    if (!parsed.success)
      fail(`the edited values are not valid: ${parsed.error ? describeIssues(parsed.error.issues) : 'nested too deeply'}`, 'correct them and approve again', 'invalid_arguments');
  }
  deps.live.get(runId)!.approvals.delete(approvalId);
  decideApproval(deps.db, pending.rowId, decision, args);
  if (decision === 'always') writeSetting(deps.db, `approvals.${pending.tool}`, 'auto');
  pending.resolve(args !== undefined ? { decision, args } : { decision });
  return true;
}

/** The approval id a live run knows an approval row by, when that run waits for it in this process. */
function liveRunApproval(deps: Pick<AgentDeps, 'live'>, runId: string, rowId: string): string | null {
  const run = deps.live.get(runId);
  if (!run) return null;
  for (const [approvalId, pending] of run.approvals) if (pending.rowId === rowId) return approvalId;
  return null;
}

export type AnsweredApproval = { continued: false } | { continued: true; run: StartedRun };

/**
 * Answers a pending approval by its row id (w…), wherever it came from: a run waiting for it in this
 * process gets the answer in place; a detached one (a routine's run that ended waiting, or a run whose
 * process is gone) goes on in a new run of the same conversation, which first runs the call (approved,
 * with the user's edited `args` if any) or tells the model it was declined. `extra` are that run's options
 * (a routine's limits and tools). Fails (DomainError) when it is not waiting, is waiting in another live
 * process, or the edited arguments are invalid.
 */
export function answerStoredApproval(
  deps: AgentDeps,
  id: string,
  decision: ApprovalDecision,
  args: unknown,
  extra: Omit<StartRunInput, 'message' | 'conversationId' | 'resume'>,
  onEvent: (event: AgentEvent) => void,
): AnsweredApproval {
  const a = getApproval(deps.db, id);
  if (!a) fail(`no approval with id ${String(id).slice(0, 40)}`, 'list the approvals waiting with `tidy approvals`');
  if (a.decidedAt) fail(`approval ${a.id} was already answered (${a.decision})`, 'list the approvals waiting with `tidy approvals`', 'refused');
  const inPlace = liveRunApproval(deps, a.runId, a.id);
  if (inPlace) {
    answerApproval(deps, a.runId, inPlace, decision, args);
    return { continued: false };
  }
  if (a.mode === 'live' && a.ownerPid !== null && a.ownerPid !== process.pid && processAlive(a.ownerPid))
    fail(`approval ${a.id} belongs to a run going on in another Tidy process (pid ${a.ownerPid})`, 'answer it where that run is shown (the window or the terminal of tidy ask)', 'refused');
  const tool = deps.tools.find((t) => t.name === a.tool);
  if (args !== undefined) {
    if (decision === 'decline') fail('edited arguments come with an approval, not a decline', 'approve with the edited values, or decline without them', 'invalid_arguments');
    if (!tool) fail(`${a.tool} cannot be edited here`, 'approve or decline it as it is', 'invalid_arguments');
    let parsed: { success: boolean; error?: z.ZodError };
    try {
      parsed = tool.input.safeParse(args);
    } catch {
      parsed = { success: false };
    }
    if (!parsed.success)
      fail(`the edited values are not valid: ${parsed.error ? describeIssues(parsed.error.issues) : 'nested too deeply'}`, 'correct them and approve again', 'invalid_arguments');
  }
  const busy = [...deps.live.entries()].find(([, r]) => r.conversationId === a.conversationId);
  if (busy) fail(`run ${busy[0]} is still going on in conversation ${a.conversationId}`, 'wait for it or cancel it, then answer again', 'refused');
  if (!decideApproval(deps.db, a.id, decision, args)) fail(`approval ${a.id} was already answered`, 'list the approvals waiting with `tidy approvals`', 'refused');
  if (decision === 'always') writeSetting(deps.db, `approvals.${a.tool}`, 'auto');
  const verb = decision === 'decline' ? 'declined' : 'approved';
  const started = startRun(
    deps,
    {
      ...extra,
      conversationId: a.conversationId,
      message: `Approval ${a.id} answered: the user ${verb} ${a.tool}. Go on with the request from where it stopped.`,
      resume: { approvalId: a.card.approvalId || a.id, callId: a.callId, tool: a.tool, args: a.args, decision, ...(args !== undefined ? { editedArgs: args } : {}) },
    },
    onEvent,
  );
  if (!started.ok) fail(started.error, started.hint);
  noteContinuation(deps.db, a.id, started.value.runId);
  return { continued: true, run: started.value };
}
