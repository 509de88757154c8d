/**
 * MCP servers as tools for Tidy's agent (settings `mcpServers`). At the start of a run every enabled
 * server is connected within MCP_CONNECT_TIMEOUT_MS; its tools reach the model as `<server>__<tool>`,
 * ask for approval unless the user allowed them (`approvals.<server>__<tool>`), and each call that may
 * change something is logged as an action that cannot be undone (it happened outside Tidy). A server
 * that fails to start, crashes or hangs costs one line in the trace; the run goes on without it. Its
 * process ends with the run, and sees only the environment the user configured (plus PATH, HOME and the
 * like the SDK passes on), never Tidy's keys.
 */
import type { Client, JSONRPCMessage } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { inputShapeProblem, type InputLimits } from '../../../src-shared/bounds';
import { MCP_SEPARATOR, modelToolName, type McpServerConfig, type McpServers, type McpToolInfo } from '../../../src-shared/mcp';
import { recordAction } from '../actions/log';
import type { Tool, ToolContext, ToolOutcome, ToolServices } from '../tools/tool';
import { boundedFetch } from './http';
import { JSONL_LIMITS, JsonLineReader, type JsonLineLimits } from './jsonl';

export const MCP_CONNECT_TIMEOUT_MS = 10_000;
export const MCP_CALL_TIMEOUT_MS = 60_000;
/** A server offering more is cut to its first ones (each tool is paid for on every step of every run). */
export const MAX_TOOLS_PER_SERVER = 40;
/** All servers together. */
export const MAX_MCP_TOOLS = 100;
export const MAX_DESCRIPTION = 1_000;
/** What a tool result may bring into the conversation; more is cut with a note. */
export const MAX_RESULT_CHARS = 20_000;
/** An input schema larger than this is not offered (it would be sent with every request). */
export const SCHEMA_LIMITS: InputLimits = { maxDepth: 12, maxNodes: 2_000, maxChars: 20_000 };

export interface McpConnectOptions {
  /** The run's cancel. */
  signal?: AbortSignal;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  /** HTTP for streamable-HTTP servers (tests pass one that counts connections). */
  fetch?: ToolServices['fetch'];
  version?: string;
  /** A line for what a server sent that answers nothing and was dropped (a run's trace, a list's output). */
  onProblem?: (line: string) => void;
}

/** The tools of the servers that answered, the lines to show for those that did not, and a way to end them all. */
export interface McpConnections {
  tools: Tool[];
  problems: string[];
  /** Which enabled servers started and listed their tools (true) and which failed to (false). */
  started?: Record<string, boolean>;
  /** Ends every server process and connection; safe to call twice. */
  close(): Promise<void>;
}

export type McpLauncher = (servers: McpServers, options: McpConnectOptions) => Promise<McpConnections>;

const NO_CONNECTIONS: McpConnections = { tools: [], problems: [], close: async () => {} };

/** Anything the model may send: the server checks its own arguments. Its JSON Schema goes to the model as the server wrote it. */
const ANY_ARGS = z.record(z.string(), z.unknown());

function withTimeout<T>(p: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
    const onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}

const why = (e: unknown): string => (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 200);

