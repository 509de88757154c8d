/** Conversations as the agent keeps them between requests: conversations, their messages (as the model saw them), and the protocol found per model. */
import { WireProtocol } from '../../../src-shared/events';
import type { ChatMessage, ToolCall } from '../llm/port';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';

export interface ConversationInfo {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** When it was archived; null for a live one. */
  archivedAt: string | null;
  /** Present (true) only for an incognito conversation: it neither reads nor writes memory. */
  incognito?: true;
}

const COLUMNS = 'id, title, created_at AS createdAt, updated_at AS updatedAt, archived_at AS archivedAt, incognito';

const toInfo = (row: Omit<ConversationInfo, 'incognito'> & { incognito: number }): ConversationInfo => {
  const { incognito, ...info } = row;
  return incognito === 1 ? { ...info, incognito: true } : info;
};

export function createConversation(db: Db, firstMessage: string, options: { incognito?: boolean } = {}): string {
  const id = nextId(db, 'c');
  const now = new Date().toISOString();
  const title = firstMessage.replace(/\s+/g, ' ').trim().slice(0, 80);
  cached(db, `INSERT INTO conversations (id, title, created_at, updated_at, incognito) VALUES (?, ?, ?, ?, ?)`).run(id, title, now, now, options.incognito ? 1 : 0);
  return id;
}

export function getConversation(db: Db, id: string): ConversationInfo | null {
  const row = cached(db, `SELECT ${COLUMNS} FROM conversations WHERE id = ?`).get(id) as Parameters<typeof toInfo>[0] | undefined;
  return row ? toInfo(row) : null;
}

/** Conversations, the most recently active first: the live ones, or only the archived ones. */
export function listConversations(db: Db, limit = 100, archived = false): ConversationInfo[] {
  return (cached(
    db,
    `SELECT ${COLUMNS} FROM conversations WHERE archived_at IS ${archived ? 'NOT NULL' : 'NULL'} ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
  ).all(limit) as Parameters<typeof toInfo>[0][]).map(toInfo);
}

/** The conversation the user talked in last, to continue it by default. */
export function latestConversation(db: Db): string | null {
  return listConversations(db, 1)[0]?.id ?? null;
}

interface MessageRow {
  created_at: string;
  role: 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
}

function toMessage(r: MessageRow): ChatMessage {
  if (r.role === 'tool') return { role: 'tool', toolCallId: r.tool_call_id ?? '', content: r.content ?? '' };
  if (r.role === 'user') return { role: 'user', content: r.content ?? '', at: r.created_at };
  return r.tool_calls ? { role: 'assistant', content: r.content, toolCalls: JSON.parse(r.tool_calls) as ToolCall[] } : { role: 'assistant', content: r.content };
}

/** The last `limit` messages of a conversation, oldest first. */
export function loadMessages(db: Db, conversationId: string, limit = 1000): ChatMessage[] {
  const rows = cached(
    db,
    `SELECT * FROM (SELECT seq, role, content, tool_calls, tool_call_id, created_at FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
  ).all(conversationId, limit) as MessageRow[];
  return rows.map(toMessage);
}

/** Appends messages (one request, or one finished step of a run) in one transaction. */
export function appendMessages(db: Db, conversationId: string, runId: string, messages: readonly ChatMessage[]): void {
  const insert = cached(
    db,
    `INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const m of messages) {
      if (m.role === 'system') continue; // the system prompt is made afresh for every run, never stored
      const toolCalls = m.role === 'assistant' && m.toolCalls?.length ? JSON.stringify(m.toolCalls) : null;
      // A request keeps the time it was written: its date line is then the same in every later run (cache-stable).
      insert.run(nextId(db, 'x'), conversationId, runId, m.role, m.content, toolCalls, m.role === 'tool' ? m.toolCallId : null, m.role === 'user' && m.at ? m.at : now);
    }
    cached(db, `UPDATE conversations SET updated_at = ? WHERE id = ?`).run(now, conversationId);
  }).immediate();
}

export interface Endpoint {
  baseUrl: string;
  model: string;
}

/** The protocol the `auto` setting settled on for this endpoint and model, if it had to choose. */
export function rememberedProtocol(db: Db, e: Endpoint): WireProtocol | null {
  const row = cached(db, `SELECT protocol FROM model_protocols WHERE base_url = ? AND model = ?`).get(e.baseUrl, e.model) as { protocol: string } | undefined;
  const parsed = WireProtocol.safeParse(row?.protocol);
  return parsed.success ? parsed.data : null;
}

export function rememberProtocol(db: Db, e: Endpoint, protocol: WireProtocol, reason: string): void {
  cached(
    db,
    `INSERT INTO model_protocols (base_url, model, protocol, reason, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(base_url, model) DO UPDATE SET protocol = excluded.protocol, reason = excluded.reason, updated_at = excluded.updated_at`,
  ).run(e.baseUrl, e.model, protocol, reason, new Date().toISOString());
}
