import { createHash } from 'node:crypto';
import type { AgentEvent, AgentEventBody, ApprovalAnswer, ApprovalDecision, ApprovalForm, RunStatus, StopReason, TokenUsage, WireProtocol } from '../../../src-shared/events';
import type { Failure } from '../../../src-shared/result';
import { ModelError, type ChatMessage, type Model, type ModelDelta, type ModelTurn } from '../llm/port';
import { timeLimit } from '../abort';
import type { Db } from '../store/db';
import { listActions } from '../actions/log';
import { answerOf, describeEdits, invokeTool, type BulkPolicy } from '../tools/invoke';
import { createToolServices, type Tool, type ToolContext, type ToolOutcome, type ToolServices } from '../tools/tool';
import { compactToBudget, dated, estimateTokens } from './context';
import { historyWindow } from './history';
import { canonicalJson, defaultStops, timeLimitMessage, type CallRecord, type Limits, type Stop, type StopPredicate } from './limits';
import { isObservation, jsonProtocol, PROTOCOLS, type PendingCall, type ProtocolAdapter } from './protocols';

export interface ApprovalRequest {
  approvalId: string;
  callId: string;
  tool: string;
  args: unknown;
  message: string;
  form?: ApprovalForm;
}

export interface RunAgentOptions {
  runId: string;
  conversationId: string;
  /** The endpoint, for the trace only (the model already knows where it talks to). */
  baseUrl: string;
  model: Model;
  tools: readonly Tool[];
  protocol: WireProtocol;
  /**
   * Given for the `auto` protocol: if the endpoint rejects native tool calling, this is called once (to
   * remember it for the model) and the run goes on in the json protocol.
   */
  onToolsUnsupported?: (reason: string) => void;
  /** The conversation so far, oldest first, ending with the user's new request. No system prompt: the loop adds it. */
  messages: readonly ChatMessage[];
  limits: Limits;
  /** Default: max actions, a call repeated three times in a row, the time limit. */
  stopWhen?: readonly StopPredicate[];
  temperature?: number;
  maxTokens?: number;
  stream?: boolean;
  /** The user's cancel. The loop merges it with the time limit into the one signal it hands to the model and the tools. */
  signal?: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  /** Lines to show right after the run starts, e.g. an MCP server that could not be started. */
  notices?: readonly string[];
  /**
   * The messages each finished step added to the conversation (an assistant turn and the results of all its
   * calls, never one without the other), so the caller can persist them and continue the conversation later.
   */
  onMessages?: (messages: ChatMessage[]) => void;
  /** The database the tools work on; their changes are logged under {requestId: runId, source: 'agent'}. */
  db: Db;
  /** What the tools reach outside the database (calculator, clock, HTTP). Default: this process's own. */
  services?: ToolServices;
  /** Ask once when the request would change more than this many existing items (0 or none: never). */
  bulkApproval?: number;
  /**
   * Memory for this request (src-main/core/agent/memory.ts): the block of memories that apply, placed after
   * the system rules (bytes that change only when memory changes), and whether the memory tools may write.
   * Without it the prompt has no block and the memory tools refuse.
   */
  memory?: { block: string | null; off?: string };
  /** Whether a call of this tool waits for the user's approval (its policy: settings `approvals` over the tool's default). Default: never. */
  needsApproval?: (tool: Tool, input: unknown) => boolean;
  /**
   * Asks the user. Called before `approval_requested` is emitted, so an answer given while that event is
   * being handled is not lost. Without it, calls that need approval are declined.
   */
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision | ApprovalAnswer>;
  /**
   * A call that waited for an approval in an earlier run and was answered since (a routine's run that ended
   * waiting): it is put back in the conversation with the user's decision, and run with `args` when approved,
   * before the model is asked again.
   */
  resume?: ResumedCall;
}

export interface ResumedCall {
  approvalId: string;
  callId: string;
  tool: string;
  /** The arguments the model wrote. */
  args: unknown;
  decision: ApprovalDecision;
  /** The arguments as the user edited them on the card, when they did. */
  editedArgs?: unknown;
}

/**
 * Thrown (as a rejection) by an `approve` hook that does not wait: the run ends at once, saying it waits for
 * the approval, which is kept as a row and answered later (src-main/core/agent/approvals.ts).
 */
