/**
 * Tidy as an MCP server (`tidy mcp`): the agent's own tool catalogue (src-main/core/tools), called through
 * the same invokeTool, for other AI apps. Everything a client changes is logged like the agent's changes:
 * one request per client session (source `mcp`, named after the client), undoable in the app, by
 * `tidy undo --run`, and by the client itself with `undo_last_request` / `undo_request`.
 *
 * A tool that asks for approval in Tidy asks the person at the client through MCP elicitation; a client
 * that cannot ask gets a refusal saying how to allow it, and the tool does not run.
 *
 * A client undoes only what its own sessions did (requests of source `mcp` named after it); anything else
 * needs the user's yes through elicitation, and a client that cannot ask is refused with the command that
 * does it in Tidy. A session's calls run one after another in the order they came, and end with the
 * session: calls a client sent but left before are never started.
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
import { undoRequest, type UndoReport } from '../actions/undo';
import { readSettings } from '../settings';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { clientName, sessionClient, startSessionRequest, type ClientId } from './sessions';
import { approvalPolicy, invokeTool, type BulkPolicy } from '../tools/invoke';
import { MCP_MEMORY_TOOLS, MEMORY_TOOLS, rememberTool } from '../tools/memory';

const MEMORY_TOOL_NAMES = new Set(MEMORY_TOOLS.map((t) => t.name));
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
  /** Waits between attempts of a call that found the database busy (default MCP_BUSY_RETRY_MS). */
  busyRetryMs?: readonly number[];
}

/**
 * `tidy mcp` opens the database with this short busy timeout (better-sqlite3 waits for a lock by blocking
 * the thread): a call that finds another process writing waits on a timer instead, MCP_BUSY_RETRY_MS
 * apart (about 10 s in all), so the server keeps answering (pings, cancels, the client's other messages)
 * and never holds up the other process for seconds. As the hosts do (host/dispatch.ts).
 */
export const MCP_BUSY_TIMEOUT_MS = 20;
export const MCP_BUSY_RETRY_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 500, 750, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000];

