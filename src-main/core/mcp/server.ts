/**
 * Tidy as an MCP server (`tidy mcp`): the agent's own tool catalogue (src-main/core/tools), called through
 * the same invokeTool, for other AI apps. Everything a client changes is logged like the agent's changes:
 * one request per client session (source `mcp`, named after the client), undoable in the app, by
 * `tidy undo --run`, and by the client itself with `undo_last_request` / `undo_request`.
 *
 * A tool that asks for approval in Tidy asks the person at the client through MCP elicitation; a client
 * that cannot ask gets a refusal saying how to allow it, and the tool does not run.
 */
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  inputRequired,
  McpServer,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { undoCountWords } from '../../../src-shared/actions';
import type { Failure } from '../../../src-shared/result';
import type { ActionContext } from '../actions/log';
import { listActions } from '../actions/log';
import { undoLast, undoRequest, type UndoReport } from '../actions/undo';
import { readSettings } from '../settings';
import type { Db } from '../store/db';
import { clientName, startSessionRequest, type ClientId } from './sessions';
import { approvalPolicy, invokeTool, type BulkPolicy } from '../tools/invoke';
import { offeredTools, type Tool, type ToolOutcome, type ToolServices } from '../tools/tool';

export const INSTRUCTIONS = `Tidy keeps the user's tasks, projects and lists. Look before you change: read tasks, projects or lists first and use their ids exactly.
Prefer the batch tools (move_tasks, add_tasks, complete_tasks) over one call per task.
Every change is logged in Tidy's action log as one request for this session, and the user can undo it there; undo_last_request and undo_request undo from here.
Nothing is ever deleted. A failed call returns {"error", "hint"}: follow the hint.`;

export interface TidyMcpDeps {
  db: Db;
  tools: readonly Tool[];
  services: ToolServices;
  version: string;
  /** One line for the log (stderr): stdout carries only the protocol. */
  log?: (line: string) => void;
}

/** A session's request: created on its first change, replaced after an undo so later changes stand alone. */
export interface McpSession {
  /** The request id of the session's changes so far, or null before the first one. */
  readonly requestId: string | null;
}

const APPROVE = 'approve';
const ApprovalAnswer = z.object({ approve: z.boolean() });
const ApprovalForm = {
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Allow it', description: 'Let Tidy make this change', default: false } },
  required: ['approve'],
};

/** The 2026-era per-request envelope (the SDK types it as an empty object), as a record to read. */
const envelope = (ctx: ServerContext): Record<string, unknown> => (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;

/** Raised inside invokeTool's approval hook when the client must be asked first; caught by the tool handler. */
class NeedsApproval extends Error {
  constructor(readonly question: string) {
    super(question);
  }
}

function text(value: unknown, isError = false, note?: string): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(value) }];
  if (note) content.push({ type: 'text', text: note });
  const structured = value && typeof value === 'object' && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
  return { content, ...structured, ...(isError ? { isError: true } : {}) };
}

const failure = (f: Failure): CallToolResult => text({ error: f.error, hint: f.hint, ...(f.code ? { code: f.code } : {}) }, true);

/**
 * The server for one connection (`serveStdio` may build more than one instance for the opening exchange;
 * they share this session). Returns the factory and the session's state.
 */
