/**
 * MCP servers the user added as tools for Tidy's agent (settings `mcpServers`), and how their tools are
 * named for the model. Pure schemas and functions: the CLI, the core and the Settings view share them.
 */
import { z } from 'zod';

/** A server's name: lower_snake_case (so `<server>__<tool>` is a tool name), short enough to leave room for the tool's. */
const MCP_SERVER_NAME = /^[a-z][a-z0-9_]{0,23}$/;
/** Between the server's name and the tool's in the name the model sees. */
export const MCP_SEPARATOR = '__';
/** OpenAI's limit on a function name (`^[a-zA-Z0-9_-]{1,64}$`); ours are lower_snake_case within it. */
const MAX_TOOL_NAME = 64;

export const McpServerName = z
  .string()
  .regex(MCP_SERVER_NAME, 'a server name is lower_snake_case, starts with a letter and is at most 24 characters, e.g. github or my_notes')
  .refine((s) => !s.includes(MCP_SEPARATOR), 'a server name must not contain "__"');

/**
 * A name as the user typed it ("My Notes", "GitHub-Issues") as a server name (my_notes, github_issues),
 * or null when nothing usable is left.
 */
export function normaliseServerName(typed: string): string | null {
  const cleaned = typed
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!cleaned) return null;
  const lettered = /^[a-z]/.test(cleaned) ? cleaned : `mcp_${cleaned}`;
  const cut = lettered.slice(0, 24).replace(/_+$/, '');
  return MCP_SERVER_NAME.test(cut) ? cut : null;
}

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const EnvName = z.string().regex(ENV_NAME, 'an environment variable name is letters, digits and _, not starting with a digit');

/** What is wrong with a URL for an MCP server, in words, or null. Line breaks and tabs are dropped first, as the URL parser drops them. */
export function mcpUrlProblem(s: string): string | null {
  const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)/i.exec(s.replace(/[\t\n\r]/g, ''))?.[1];
  if (port !== undefined && Number(port) > 65535) return `its port ${port.slice(0, 12)} is over 65535`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'is not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
  if (u.username || u.password) return 'must not hold a user name or password';
  return null;
}

/** An http(s) URL, read as the URL parser reads it (a stored URL with CR, LF or tabs in it loses them). */
const HttpUrl = z
  .string()
  .max(2000)
  .superRefine((s, ctx) => {
    const problem = mcpUrlProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((s) => new URL(s).href);

/**
 * A server that came from a restored backup or an imported file, which the user has not switched on
 * since: it starts a program, so it comes in off (core/data/backup.ts) and stays off until confirmed.
 */
const Unconfirmed = z.literal('restored').optional();

/** Switching a server on (`tidy mcp enable`, the window's switch) is the user's confirmation. */
function confirmedWhenOn<T extends { enabled: boolean; unconfirmed?: 'restored' | undefined }>(c: T): T {
  if (!c.enabled || c.unconfirmed === undefined) return c;
  const { unconfirmed: _, ...rest } = c;
  return rest as T;
}

/** One server: a command to start (stdio) or a URL (streamable HTTP); on or off. */
export const McpServerConfig = z.union([
  z.strictObject({
    command: z.string().min(1).max(1000),
    args: z.array(z.string().max(4000)).max(100).default([]),
    /** Exactly what the server's process gets besides PATH, HOME and the like; never Tidy's own secrets. */
    env: z.record(EnvName, z.string().max(10_000)).default({}),
    enabled: z.boolean().default(true),
    /** Starts that failed in a row; at MAX_START_FAILURES the server is switched off. */
    failures: z.number().int().min(0).max(1000).optional(),
    unconfirmed: Unconfirmed,
  }),
  z.strictObject({
    url: HttpUrl,
    enabled: z.boolean().default(true),
    failures: z.number().int().min(0).max(1000).optional(),
    unconfirmed: Unconfirmed,
  }),
]).transform(confirmedWhenOn);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** A server that failed to start this many runs in a row is switched off (one notice says so). */
export const MAX_START_FAILURES = 3;

/** At most this many servers: each one is a process or a connection at every run start. */
export const MAX_MCP_SERVERS = 20;

export const McpServers = z
  .record(McpServerName, McpServerConfig)
  .refine((r) => Object.keys(r).length <= MAX_MCP_SERVERS, `at most ${MAX_MCP_SERVERS} servers`);
export type McpServers = z.infer<typeof McpServers>;

/** Where a server lives, in words for a list: its command line or its URL. */
export function mcpTarget(c: McpServerConfig): string {
  return 'url' in c ? c.url : [c.command, ...c.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/**
 * A server's tool name as the model sees it: `<server>__<tool>`, the tool's name in lower_snake_case
 * (other characters become `_`), cut to fit 64 characters. Null when nothing usable is left.
 */
export function modelToolName(server: string, tool: string): string | null {
  const cleaned = tool
    .normalize('NFKD')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!cleaned) return null;
  const room = MAX_TOOL_NAME - server.length - MCP_SEPARATOR.length;
  const cut = cleaned.slice(0, room).replace(/_+$/, '');
  return cut ? `${server}${MCP_SEPARATOR}${cut}` : null;
}

/** What one of a server's tools looks like in Settings. */
export const McpToolInfo = z.object({
  /** The name the model sees (`<server>__<tool>`), and the key of its approval (`approvals.<name>`). */
  name: z.string(),
  /** The server's own name for it. */
  original: z.string(),
  description: z.string(),
  readOnly: z.boolean(),
});
export type McpToolInfo = z.infer<typeof McpToolInfo>;