export class ApprovalDeferred extends Error {
  override name = 'ApprovalDeferred';
  constructor(
    readonly approvalId: string,
    readonly question: string,
  ) {
    super(`waiting for the user's approval ${approvalId}`);
  }
}

export interface RunOutcome {
  status: RunStatus;
  /** The final answer (status done). */
  answer?: string;
  /** Why it stopped, for any other status: one line. */
  message?: string;
  /** For status `limit`: which limit. */
  stopReason?: StopReason;
  /** Tool calls that ran. */
  actions: number;
  usage: TokenUsage;
  /** The protocol the run ended in (json after an auto fallback). */
  protocol: WireProtocol;
  /** The run ended waiting for this approval (a row, answered later). */
  waitingFor?: string;
}

/**
 * The stable prefix of a protocol's requests (system prompt and tool list), worked out once per run and
 * protocol: its size for the context budget, and a name for it (equal prefixes, equal keys) so a provider
 * that routes by `prompt_cache_key` finds its cache.
 */
interface Prefix {
  system: string;
  specs: ReturnType<ProtocolAdapter['prepare']>['specs'];
  tokens: number;
  cacheKey: string;
}

function prefixOf(protocol: ProtocolAdapter, tools: readonly Tool[], memoryBlock: string | null): Prefix {
  const prepared = protocol.prepare(tools);
  const { specs } = prepared;
  // The memories come after the rules, never above them: the user's preferences, not instructions that override them.
  const system = memoryBlock ? `${prepared.system}\n\n${memoryBlock}` : prepared.system;
  const specsText = specs ? JSON.stringify(specs) : '';
  return {
    system,
    specs,
    tokens: estimateTokens(system) + estimateTokens(specsText),
    cacheKey: `tidy-${createHash('sha256').update(`${system}\n${specsText}`).digest('hex').slice(0, 24)}`,
  };
}

/** The size of Tidy's own prompt (system prompt and tool list of the native protocol, no memories), in estimated tokens. */
export const promptTokens = (tools: readonly Tool[]): number => prefixOf(PROTOCOLS.native, tools, null).tokens;

/** Aborting a run with this (as the signal's reason) ends it with status `error` and this message, e.g. the database is full. */
export class RunError extends Error {
  override name = 'RunError';
}

/** Rejects as soon as the signal aborts, so a run waiting for something (an approval) can be cancelled. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The agent loop: ask the model, run the tools it calls, feed the results back, until it answers or a stop
 * predicate, the time limit, a cancel or an error ends the run. Every step is an event; a tool failure is
 * an observation (`{"error","hint"}`) and the loop goes on. Never throws: the outcome says how it ended.
 */