export function createTidyMcpServer(deps: TidyMcpDeps): { factory: () => McpServer; session: McpSession } {
  const { db } = deps;
  let current: ActionContext | null = null;
  let client: ClientId | undefined;
  const log = deps.log ?? (() => {});
  const session: McpSession = {
    get requestId() {
      return current?.requestId ?? null;
    },
  };

  const settings = readSettings(db);
  const tools = offeredTools(deps.tools, settings);
  const byName = new Map(tools.map((t) => [t.name, t]));

  const identify = (server: McpServer, ctx: ServerContext): void => {
    const fromEnvelope = envelope(ctx)[CLIENT_INFO_META_KEY] as ClientId | undefined;
    // The 2025 protocol names the client once, at initialize; the 2026 one on every request.
     
    client ??= fromEnvelope ?? server.server.getClientVersion();
  };
  const canAsk = (server: McpServer, ctx: ServerContext): boolean => {
    const caps = (envelope(ctx)[CLIENT_CAPABILITIES_META_KEY] ??
       
      server.server.getClientCapabilities()) as { elicitation?: { form?: unknown; url?: unknown } } | undefined;
    const e = caps?.elicitation;
    // An empty elicitation capability means form mode (the spec's backwards-compatible reading).
    return e !== undefined && (e.form !== undefined || e.url === undefined);
  };
  /** The session's request, created on first use (a session that only reads leaves no trace in the log). */
  const request = (): ActionContext => {
    current ??= startSessionRequest(db, client);
    return current;
  };

  async function call(server: McpServer, tool: Tool, args: unknown, ctx: ServerContext): Promise<CallToolResult | ReturnType<typeof inputRequired>> {
    identify(server, ctx);
    const answer = acceptedContent(ctx.mcpReq.inputResponses, APPROVE, ApprovalAnswer);
    const answered = ctx.mcpReq.inputResponses !== undefined && APPROVE in ctx.mcpReq.inputResponses;
    const s = readSettings(db);
    // The session request is made lazily: a read never creates one, a write creates it inside run().
    const action = {
      get requestId() {
        return request().requestId;
      },
      source: 'mcp' as const,
    };
    const bulk: BulkPolicy = {
      limit: s.bulkApproval,
      changed: current ? listActions(db, { requestId: current.requestId, limit: 10_000 }).filter((a) => a.undoneAt === null && a.undoes === null).length : 0,
      decision: answer?.approve === true ? 'approve' : null,
      sofar: () => (current ? listActions(db, { requestId: current.requestId, limit: 50 }).reverse().map((a) => a.summary) : []),
    };
    let outcome: ToolOutcome;
    try {
      outcome = await invokeTool(
        { tool: tool.name, args },
        {
          tools: byName,
          ctx: { db, action, signal: ctx.mcpReq.signal, services: deps.services },
          bulk,
          approval: {
            needed: (t) => approvalPolicy(s.approvals, t) === 'ask',
            ask: (_t, question) => {
              if (answer) return Promise.resolve(answer.approve ? 'approve' : 'decline');
              if (answered) return Promise.resolve('decline'); // declined or cancelled in the client
              throw new NeedsApproval(question);
            },
          },
        },
      );
    } catch (e) {
      if (!(e instanceof NeedsApproval)) throw e;
      if (!canAsk(server, ctx)) {
        log(`refused ${tool.name}: it needs approval and ${clientName(client)} cannot ask (no MCP elicitation)`);
        return failure({
          code: 'declined',
          error: `${tool.name} needs the user's approval in Tidy, and this client cannot ask for it (it does not support MCP elicitation); nothing was changed`,
          hint: `ask the user to do it in Tidy, or to allow it there: tidy config set approvals.${tool.name} auto`,
        });
      }
      return inputRequired({
        inputRequests: { [APPROVE]: inputRequired.elicit({ message: `Tidy: ${e.question}`, requestedSchema: ApprovalForm }) },
      });
    }
    if (!outcome.ok) return failure(outcome);
    const ids = outcome.actionIds ?? (outcome.actionId ? [outcome.actionId] : []);
    const note = ids.length && current ? `Logged in Tidy as request ${current.requestId} (${ids.join(', ')}); undo_request {"id": "${current.requestId}"} reverses it.` : undefined;
    if (ids.length) log(`${tool.name}: ${ids.length} change${ids.length === 1 ? '' : 's'} in request ${current?.requestId ?? ''}`);
    return text(outcome.value, false, note);
  }

  function undone(report: UndoReport): CallToolResult {
    return text({ reversed: report.reversed, created: report.created });
  }

  /** An undo is its own request (named after the client); later changes then start a new one. */
  function undo(run: (ctx: ActionContext) => ReturnType<typeof undoRequest>): CallToolResult {
    const ctx = startSessionRequest(db, client);
    const r = run(ctx);
    if (!r.ok) return failure(r);
    current = null;
    log(undoCountWords(r.value.reversed.length));
    return undone(r.value);
  }

  const factory = (): McpServer => {
    const server = new McpServer({ name: 'tidy', title: 'Tidy', version: deps.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    for (const tool of tools) {
      const read = tool.effect === 'read';
      server.registerTool(
        tool.name,
        {
          description: tool.description,
          inputSchema: tool.input,
          annotations: {
            title: tool.name.replace(/_/g, ' '),
            readOnlyHint: read,
            destructiveHint: false,
            idempotentHint: read || tool.idempotent === true,
            // Only a lookup reaches outside the user's own data.
            openWorldHint: tool.name === 'wikipedia',
          },
        },
        (args: unknown, ctx: ServerContext) => call(server, tool, args, ctx),
      );
    }
    server.registerTool(
      'undo_last_request',
      {
        description: "Undo the most recent request in Tidy's action log that still has changes in effect (usually this session's): all its changes, or none. Repeat to walk back.",
        inputSchema: z.strictObject({}),
        annotations: { title: 'undo last request', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (_args: unknown, ctx: ServerContext) => {
        identify(server, ctx);
        return undo((c) => undoLast(db, { ctx: c }));
      },
    );
    server.registerTool(
      'undo_request',
      {
        description: 'Undo every change of one request in Tidy\'s action log (e.g. "m3", named in the note of a change this session made), all or nothing.',
        inputSchema: z.strictObject({ id: z.string().min(1).max(40) }),
        annotations: { title: 'undo request', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ({ id }: { id: string }, ctx: ServerContext) => {
        identify(server, ctx);
        return undo((c) => undoRequest(db, id, { ctx: c }));
      },
    );
    return server;
  };

  return { factory, session };
}