interface RemoteTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** A server's tools as Tidy tools, and a line for each one left out (bad name, duplicate, oversized schema). */
export function adaptTools(server: string, remote: readonly RemoteTool[], call: (tool: RemoteTool, args: unknown, ctx: ToolContext) => Promise<ToolOutcome>): { tools: Tool[]; skipped: string[] } {
  const tools: Tool[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  if (remote.length > MAX_TOOLS_PER_SERVER) skipped.push(`${server} offers ${remote.length} tools; only the first ${MAX_TOOLS_PER_SERVER} are used`);
  for (const r of remote.slice(0, MAX_TOOLS_PER_SERVER)) {
    const original = typeof r.name === 'string' ? r.name.slice(0, 200) : '';
    const name = modelToolName(server, original);
    if (!name) {
      skipped.push(`${server}: a tool named ${JSON.stringify(original.slice(0, 40))} has no usable name; left out`);
      continue;
    }
    if (seen.has(name)) {
      skipped.push(`${server}: two tools are both named ${name}; the second is left out`);
      continue;
    }
    const schema = r.inputSchema && typeof r.inputSchema === 'object' && !Array.isArray(r.inputSchema) ? (r.inputSchema as Record<string, unknown>) : { type: 'object' };
    const problem = inputShapeProblem(schema, SCHEMA_LIMITS);
    if (problem || schema['type'] !== 'object') {
      skipped.push(`${server}: the input schema of ${original.slice(0, 40)} ${problem ?? 'is not an object schema'}; left out`);
      continue;
    }
    seen.add(name);
    const { $schema: _drop, ...parameters } = schema;
    const described = (r.description ?? r.title ?? r.annotations?.title ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_DESCRIPTION);
    const readOnly = r.annotations?.readOnlyHint === true;
    tools.push({
      name,
      description: `${described || original} (from the MCP server "${server}"${readOnly ? '' : '; what it changes cannot be undone in Tidy'})`,
      input: ANY_ARGS,
      parameters: { ...parameters, type: 'object' },
      effect: readOnly ? 'read' : 'write',
      changesExisting: () => 0,
      approval: 'ask',
      external: { server, original },
      confirm: (input) => `Let the MCP server "${server}" run ${original}${summarizeArgs(input)}? This happens outside Tidy and cannot be undone here.`,
      run: (input, ctx) => call(r, input, ctx),
    });
  }
  return { tools, skipped };
}

function summarizeArgs(input: unknown): string {
  const json = JSON.stringify(input ?? {});
  if (json === '{}') return '';
  return ` with ${json.length > 300 ? `${json.slice(0, 299)}…` : json}`;
}

type Content = { type: string; text?: string };

/** A tool result as the model gets it: its text (and structured content), cut to MAX_RESULT_CHARS. */
export function resultValue(result: { content?: unknown; structuredContent?: unknown }): { value: unknown; text: string } {
  const blocks = Array.isArray(result.content) ? (result.content as Content[]) : [];
  const parts = blocks.slice(0, 100).map((b) => (b && b.type === 'text' && typeof b.text === 'string' ? b.text : `[${typeof b?.type === 'string' ? b.type.slice(0, 20) : 'unknown'} content left out]`));
  let text = parts.join('\n');
  const structured = result.structuredContent;
  if (!text && structured !== undefined) text = JSON.stringify(structured) ?? '';
  const cut = text.length > MAX_RESULT_CHARS;
  if (cut) text = text.slice(0, MAX_RESULT_CHARS);
  return { value: cut ? { result: text, truncated: true, hint: `the result was longer than ${MAX_RESULT_CHARS.toLocaleString('en')} characters and was cut` } : { result: text }, text };
}

/**
 * What the SDK's stdio transport reads a server's stdout with, replaced by one within bounds (jsonl.ts):
 * an answer over 8 MiB, nested over 64 levels or holding over 200,000 values becomes the JSON-RPC error
 * of the request it answers (naming what was wrong), and the connection stays. Lines that answer
 * nothing are reported through `problem` and dropped.
 */
export class BoundedReadBuffer {
  private readonly reader: JsonLineReader;
  private queue: JSONRPCMessage[] = [];

  constructor(
    private readonly server: string,
    private readonly problem: (line: string) => void,
    limits: JsonLineLimits = JSONL_LIMITS,
  ) {
    this.reader = new JsonLineReader(limits);
  }

  append(chunk: Buffer): void {
    for (const e of this.reader.push(chunk)) {
      if (e.kind === 'bad') {
        const line = `the MCP server ${this.server} sent an answer Tidy cannot take: ${e.problem}`;
        if (e.id === null) this.problem(line);
        else this.queue.push({ jsonrpc: '2.0', id: e.id, error: { code: e.code, message: line } } as unknown as JSONRPCMessage);
        continue;
      }
      const v = e.value as Record<string, unknown> | null;
      const message = v !== null && typeof v === 'object' && !Array.isArray(v) && v['jsonrpc'] === '2.0' && (typeof v['method'] === 'string' || 'id' in v);
      if (message) this.queue.push(v as unknown as JSONRPCMessage);
      else this.problem(`the MCP server ${this.server} sent a line that is not a JSON-RPC message; ignored`);
    }
  }

  readMessage(): JSONRPCMessage | null {
    return this.queue.shift() ?? null;
  }

  clear(): void {
    this.queue = [];
    this.reader.clear();
  }
}

async function connectOne(name: string, config: McpServerConfig, o: McpConnectOptions): Promise<{ client: Client; close: () => Promise<void> }> {
  const { Client: McpClient } = await import('@modelcontextprotocol/client');
  const client = new McpClient({ name: 'tidy', version: o.version ?? '0.1.0' });
  let transport;
  if ('url' in config) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    // Its answers are read within the same bounds as a stdio server's (http.ts), not held whole by the SDK.
    const base = o.fetch ?? ((input, init) => fetch(input, init));
    transport = new StreamableHTTPClientTransport(new URL(config.url), { fetch: boundedFetch(base, name, o.onProblem ?? (() => {})), redirectPolicy: 'same-origin' });
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    // stderr is read and dropped: a chatty server must not write into Tidy's terminal or fill a pipe.
    transport = new StdioClientTransport({ command: config.command, args: config.args, env: { ...config.env }, stderr: 'pipe' });
    transport.stderr?.on('data', () => {});
    // The SDK's own buffer holds a line whole and ends the connection past 10 MB ("Connection closed").
    (transport as unknown as { _readBuffer: BoundedReadBuffer })._readBuffer = new BoundedReadBuffer(name, o.onProblem ?? (() => {}));
  }
  const close = async (): Promise<void> => {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  };
  try {
    await withTimeout(client.connect(transport), o.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS, `starting ${name}`, o.signal);
  } catch (e) {
    await close();
    throw e;
  }
  return { client, close };
}