export async function runAgent(o: RunAgentOptions): Promise<RunOutcome> {
  const startedAt = Date.now();
  const { signal } = timeLimit(o.limits.timeLimitMs, [o.signal]);
  const stops = o.stopWhen ?? defaultStops(o.limits);
  const byName = new Map(o.tools.map((t) => [t.name, t]));
  const ctx: ToolContext = {
    db: o.db,
    action: { requestId: o.runId, source: 'agent' },
    signal,
    services: o.services ?? createToolServices(),
    ...(o.memory
      ? {
          memory: {
            ...(o.memory.off ? { off: o.memory.off } : {}),
            from: { conversationId: o.conversationId, runId: o.runId },
            // The user's own words: their messages, never observations (tool results in the json protocol).
            userText: o.messages
              .filter((m) => m.role === 'user' && !isObservation(m))
              .map((m) => m.content)
              .join('\n'),
          },
        }
      : {}),
  };

  let seq = 0;
  const emit = (body: AgentEventBody): void => o.onEvent({ ...body, runId: o.runId, seq: seq++, at: new Date().toISOString() });

  const transcript = [...o.messages];
  const requestIndex = transcript.length - 1;
  const request = transcript[requestIndex];
  const calls: CallRecord[] = [];
  let executed = 0;
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let protocol: ProtocolAdapter = PROTOCOLS[o.protocol];
  const prefixes = new Map<ProtocolAdapter, Prefix>();
  let callIds = 0;
  let approvals = 0;

  // The current step: its messages (flushed to onMessages when it is complete) and the calls not yet answered.
  let step: ChatMessage[] = [];
  let unanswered: PendingCall[] = [];
  const keep = (m: ChatMessage): void => {
    transcript.push(m);
    step.push(m);
  };
  const closeStep = (why: string): void => {
    for (const call of unanswered) keep(protocol.observation(JSON.stringify({ error: `not run: ${why}`, hint: 'ask the user whether to go on' }), call));
    unanswered = [];
    if (step.length) o.onMessages?.(step);
    step = [];
  };

  const finish = (status: RunStatus, end: { answer?: string; message?: string; stopReason?: StopReason; waitingFor?: string } = {}): RunOutcome => {
    emit({
      type: 'run_finished',
      status,
      ...(end.message ? { message: end.message } : {}),
      ...(end.stopReason ? { stopReason: end.stopReason } : {}),
      actions: executed,
      usage: { ...usage },
    });
    return { status, ...end, actions: executed, usage: { ...usage }, protocol: protocol.name };
  };
  const stopped = (stop: Stop): RunOutcome => finish('limit', { message: `stopped: ${stop.message}`, stopReason: stop.reason });
  /** The signal fired: the user cancelled, the time was up, or the run could not go on (its trace cannot be written). */
  const interrupted = (): RunOutcome => {
    const reason: unknown = o.signal?.reason;
    if (reason instanceof RunError) {
      closeStep(reason.message);
      emit({ type: 'error', message: reason.message, kind: 'storage', fatal: true });
      return finish('error', { message: reason.message });
    }
    const cancelled = o.signal?.aborted === true;
    closeStep(cancelled ? 'the user cancelled the run' : 'the time limit was reached');
    return cancelled ? finish('cancelled', { message: 'cancelled' }) : stopped({ reason: 'time', message: timeLimitMessage(o.limits.timeLimitMs) });
  };
  const stopReason = (): Stop | null => {
    const state = { calls, elapsedMs: Date.now() - startedAt };
    for (const stop of stops) {
      const why = stop(state);
      if (why) return why;
    }
    return null;
  };

  const onDelta = (d: ModelDelta): void => {
    // json replies are JSON text, not prose: the thought and answer are shown once parsed.
    if (d.kind === 'reasoning') emit({ type: 'text_delta', kind: 'reasoning', text: d.text });
    else if (d.kind === 'text' && protocol.name === 'native') emit({ type: 'text_delta', kind: 'text', text: d.text });
  };

  /**
   * The approval's question for the arguments the user edited (the card and the trace show what was done,
   * not what the model proposed); nothing when the tool has no question or the edits do not read.
   */
  const restated = (tool: Tool, edited: unknown): { message?: string } => {
    if (!tool.confirm) return {};
    try {
      const parsed = tool.input.safeParse(edited);
      return parsed.success ? { message: tool.confirm(parsed.data, ctx) } : {};
    } catch {
      return {};
    }
  };

  /** Asks the user about a call, with the events the UI and the trace show. */
  const askUser = (call: PendingCall) => async (tool: Tool, question: string): Promise<ApprovalAnswer> => {
    const ask: ApprovalRequest = { approvalId: `ap${++approvals}`, callId: call.id, tool: tool.name, args: call.args, message: question, ...(tool.approvalForm ? { form: tool.approvalForm } : {}) };
    const pending = o.approve ? o.approve(ask) : Promise.resolve<ApprovalDecision>('decline');
    emit({ type: 'approval_requested', ...ask });
    const answer = answerOf(await abortable(pending, signal));
    const edits = answer.args !== undefined && answer.decision !== 'decline' ? describeEdits(call.args, answer.args) : null;
    emit({ type: 'approval_resolved', approvalId: ask.approvalId, decision: answer.decision, ...(edits ? { args: answer.args, edits, ...restated(tool, answer.args) } : {}) });
    return edits ? answer : { decision: answer.decision };
  };

  const bulk: BulkPolicy | undefined = o.bulkApproval
    ? {
        limit: o.bulkApproval,
        changed: 0,
        decision: null,
        sofar: () => listActions(o.db, { requestId: o.runId, limit: 50 }).reverse().map((a) => a.summary),
      }
    : undefined;

  const perform = (call: PendingCall): Promise<ToolOutcome> =>
    invokeTool(call, {
      tools: byName,
      ctx,
      ...(bulk ? { bulk } : {}),
      approval: { needed: o.needsApproval ?? (() => false), ask: askUser(call) },
    });

  /** Runs one call: its events, and the text the model gets back. */
  async function execute(call: PendingCall): Promise<string> {
    emit({ type: 'tool_call', callId: call.id, tool: call.tool, args: call.args });
    const outcome = await perform(call);
    const result = outcome.ok ? outcome.value : { error: outcome.error, hint: outcome.hint };
    const external = byName.get(call.tool)?.external;
    emit({
      type: 'tool_result',
      callId: call.id,
      tool: call.tool,
      ok: outcome.ok,
      result,
      ...(outcome.ok && outcome.actionId ? { actionId: outcome.actionId } : {}),
      ...(external ? { external: external.server } : {}),
    });
    return JSON.stringify(result);
  }

  /** Puts an answered call of an earlier run back in the conversation: the call, the decision, and its result. */
  async function resumeCall(r: ResumedCall): Promise<void> {
    const call: PendingCall = { id: r.callId, tool: r.tool, args: r.args };
    keep(
      protocol.name === 'native'
        ? { role: 'assistant', content: null, toolCalls: [{ id: r.callId, name: r.tool, arguments: JSON.stringify(r.args ?? {}) }] }
        : { role: 'assistant', content: JSON.stringify({ thought: '', action: { ...(r.args && typeof r.args === 'object' ? r.args : {}), type: r.tool } }) },
    );
    const edits = r.editedArgs !== undefined && r.decision !== 'decline' ? describeEdits(r.args, r.editedArgs) : null;
    const resumed = byName.get(r.tool);
    emit({ type: 'approval_resolved', approvalId: r.approvalId, decision: r.decision, ...(edits ? { args: r.editedArgs, edits, ...(resumed ? restated(resumed, r.editedArgs) : {}) } : {}) });
    let content: string;
    if (r.decision === 'decline') {
      content = JSON.stringify({ error: `the user declined ${r.tool}`, hint: 'do not try it again in this run; tell the user what you wanted to do, or go on without it' });
    } else {
      const args = r.editedArgs ?? r.args;
      emit({ type: 'tool_call', callId: call.id, tool: call.tool, args });
      const outcome = await invokeTool({ tool: r.tool, args }, { tools: byName, ctx });
      const value = outcome.ok ? outcome.value : { error: outcome.error, hint: outcome.hint };
      const result = edits && value && typeof value === 'object' && !Array.isArray(value) ? { ...value, user_edits: edits } : value;
      emit({ type: 'tool_result', callId: call.id, tool: call.tool, ok: outcome.ok, result, ...(outcome.ok && outcome.actionId ? { actionId: outcome.actionId } : {}) });
      content = JSON.stringify(result);
      executed++;
    }
    keep(protocol.observation(content, call));
    closeStep('');
  }

  /** A reply with nothing to run: its error goes back as an observation and counts as an attempt, so a model that never gets it right still stops. */
  function rejectReply(failure: Failure, raw: string): RunOutcome | null {
    emit({ type: 'error', message: failure.error, kind: 'invalid_reply', fatal: false });
    keep(protocol.observation(JSON.stringify(failure)));
    closeStep('');
    calls.push({ tool: '(invalid reply)', args: raw });
    const why = stopReason();
    return why ? stopped(why) : null;
  }

  emit({
    type: 'run_started',
    conversationId: o.conversationId,
    request: request?.role === 'user' ? request.content : '',
    model: o.model.name,
    baseUrl: o.baseUrl,
    protocol: protocol.name,
  });
  for (const message of o.notices ?? []) emit({ type: 'error', message, kind: 'mcp', fatal: false });

  try {
    if (o.resume) await resumeCall(o.resume);
    for (;;) {
      if (signal.aborted) return interrupted();
      let prefix = prefixes.get(protocol);
      if (!prefix) prefixes.set(protocol, (prefix = prefixOf(protocol, o.tools, o.memory?.block ?? null)));
      const { system, specs } = prefix;
      const window = historyWindow(transcript, requestIndex, o.limits.historyLength, isObservation);
      const from = transcript.length - window.length;
      const compaction = compactToBudget(transcript, from, o.limits.contextTokens - prefix.tokens, isObservation);
      if (compaction.shortened > 0) {
        emit({
          type: 'error',
          kind: 'context',
          fatal: false,
          message: `shortened ${compaction.shortened} earlier result${compaction.shortened === 1 ? '' : 's'} to stay within the context budget of ${o.limits.contextTokens.toLocaleString('en')} tokens`,
        });
      }
      const history = dated(transcript.slice(from), isObservation);
      let turn: ModelTurn;
      try {
        // abortable: a model that ignores the signal (a hung server, a stuck adapter) is still cut at the limit.
        turn = await abortable(o.model.complete(
          {
            messages: [{ role: 'system', content: system }, ...protocol.render(history)],
            cacheKey: prefix.cacheKey,
            ...(specs ? { tools: specs } : {}),
            temperature: o.temperature,
            maxTokens: o.maxTokens,
            stream: o.stream ?? false,
            signal,
          },
          o.stream ? onDelta : undefined,
        ), signal);
      } catch (e) {
        if (signal.aborted || !(e instanceof ModelError)) throw e;
        if (e.kind === 'tools_unsupported' && protocol.name === 'native' && o.onToolsUnsupported) {
          o.onToolsUnsupported(e.message);
          protocol = jsonProtocol;
          emit({ type: 'error', message: `${e.message}; switched to the json protocol (remembered for this model)`, kind: e.kind, fatal: false });
          continue;
        }
        if (e.kind === 'tool_call_invalid') {
          // The server refused the call the model wrote (Groq's tool_use_failed): the model can fix it.
          const stopped = rejectReply({ error: `your tool call was rejected: ${e.message}`, hint: 'check the tool name and arguments against the tools you have' }, e.details.failedGeneration ?? e.message);
          if (stopped) return stopped;
          continue;
        }
        throw e;
      }

      if (turn.usage) {
        usage.promptTokens += turn.usage.promptTokens;
        usage.completionTokens += turn.usage.completionTokens;
        usage.totalTokens += turn.usage.totalTokens;
        if (turn.usage.cachedTokens !== undefined) usage.cachedTokens = (usage.cachedTokens ?? 0) + turn.usage.cachedTokens;
        emit({ type: 'usage', ...turn.usage });
      }
      if (turn.finishReason === 'content_filter') throw new ModelError("the provider's content filter stopped the answer", 'content_filter');

      const meaning = protocol.interpret(turn, o.tools, () => `call_${++callIds}`);
      keep(meaning.message);
      if (meaning.kind === 'invalid') {
        const stopped = rejectReply(meaning.failure, turn.text);
        if (stopped) return stopped;
        continue;
      }
      if (meaning.thought) emit({ type: 'thought', text: meaning.thought });
      if (meaning.kind === 'answer') {
        closeStep('');
        emit({ type: 'answer', text: meaning.text });
        return finish('done', { answer: meaning.text });
      }

      unanswered = [...meaning.calls];
      while (unanswered.length > 0) {
        const call = unanswered[0]!;
        calls.push({ tool: call.tool, args: canonicalJson(call.args) });
        const why = stopReason();
        if (why) {
          closeStep(why.message);
          return stopped(why);
        }
        const content = await execute(call);
        executed++;
        unanswered.shift();
        keep(protocol.observation(content, call));
        if (signal.aborted) return interrupted();
      }
      closeStep('');
    }
  } catch (e) {
    if (e instanceof ApprovalDeferred) {
      closeStep(`waiting for the user's approval ${e.approvalId}`);
      const text = `Waiting for your approval (${e.approvalId}): ${e.question} Approve or decline it in Tidy's approvals, or with \`tidy approve ${e.approvalId}\` or \`tidy decline ${e.approvalId}\`; the run goes on then.`;
      keep({ role: 'assistant', content: text });
      closeStep('');
      emit({ type: 'answer', text });
      return finish('done', { answer: text, waitingFor: e.approvalId });
    }
    if (signal.aborted) return interrupted();
    const message = e instanceof ModelError ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`;
    emit({ type: 'error', message, kind: e instanceof ModelError ? e.kind : 'internal', fatal: true });
    closeStep('the run ended with an error');
    return finish('error', { message });
  }
}
