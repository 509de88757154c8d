/** MCP client sessions as requests of the action log: each named after its client (e.g. "Claude Desktop"). */
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';

/** The client as it named itself (clientInfo), used to name its session's request. */
export interface ClientId {
  name: string;
  version?: string;
}

/** Name of a new session request, e.g. "Claude Desktop" (a client that names itself nothing is "an MCP client"). */
export function clientName(c: ClientId | undefined): string {
  const name = (c?.name ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim().slice(0, 80);
  return name || 'an MCP client';
}

/** Registers a session request in `mcp_sessions` so the action log can name it after the client. */
export function startSessionRequest(db: Db, client: ClientId | undefined, now = new Date()): ActionContext {
  const id = nextId(db, 'm');
  cached(db, `INSERT INTO mcp_sessions (id, client_name, client_version, started_at) VALUES (?, ?, ?, ?)`).run(
    id,
    clientName(client),
    client?.version?.slice(0, 40) ?? null,
    now.toISOString(),
  );
  return { requestId: id, source: 'mcp' };
}

/** The client's name for a session request, for the action log (null for another kind of request). */
export function sessionClient(db: Db, requestId: string): string | null {
  const row = cached(db, `SELECT client_name FROM mcp_sessions WHERE id = ?`).get(requestId) as { client_name: string } | undefined;
  return row?.client_name ?? null;
}

