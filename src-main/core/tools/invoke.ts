/**
 * One tool call, from the model's raw arguments to the outcome the model gets back: find the tool, parse
 * its arguments, ask for approval when its policy says so, run it, and turn every failure into
 * `{error, hint}` with a machine code. The agent loop, the tests and the MCP server all call this.
 */
import type { z } from 'zod';
import type { ApprovalAnswer, ApprovalDecision } from '../../../src-shared/events';
import type { ApprovalPolicy } from '../../../src-shared/settings';
import { attempt, DomainError } from '../fail';
import { signature, type Tool, type ToolContext, type ToolOutcome } from './tool';

interface ToolCallRequest {
  tool: string;
  args: unknown;
  /** The arguments could not be read at all (truncated JSON): why. */
  argsError?: string;
}

interface ApprovalHooks {
  /** Whether this call waits for the user's OK. */
  needed(tool: Tool, input: unknown): boolean;
  /**
   * Asks the user; resolves with their decision (or rejects when the run is cancelled), and with the
   * arguments as they edited them, if they did (the editable approval card).
   */
  ask(tool: Tool, question: string): Promise<ApprovalDecision | ApprovalAnswer>;
}

/**
 * The bulk-approval policy of one request: once it would change more than `limit` existing items, the
 * user is asked once, with what it changed so far. Text the model read (a task, a web page) can tell it
 * to rewrite everything; this puts a person in the way of that. Mutable: one per run.
 */
export interface BulkPolicy {
  limit: number;
  /** Existing items changed so far in this request. */
  changed: number;
  /** The user's answer, once asked. */
  decision: 'approve' | 'decline' | null;
  /** What the request changed so far, in words, to show when asking. */
  sofar: () => string[];
}

interface InvokeOptions {
  tools: ReadonlyMap<string, Tool>;
  ctx: ToolContext;
  /** Without it, nothing asks. */
  approval?: ApprovalHooks;
  bulk?: BulkPolicy;
}

/** Existing items a call changes (src-main/core/tools/tool.ts `changesExisting`). */
const existingChanged = (tool: Tool, input: unknown): number => (tool.effect === 'write' ? (tool.changesExisting?.(input) ?? 1) : 0);

function bulkQuestion(bulk: BulkPolicy, tool: Tool, n: number): string {
  const sofar = bulk.sofar();
  const shown = sofar.slice(0, 8).join('; ');
  const more = sofar.length > 8 ? ` and ${sofar.length - 8} more` : '';
  return (
    `This request is about to change more than ${bulk.limit} existing items (${bulk.changed} so far, ${n} more with ${tool.name}). ` +
    `Let it go on?${shown ? ` So far: ${shown}${more}.` : ''}`
  );
}

const DECLINED_HINT = 'do not try it again in this run; tell the user what you wanted to do, or go on without it';

/** The approval policy of a tool: the user's choice (settings `approvals.<tool>`) over the tool's own default. */
export function approvalPolicy(overrides: Readonly<Record<string, ApprovalPolicy>>, tool: Tool): ApprovalPolicy {
  return Object.hasOwn(overrides, tool.name) ? overrides[tool.name]! : (tool.approval ?? 'auto');
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => {
      const at = i.path.join('.') || 'arguments';
      return i.code === 'invalid_type' && i.message.endsWith('received undefined') ? `${at} is missing` : `${at}: ${i.message}`;
    })
    .join('; ');
}

const shown = (v: unknown): string => {
  if (v === undefined || v === null || v === '') return 'nothing';
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : 'nobody';
  const text = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/**
 * What the user changed in a call's arguments on the approval card, in words for the model and the
 * trace ("the user changed title from 'Sync' to 'Planning'"), or null when nothing changed.
 */
export function describeEdits(before: unknown, after: unknown): string | null {
  const a = (before && typeof before === 'object' ? before : {}) as Record<string, unknown>;
  const b = (after && typeof after === 'object' ? after : {}) as Record<string, unknown>;
  const changes: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[key] ?? null) === JSON.stringify(b[key] ?? null)) continue;
    if (b[key] === undefined || b[key] === null || b[key] === '') changes.push(`removed ${key} (was ${shown(a[key])})`);
    else if (a[key] === undefined) changes.push(`set ${key} to ${shown(b[key])}`);
    else changes.push(`changed ${key} from ${shown(a[key])} to ${shown(b[key])}`);
  }
  return changes.length ? `Before approving, the user ${changes.join('; ')}. The call ran with the user's values.` : null;
}

