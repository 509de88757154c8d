import type { ApprovalForm } from '../../../src-shared/events';
import { z } from 'zod';
import type { Failure } from '../../../src-shared/result';
import type { ActionContext } from '../actions/log';
import { attempt } from '../fail';
import type { Mutated } from '../domain/mutation';
import type { ApprovalPolicy, Settings } from '../../../src-shared/settings';
import { createCalculator, type Calculator } from '../../sandbox/calculator';
import type { Db } from '../store/db';

/**
 * What tools reach outside the database, handed in by the composition root (the CLI, a host, a test):
 * tools hold no module-level singletons, so each process (or test) decides what they talk to.
 */
export interface ToolServices {
  /** The sandboxed calculator (src-main/sandbox/calculator.ts): one per process, started on first use. */
  calculator: () => Calculator;
  /** The time tools treat as now. */
  now: () => Date;
  /** HTTP for tools that reach the network (only ever the endpoints the user turned on). */
  fetch: typeof fetch;
}

/**
 * What the memory tools may do in this call (src-main/core/tools/memory.ts): set by the agent loop for a
 * conversation with the user, and by the MCP server for a call the user approved; absent elsewhere, where
 * memory cannot be written.
 */
export interface MemoryAccess {
  /** Set when memory is off for this request, saying why (the setting is off, the conversation is incognito). */
  off?: string;
  /** Where a remembered fact comes from. */
  from: { conversationId: string | null; runId: string | null };
  /** The user's own messages of this conversation (no tool results): a remembered text must be made of their words. */
  userText: string;
  /** The user approved this very call (MCP elicitation): the words need not be checked. */
  approvedByUser?: boolean;
}

/** What a tool runs with: the database, the request its changes are logged under, the run's signal, and its services. */
export interface ToolContext {
  db: Db;
  /** `{requestId, source}`: every action a tool writes is tagged with the request, so `tidy undo --run` reverses it. */
  action: ActionContext;
  /** Aborted on cancel or at the time limit; long-running tools (the calculator) must stop on it. */
  signal: AbortSignal;
  services: ToolServices;
  /** Memory for this call; without it the memory tools refuse. */
  memory?: MemoryAccess;
}

/** Services for a process: one lazily started calculator, the real clock and fetch. */
export function createToolServices(overrides: Partial<ToolServices> = {}): ToolServices {
  let calculator: Calculator | undefined;
  return {
    calculator: () => (calculator ??= createCalculator()),
    now: () => new Date(),
    fetch: (...args) => fetch(...args),
    ...overrides,
  };
}

/**
 * A tool's answer: a JSON value for the model (and the actions it logged, for a mutation), or {error, hint}.
 * A batch tool logs one action per item that succeeded.
 */
export type ToolOutcome = { ok: true; value: unknown; actionId?: string; actionIds?: string[] } | ({ ok: false } & Failure);

/** `read` never changes data; `write` changes it through logged, undoable operations. */
export type ToolEffect = 'read' | 'write';

/**
 * A tool is data. Mutations go through the domain operations, which write the change and its action row
 * (with the before/after images undo applies) in one transaction; so a tool never states its inverse itself.
 */
export interface Tool<S extends z.ZodType = z.ZodType> {
  /** Public contract (docs/ARCHITECTURE.md, "Public contract"): never rename. */
  name: string;
  /** One or two short sentences for the model: what it does and where its ids come from. */
  description: string;
  input: S;
  effect: ToolEffect;
  /**
   * How many existing items a call changes, for the bulk-approval policy (settings `bulkApproval`).
   * Default: 1 for a write tool, 0 for a read. Tools that only create return 0; batch tools their count.
   */
  changesExisting?: (input: z.output<S>) => number;
  /**
   * A write that leaves the same state when repeated with the same arguments (moving a task to a project,
   * checking an item). The MCP server says so (idempotentHint); reads all are.
   */
  idempotent?: boolean;
  /** The approval card shows the call as an editable form (`event`: booking-like tools); the approval event carries it. */
  approvalForm?: ApprovalForm;
  /** Whether a call waits for the user's OK unless the user says otherwise (settings `approvals.<tool>`). Default: auto. */
  approval?: ApprovalPolicy;
  /** Asks every time, whatever the settings, `--yes` or an earlier "always" say (create_routine). */
  alwaysAsk?: boolean;
  /**
   * The question to ask the user when the tool's approval policy is `ask`. May throw a DomainError (e.g. no
   * such task): then the call fails without bothering the user.
   */
  confirm?: (input: z.output<S>, ctx: ToolContext) => string;
  /** More for the approval card than the question (create_routine: the schedule in words and the next three runs). */
  card?: (input: z.output<S>, ctx: ToolContext) => { schedule?: string; nextRuns?: string[] };
  /**
   * Whether the model is offered the tool, by the user's settings (e.g. `wikipedia` only while it is on).
   * Default: always. A tool that reaches the network is off until the user turns it on.
   */
  available?: (settings: Settings) => boolean;
  /** The arguments' JSON Schema as given by another program (an MCP server's tool), sent to the model instead of `input`'s. */
  parameters?: Record<string, unknown>;
  /** The tool acts outside Tidy (another app's MCP server): its effects cannot be undone from the action log. */
  external?: { server: string; original: string };
  run(input: z.output<S>, ctx: ToolContext): ToolOutcome | Promise<ToolOutcome>;
}

