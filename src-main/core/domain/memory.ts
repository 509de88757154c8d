/**
 * Memories (schema 13): short facts the user keeps for the agent, each for every request (no project) or
 * for one project's. Every change is a logged, undoable operation (`remember`, `update_memory`, `forget` —
 * forgetting archives); reads are plain functions. Where a memory came from is kept: the conversation and
 * the request that made it, or neither when the user wrote it by hand.
 *
 * When a memory was last put in a prompt lives in `memory_uses`, not in the row: the action log compares
 * whole rows, and a memory being read must not block undoing its last edit.
 */
import { MAX_MEMORY_CHARS, type Memory } from '../../../src-shared/memory';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { implement, implementWith } from './operation';
import { resolveLiveProject } from './projects';
import { hasVisibleText, now, quote } from './text';

/** At most this many live memories: the Memory page and the budget stay readable; forget some first. */
export const MAX_MEMORIES = 1_000;

interface MemoryRow {
  id: string;
  text: string;
  project_id: string | null;
  project: string | null;
  conversation_id: string | null;
  run_id: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  archived_at: string | null;
}

const SELECT = `SELECT m.*, p.name AS project, u.last_used_at FROM memories m
  LEFT JOIN projects p ON p.id = m.project_id LEFT JOIN memory_uses u ON u.memory_id = m.id`;

const toMemory = (r: MemoryRow): Memory => ({
  id: r.id,
  text: r.text,
  projectId: r.project_id,
  project: r.project,
  conversationId: r.conversation_id,
  runId: r.run_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastUsedAt: r.last_used_at,
  archivedAt: r.archived_at,
});

export interface MemoryQuery {
  /** Forgotten ones too (after the live ones). */
  includeArchived?: boolean;
  /** Only those whose text holds these words (case-insensitive, each word anywhere). */
  query?: string;
  /** Only those made in this conversation. */
  conversationId?: string;
  limit?: number;
}

/** Memories, oldest first (the order the prompt carries them), live ones before forgotten ones. */
export function listMemories(db: Db, q: MemoryQuery = {}): Memory[] {
  const rows = cached(
    db,
    `${SELECT} WHERE (? OR m.archived_at IS NULL) AND (? IS NULL OR m.conversation_id = ?)
      ORDER BY m.archived_at IS NOT NULL, m.created_at, m.rowid LIMIT ?`,
  ).all(q.includeArchived ? 1 : 0, q.conversationId ?? null, q.conversationId ?? null, Math.max(0, Math.min(q.limit ?? 10_000, 10_000))) as MemoryRow[];
  const words = (q.query ?? '').toLowerCase().split(/\s+/).filter(Boolean).slice(0, 32);
  const found = words.length ? rows.filter((r) => words.every((w) => r.text.toLowerCase().includes(w) || (r.project ?? '').toLowerCase().includes(w))) : rows;
  return found.map(toMemory);
}

/** A memory by id; fails with a hint when there is none. */
export function getMemory(db: Db, ref: string): Memory {
  const id = String(ref ?? '').trim().toLowerCase();
  const row = cached(db, `${SELECT} WHERE m.id = ?`).get(id) as MemoryRow | undefined;
  if (!row) fail(`no memory with id ${quote(String(ref ?? ''))}`, 'list the memories (tidy memory list, or the Memory page) to see their ids');
  return toMemory(row);
}

/** The live memories that apply to requests about these projects: every memory without a project, and those of the projects given. */
export function memoriesThatApply(db: Db, projectIds: readonly string[] = []): Memory[] {
  const rows = cached(db, `${SELECT} WHERE m.archived_at IS NULL AND (m.project_id IS NULL OR m.project_id IN (SELECT value FROM json_each(?))) ORDER BY m.created_at, m.rowid`).all(
    JSON.stringify(projectIds),
  ) as MemoryRow[];
  return rows.map(toMemory);
}

/** Notes that these memories were put in a prompt (not a logged change: reading changes nothing the user made). */
export function markMemoriesUsed(db: Db, ids: readonly string[], at: string = now()): void {
  if (ids.length === 0) return;
  const put = cached(db, `INSERT INTO memory_uses (memory_id, last_used_at) VALUES (?, ?) ON CONFLICT(memory_id) DO UPDATE SET last_used_at = excluded.last_used_at`);
  db.transaction(() => {
    for (const id of ids) put.run(id, at);
  })();
}