/** Lists a server's tools (for Settings and `tidy mcp list --tools`), then disconnects; each tool not offered is a line to `onProblem`. */
export async function inspectServer(name: string, config: McpServerConfig, o: McpConnectOptions = {}): Promise<McpToolInfo[]> {
  const { client, close } = await connectOne(name, config, o);
  try {
    const listed = await withTimeout(client.listTools(), o.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS, `listing the tools of ${name}`, o.signal);
    const { tools, skipped } = adaptTools(name, listed.tools as RemoteTool[], () => Promise.resolve({ ok: true, value: null }));
    for (const line of skipped) o.onProblem?.(line);
    return tools.map((t) => ({ name: t.name, original: t.external!.original, description: t.description, readOnly: t.effect === 'read' }));
  } finally {
    await close();
  }
}

/** Connects every enabled server at once; each one that fails is a line in `problems`. */
export const connectMcpServers: McpLauncher = async (servers, o) => {
  const enabled = Object.entries(servers).filter(([, c]) => c.enabled);
  if (enabled.length === 0) return NO_CONNECTIONS;
  const closers: (() => Promise<void>)[] = [];
  const problems: string[] = [];
  const tools: Tool[] = [];
  const settled = await Promise.allSettled(
    enabled.map(async ([name, config]) => {
      const conn = await connectOne(name, config, o);
      closers.push(conn.close);
      try {
        return await serve(name, conn);
      } catch (e) {
        await conn.close(); // a server that cannot list its tools is not kept running for the rest of the run
        throw e;
      }
    }),
  );
  async function serve(name: string, conn: { client: Client; close: () => Promise<void> }): Promise<Tool[]> {
    {
      let gone: string | null = null;
      conn.client.onclose = () => {
        gone ??= `the MCP server ${name} stopped`;
      };
      const listed = await withTimeout(conn.client.listTools(), o.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS, `listing the tools of ${name}`, o.signal);
      const call = async (tool: RemoteTool, args: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
        if (gone) return { ok: false, code: 'failed', error: `${gone}; its tools cannot be used in this run`, hint: 'do not call its tools again; go on without them' };
        const timeout = o.callTimeoutMs ?? MCP_CALL_TIMEOUT_MS;
        let result;
        try {
          result = await withTimeout(
            conn.client.callTool({ name: tool.name, arguments: (args ?? {}) as Record<string, unknown> }, { signal: ctx.signal, timeout }),
            timeout,
            `${name}__${tool.name}`,
            ctx.signal,
          );
        } catch (e) {
          if (ctx.signal.aborted) throw e;
          return { ok: false, code: 'failed', error: `the MCP server ${name} failed: ${why(e)}`, hint: gone ? 'do not call its tools again; go on without them' : 'try another way, or tell the user' };
        }
        const { value, text } = resultValue(result);
        if (result.isError === true) return { ok: false, code: 'failed', error: `${name}: ${text.slice(0, 500) || 'the tool failed'}`, hint: 'fix the arguments, or tell the user' };
        if (tool.annotations?.readOnlyHint === true) return { ok: true, value };
        // Logged so the user sees it among the changes, as one that Tidy cannot undo (it holds no before-image).
        const actionId = ctx.db.transaction(() =>
          recordAction(ctx.db, ctx.action, { tool: `${name}${MCP_SEPARATOR}${tool.name}`, args: args ?? {}, summary: `Ran ${tool.name} on the MCP server ${name} (cannot be undone)`, what: { verb: 'ran', kind: null, id: null, name: tool.name, count: 1, reverses: null }, result: { external: name } }, []),
        )();
        return { ok: true, value, actionId };
      };
      const adapted = adaptTools(name, listed.tools as RemoteTool[], call);
      problems.push(...adapted.skipped);
      return adapted.tools;
    }
  }
  const started: Record<string, boolean> = {};
  settled.forEach((s, i) => {
    const name = enabled[i]![0];
    started[name] = s.status === 'fulfilled';
    if (s.status === 'fulfilled') tools.push(...s.value);
    else problems.push(`the MCP server ${name} is left out of this run: ${why(s.reason)}`);
  });
  if (tools.length > MAX_MCP_TOOLS) {
    problems.push(`the MCP servers offer ${tools.length} tools; only the first ${MAX_MCP_TOOLS} are used`);
    tools.length = MAX_MCP_TOOLS;
  }
  let closed = false;
  // A start cut short by the run's own cancel says nothing about the server.
  return {
    tools,
    problems,
    ...(o.signal?.aborted ? {} : { started }),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(closers.map((c) => c()));
    },
  };
};