/** The tools the model is offered under these settings. */
export const offeredTools = (tools: readonly Tool[], settings: Settings): Tool[] => tools.filter((t) => t.available?.(settings) ?? true);

/**
 * Keeps a tool's input type checked where it is written, then erases it for the registry. The erasure is
 * safe because the loop always parses arguments with `tool.input` before calling `run` or `confirm`.
 */
export const defineTool = <S extends z.ZodType>(tool: Tool<S>): Tool => tool as unknown as Tool;

/** A read that may throw a DomainError, as a tool outcome. */
export const read = (fn: () => unknown): ToolOutcome => attempt(fn);

/** A domain mutation as a tool outcome, with the value shaped for the model. */
export function mutation<T>(r: Mutated<T>, shape: (value: T) => unknown): ToolOutcome {
  return r.ok ? { ok: true, value: shape(r.value), actionId: r.actionId } : r;
}

/** Reads return at most this many rows, with the total, so a 10,000-task inbox cannot blow the context. */
export const READ_CAP = 200;

/**
 * The shape of every list-returning tool: `{<key>: [...rows], total}`; when capped also `truncated: true`
 * and a hint. An object (not a bare array) so the model always sees the total and whether it saw everything.
 */
export function capped(key: string, rows: readonly unknown[], total: number, narrow: string): Record<string, unknown> {
  if (total <= READ_CAP) return { [key]: rows, total };
  return { [key]: rows.slice(0, READ_CAP), total, truncated: true, hint: `showing ${READ_CAP} of ${total}; ${narrow}` };
}

const jsonSchemas = new WeakMap<Tool, Record<string, unknown>>();

/** The tool's arguments as JSON Schema (for native tool calling), computed once per tool. */
export function inputSchema(tool: Tool): Record<string, unknown> {
  if (tool.parameters) return tool.parameters;
  let schema = jsonSchemas.get(tool);
  if (!schema) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(tool.input) as Record<string, unknown>;
    jsonSchemas.set(tool, (schema = rest));
  }
  return schema;
}

function typeOf(s: Record<string, unknown>): string {
  if (Array.isArray(s['enum'])) return s['enum'].map((v) => JSON.stringify(v)).join('|');
  if (Array.isArray(s['type'])) return s['type'].join('|');
  if (Array.isArray(s['anyOf'])) return (s['anyOf'] as Record<string, unknown>[]).map(typeOf).join('|');
  if (s['type'] === 'integer' && typeof s['minimum'] === 'number' && typeof s['maximum'] === 'number') return `${s['minimum']}-${s['maximum']}`;
  return String(s['type'] ?? 'any');
}

/**
 * A compact signature of the arguments for hints and the json prompt: `?` marks an optional one, and only
 * types other than string are written, e.g. `{task_id, priority?: 1-4, due?: string|null}`. Every token of
 * it is paid again on every step of a json-protocol run.
 */
export function signature(tool: Tool): string {
  const schema = inputSchema(tool);
  const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return `{${Object.entries(props)
    .map(([k, v]) => {
      const type = typeOf(v);
      return `${k}${required.has(k) ? '' : '?'}${type === 'string' ? '' : `: ${type}`}`;
    })
    .join(', ')}}`;
}