/** A memory's text: one line (white space folded), something that shows, at most MAX_MEMORY_CHARS. */
export function cleanMemoryText(raw: unknown): string {
  const text = String(raw ?? '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || !hasVisibleText(text)) fail('the memory is empty', 'write the fact to remember, e.g. "groceries go to Errands"');
  if (text.length > MAX_MEMORY_CHARS) fail(`the memory is ${text.length} characters long`, `keep it to one short fact of at most ${MAX_MEMORY_CHARS} characters`);
  return text;
}

/** The project a scope names: none, null, '' or "everywhere" is everywhere (null); else a live project by id or name. */
function scopeOf(db: Db, project: string | null | undefined): string | null {
  const ref = (project ?? '').trim();
  if (ref === '' || ref.toLowerCase() === 'everywhere') return null;
  return resolveLiveProject(db, ref).id;
}

function assertNotRemembered(db: Db, text: string, projectId: string | null, exceptId?: string): void {
  const same = cached(db, `SELECT id FROM memories WHERE archived_at IS NULL AND lower(text) = lower(?) AND project_id IS ? AND id IS NOT ?`).get(text, projectId, exceptId ?? null) as
    | { id: string }
    | undefined;
  if (same) fail(`that is already remembered as ${same.id}`, 'nothing to change; edit that memory instead of adding another');
}

const where = (projectName: string | null): string => (projectName ? ` for ${projectName}` : '');

/** Where a memory came from (the agent's `remember`): the conversation and the run. By hand, it is the user's. */
export interface MemorySource {
  conversationId: string | null;
  runId: string | null;
}

export const addMemory = implementWith<{ from?: MemorySource }>()('memory.add', (cs, input, db) => {
  const text = cleanMemoryText(input.text);
  const projectId = scopeOf(db, input.project);
  assertNotRemembered(db, text, projectId);
  const live = (cached(db, `SELECT count(*) AS n FROM memories WHERE archived_at IS NULL`).get() as { n: number }).n;
  if (live >= MAX_MEMORIES) fail(`there are already ${MAX_MEMORIES} memories`, 'forget some that no longer hold first');
  const t = now();
  const row = cs.insert('memories', {
    id: nextId(db, 'y'),
    text,
    project_id: projectId,
    conversation_id: input.from?.conversationId ?? null,
    run_id: input.from?.runId ?? null,
    created_at: t,
    updated_at: t,
    archived_at: null,
  });
  const memory = getMemory(db, String(row['id']));
  return { value: memory, summary: `Remembered ${quote(text)}${where(memory.project)}` };
});

export const updateMemory = implement('memory.update', (cs, input, db) => {
  const memory = getMemory(db, input.memory);
  if (memory.archivedAt) fail(`memory ${memory.id} is forgotten`, 'undo its forgetting first, or remember the fact anew');
  const text = input.text === undefined ? memory.text : cleanMemoryText(input.text);
  const projectId = input.project === undefined ? memory.projectId : scopeOf(db, input.project);
  if (text === memory.text && projectId === memory.projectId) fail(`memory ${memory.id} already says that`, 'nothing to change');
  assertNotRemembered(db, text, projectId, memory.id);
  cs.update('memories', memory.id, { text, project_id: projectId, updated_at: now() });
  const after = getMemory(db, memory.id);
  const summary =
    text === memory.text ? `Changed where ${quote(text)} applies: ${after.project ?? 'everywhere'}` : `Changed memory ${quote(memory.text)} to ${quote(text)}`;
  return { value: after, summary };
});

export const forgetMemory = implement('memory.forget', (cs, input, db) => {
  const memory = getMemory(db, input.memory);
  if (memory.archivedAt) fail(`memory ${memory.id} is already forgotten`, 'nothing to change');
  cs.update('memories', memory.id, { archived_at: now(), updated_at: now() });
  return { value: getMemory(db, memory.id), summary: `Forgot ${quote(memory.text)}` };
});

export const MEMORY_OPERATIONS = [addMemory, updateMemory, forgetMemory];