/** The answer the user gave, as one shape (hooks may resolve with a bare decision). */
export const answerOf = (a: ApprovalDecision | ApprovalAnswer): ApprovalAnswer => (typeof a === 'string' ? { decision: a } : a);

/** Runs one call. Never throws except when the run's signal aborted (the caller ends the run then). */
export async function invokeTool(call: ToolCallRequest, o: InvokeOptions): Promise<ToolOutcome> {
  const tool = o.tools.get(call.tool);
  if (!tool) return { ok: false, code: 'unknown_tool', error: `unknown tool '${call.tool.slice(0, 80)}'`, hint: `use one of: ${[...o.tools.keys()].join(', ')}` };
  if (call.argsError) return { ok: false, code: 'invalid_arguments', error: `${tool.name}: ${call.argsError}`, hint: `send a JSON object: ${tool.name} takes ${signature(tool)}` };
  let parsed: z.ZodSafeParseResult<unknown>;
  try {
    parsed = tool.input.safeParse(call.args);
  } catch {
    // A schema's recursive check can overflow the stack on absurdly deep arguments.
    return { ok: false, code: 'invalid_arguments', error: `invalid arguments for ${tool.name}: nested too deeply`, hint: `${tool.name} takes ${signature(tool)}` };
  }
  if (!parsed.success) {
    return {
      ok: false,
      code: 'invalid_arguments',
      error: `invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}`,
      hint: `${tool.name} takes ${signature(tool)}`,
    };
  }
  let input = parsed.data;
  let edits: string | null = null;
  const n = existingChanged(tool, input);
  const bulk = o.bulk;
  let askedInBulk = false;
  if (bulk && n > 0 && bulk.limit > 0 && bulk.changed + n > bulk.limit) {
    if (bulk.decision === null && o.approval) {
      const { decision } = answerOf(await o.approval.ask(tool, bulkQuestion(bulk, tool, n)));
      bulk.decision = decision === 'decline' ? 'decline' : 'approve';
      askedInBulk = true;
    }
    if (bulk.decision !== 'approve') {
      return {
        ok: false,
        code: 'declined',
        error: `the user did not allow this request to change more than ${bulk.limit} existing items`,
        hint: 'stop changing existing items; tell the user what is left to do',
      };
    }
  }
  if (!askedInBulk && o.approval && (tool.alwaysAsk || o.approval.needed(tool, input))) {
    const question = attempt(() => (tool.confirm ? tool.confirm(input, o.ctx) : `Run ${tool.name} ${JSON.stringify(call.args)}?`));
    if (!question.ok) return question;
    const answer = answerOf(await o.approval.ask(tool, question.value));
    if (answer.decision === 'decline') return { ok: false, code: 'declined', error: `the user declined: ${question.value}`, hint: DECLINED_HINT };
    if (answer.args !== undefined) {
      // The host checked the edited arguments already (answerApproval); check again, they are the tool's input.
      const edited = tool.input.safeParse(answer.args);
      if (!edited.success)
        return { ok: false, code: 'invalid_arguments', error: `the user's edited arguments for ${tool.name} are invalid: ${describeIssues(edited.error.issues)}`, hint: 'ask the user what they meant' };
      input = edited.data;
      edits = describeEdits(call.args, answer.args);
    }
  }
  try {
    const outcome = await tool.run(input, o.ctx);
    if (bulk && outcome.ok) bulk.changed += outcome.actionIds ? Math.min(n, outcome.actionIds.length) : n;
    if (!edits) return outcome;
    // The model must know the user's values won, or it would describe (or retry) its own.
    if (!outcome.ok) return { ...outcome, hint: `${edits} ${outcome.hint}` };
    const value = outcome.value;
    return { ...outcome, value: value && typeof value === 'object' && !Array.isArray(value) ? { ...value, user_edits: edits } : { result: value, user_edits: edits } };
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, ...e.toFailure() };
    if (o.ctx.signal.aborted) throw e;
    return { ok: false, code: 'failed', error: `${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`, hint: 'try another way, or tell the user' };
  }
}