const isBusy = (e: unknown): boolean => typeof e === 'object' && e !== null && 'code' in e && /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code: unknown }).code));
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run` again after each wait while it fails because the database is busy — only while nothing of it
 * was written yet (SQLite's change count of this connection is unchanged: a failed attempt's transaction
 * was rolled back, so trying again is safe; a batch that wrote some items before the lock is not re-run).
 */
export async function whileBusy<T>(db: Db, run: () => Promise<T> | T, waits: readonly number[], signal?: AbortSignal): Promise<T> {
  const written = (): number => (cached(db, `SELECT total_changes() AS n`).get() as { n: number }).n;
  for (let attempt = 0; ; attempt++) {
    const before = written();
    try {
      return await run();
    } catch (e) {
      if (!isBusy(e) || signal?.aborted || written() !== before) throw e;
      if (attempt >= waits.length)
        throw new Error(`the database is busy: another program has been writing to it for ${Math.round(waits.reduce((a, b) => a + b, 0) / 1000)} s; nothing was changed`, { cause: e });
      await wait(waits[attempt]!);
    }
  }
}

/**
 * An MCP undo as its own session request: the session row and the undo in one transaction that takes the
 * write lock first. A busy database fails it before anything is written, so whileBusy tries the whole undo
 * again (a session row written before the lock was hit would have stopped the retry), and no other
 * process can write between the row and the undo. A refused undo leaves no session row.
 */
export function undoInSession(db: Db, client: ClientId | undefined, run: (ctx: ActionContext) => ReturnType<typeof undoRequest>): ReturnType<typeof undoRequest> {
  return db
    .transaction(() => {
      const ctx = startSessionRequest(db, client);
      const r = run(ctx);
      if (!r.ok) cached(db, `DELETE FROM mcp_sessions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM actions WHERE request_id = ?)`).run(ctx.requestId, ctx.requestId);
      return r;
    })
    .immediate();
}

/** A session's request: created on its first change, replaced after an undo so later changes stand alone. */
export interface McpSession {
  /** The request id of the session's changes so far, or null before the first one. */
  readonly requestId: string | null;
  /** Calls that ran to the end (or were refused) so far. */
  readonly calls: number;
  /**
   * Ends the session: calls still waiting their turn are answered with an error and never run (the one
   * running, if any, finishes). Returns how many were dropped.
   */
  end(): number;
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
  let ended = false;
  let waiting = 0;
  let calls = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const session: McpSession = {
    get requestId() {
      return current?.requestId ?? null;
    },
    get calls() {
      return calls;
    },
    end() {
      ended = true;
      return waiting;
    },
  };
  const gone = (): CallToolResult => text({ error: 'the session has ended; this call was not run', hint: 'connect again and repeat it' }, true);
  /**
   * Runs a session's calls one at a time in the order they came. Each waits a turn of the event loop
   * first, so a client that closes the connection is noticed between two calls, however many it sent.
   */
  function serially<T>(signal: AbortSignal, run: () => Promise<T> | T, skipped: () => T): Promise<T> {
    waiting++;
    const next = chain.then(async () => {
      await new Promise<void>((r) => setImmediate(r));
      waiting--;
      if (ended || signal.aborted) return skipped();
      try {
        return await run();
      } finally {
        calls++;
      }
    });
    chain = next.catch(() => {});
    return next;
  }

  const settings = readSettings(db);
  const waits = deps.busyRetryMs ?? MCP_BUSY_RETRY_MS;
  // Memory: a client reads it and may `remember` with the user's yes; it never changes or forgets one.
  // Each tool waits for a busy database on a timer, inside the run invokeTool makes (which would turn the error into a failure).
  const tools = [...offeredTools(deps.tools, settings).filter((t) => !MEMORY_TOOL_NAMES.has(t.name)), ...MCP_MEMORY_TOOLS].map(
    (t): Tool => ({ ...t, run: (input, ctx) => whileBusy(db, () => t.run(input, ctx), waits, ctx.signal) }),
  );
  const byName = new Map(tools.map((t) => [t.name, t]));

  const identify = (server: McpServer, ctx: ServerContext): void => {
    const fromEnvelope = envelope(ctx)[CLIENT_INFO_META_KEY] as ClientId | undefined;
    // The 2025 protocol names the client once, at initialize; the 2026 one on every request.
     
    client ??= fromEnvelope ?? server.server.getClientVersion();
  };
  /** Whether a request of the action log is this client's own: a session of source mcp named after it. */
  const own = (requestId: string): boolean => {
    if (sessionClient(db, requestId) !== clientName(client)) return false;
    return cached(db, `SELECT 1 FROM actions WHERE request_id = ? AND source != 'mcp' LIMIT 1`).get(requestId) === undefined;
  };
  /** Who made a request, in words: "you in Tidy", "Claude Desktop"… */
  const madeBy = (requestId: string): string => {
    const name = sessionClient(db, requestId);
    if (name !== null) return `another MCP client (${name})`;
    const row = cached(db, `SELECT source FROM actions WHERE request_id = ? LIMIT 1`).get(requestId) as { source: string } | undefined;
    return row?.source === 'agent' ? "Tidy's assistant" : row?.source === 'import' ? 'an import in Tidy' : 'the user in Tidy';
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
          ctx: {
            db,
            action,
            signal: ctx.mcpReq.signal,
            services: deps.services,
            memory: {
              ...(s.memory ? {} : { off: 'memory is switched off in Tidy' }),
              from: {
                conversationId: null,
                get runId() {
                  return action.requestId;
                },
              },
              userText: '',
              // remember always asks here (below): it runs only after the user's yes.
              approvedByUser: answer?.approve === true,
            },
          },
          bulk,
          approval: {
            // Memories change only through an approval the user sees: remember always asks.
            needed: (t) => t.name === rememberTool.name || approvalPolicy(s.approvals, t) === 'ask',
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

  /** The latest request of this client's own sessions that still has changes in effect. */
  function lastOwn(): string | null {
    const row = cached(
      db,
      `SELECT a.request_id FROM actions a JOIN mcp_sessions s ON s.id = a.request_id
        WHERE a.undone_at IS NULL AND a.undoes IS NULL AND a.changes != '[]' AND a.source = 'mcp' AND s.client_name = ?
        ORDER BY a.seq DESC LIMIT 1`,
    ).get(clientName(client)) as { request_id: string } | undefined;
    return row?.request_id ?? null;
  }

  /** undo_request: this client's own request at once; another's only with the user's yes through elicitation. */
  function undoOther(server: McpServer, id: string, ctx: ServerContext): CallToolResult | ReturnType<typeof inputRequired> {
    // Its own request, or none at all (undoRequest then says there is no such request).
    if (own(id) || cached(db, `SELECT 1 FROM actions WHERE request_id = ? LIMIT 1`).get(id) === undefined) return undo((c) => undoRequest(db, id, { ctx: c }));
    const who = madeBy(id);
    const answer = acceptedContent(ctx.mcpReq.inputResponses, APPROVE, ApprovalAnswer);
    const answered = ctx.mcpReq.inputResponses !== undefined && APPROVE in ctx.mcpReq.inputResponses;
    if (answer?.approve === true) return undo((c) => undoRequest(db, id, { ctx: c }));
    const shown = id.replace(/[^\w-]/g, '').slice(0, 40);
    if (answered) return failure({ code: 'declined', error: `the user declined undoing request ${shown}; nothing was changed`, hint: 'do not ask again' });
    if (!canAsk(server, ctx)) {
      log(`refused undo_request ${shown}: it was made by ${who}, not ${clientName(client)}, and this client cannot ask the user`);
      return failure({
        code: 'declined',
        error: `request ${shown} was made by ${who}, not by this client; a client may undo only what its own sessions did, and this one cannot ask the user (no MCP elicitation); nothing was changed`,
        hint: `ask the user to undo it in Tidy: tidy undo --run ${shown}`,
      });
    }
    const summaries = listActions(db, { requestId: id, limit: 5 }).map((a) => a.summary);
    const what = summaries.length ? `: ${summaries.join('; ').slice(0, 400)}` : '';
    return inputRequired({
      inputRequests: { [APPROVE]: inputRequired.elicit({ message: `Tidy: let ${clientName(client)} undo request ${shown}, made by ${who}${what}?`, requestedSchema: ApprovalForm }) },
    });
  }

  function undone(report: UndoReport): CallToolResult {
    return text({ reversed: report.reversed, created: report.created });
  }

  /** An undo is its own request (named after the client); later changes then start a new one. */
  function undo(run: (ctx: ActionContext) => ReturnType<typeof undoRequest>): CallToolResult {
    const r = undoInSession(db, client, run);
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
        (args: unknown, ctx: ServerContext) => serially(ctx.mcpReq.signal, () => call(server, tool, args, ctx), gone),
      );
    }
    server.registerTool(
      'undo_last_request',
      {
        description: "Undo the most recent request of this client's sessions in Tidy's action log that still has changes in effect: all its changes, or none. Repeat to walk back. The user's own changes are not undone from here.",
        inputSchema: z.strictObject({}),
        annotations: { title: 'undo last request', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (_args: unknown, ctx: ServerContext) =>
        serially(
          ctx.mcpReq.signal,
          () => whileBusy(db, () => {
            identify(server, ctx);
            const id = lastOwn();
            if (id === null)
              return failure({
                code: 'nothing_to_undo',
                error: `${clientName(client)} has nothing left to undo in Tidy: every change its sessions made is undone`,
                hint: "other changes are the user's; they can undo them in Tidy (tidy undo --run ID)",
              });
            return undo((c) => undoRequest(db, id, { ctx: c }));
          }, waits, ctx.mcpReq.signal),
          gone,
        ),
    );
    server.registerTool(
      'undo_request',
      {
        description: 'Undo every change of one request in Tidy\'s action log (e.g. "m3", named in the note of a change this session made), all or nothing. A request this client did not make is undone only if the user agrees.',
        inputSchema: z.strictObject({ id: z.string().min(1).max(40) }),
        annotations: { title: 'undo request', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ({ id }: { id: string }, ctx: ServerContext) =>
        serially(
          ctx.mcpReq.signal,
          () => whileBusy(db, () => {
            identify(server, ctx);
            return undoOther(server, id, ctx);
          }, waits, ctx.mcpReq.signal),
          gone,
        ),
    );
    return server;
  };

  return { factory, session };
}
