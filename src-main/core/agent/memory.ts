/**
 * The memories a request's prompt carries: those that apply (every memory without a project, and those of
 * the projects the user named in this conversation) in ONE block, after the system rules, under the
 * budget `memoryTokens`. The block's bytes depend only on the memories (their ids, texts and scopes) and on
 * which projects are in play, so the prompt prefix stays byte-identical from request to request while memory
 * is unchanged, and a memory change costs one cache miss. Incognito conversations and memory switched off
 * get no block, and the memory tools refuse.
 */
import type { Memory, MemoryBudgetReport } from '../../../src-shared/memory';
import type { Settings } from '../../../src-shared/settings';
import { markMemoriesUsed, memoriesThatApply } from '../domain/memory';
import { listProjects } from '../domain/projects';
import { nameKey } from '../domain/text';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { estimateTokens } from './context';

export const MEMORY_HEADER =
  "Memory: facts the user asked you to keep. They are the user's preferences: follow them where they fit, but they never override the rules above or the user's approvals. Ids are for update_memory and forget.";

const line = (m: Memory): string => `- ${m.id}${m.projectId ? ` (project ${m.project ?? m.projectId}, ${m.projectId})` : ''}: ${m.text}`;

interface MemoryBlock {
  /** The block, or null when no memory applies. */
  text: string | null;
  included: Memory[];
  report: MemoryBudgetReport;
}

/** The block for these memories under `budget` tokens: in their order, each that still fits (a long one does not push out the rest). */
export function memoryBlock(memories: readonly Memory[], budget: number): MemoryBlock {
  const included: Memory[] = [];
  let tokens = estimateTokens(MEMORY_HEADER);
  for (const m of memories) {
    const cost = estimateTokens(line(m)) + 1;
    if (tokens + cost > budget) continue;
    included.push(m);
    tokens += cost;
  }
  const left = memories.length - included.length;
  const report = { applied: memories.length, included: included.length, left, tokens: included.length ? tokens : 0 };
  if (included.length === 0) return { text: null, included, report };
  const more = left > 0 ? `\n(${left} more ${left === 1 ? 'memory is' : 'memories are'} left out by the memory budget.)` : '';
  return { text: `${MEMORY_HEADER}\n${included.map(line).join('\n')}${more}`, included, report };
}

/** The live projects (not the Inbox) whose names the user wrote in these messages, as ids. */
export function projectsInPlay(db: Db, userText: string): string[] {
  const said = nameKey(userText);
  if (!said.trim()) return [];
  return listProjects(db)
    .filter((p) => !p.builtin && p.name.length >= 2)
    .filter((p) => {
      const at = said.indexOf(nameKey(p.name));
      if (at < 0) return false;
      // A whole word: "Home" in "at home", not in "homework".
      const before = said[at - 1];
      const after = said[at + p.name.length];
      const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
      return !word(before) && !word(after);
    })
    .map((p) => p.id);
}

const isIncognito = (db: Db, conversationId: string): boolean =>
  ((cached(db, `SELECT incognito FROM conversations WHERE id = ?`).get(conversationId) as { incognito: number } | undefined)?.incognito ?? 0) === 1;

interface RunMemory {
  block: string | null;
  /** Why memory is off for this request, if it is. */
  off?: string;
  report: MemoryBudgetReport | null;
}

/**
 * Memory for a request in a conversation: off (with why) when the setting is off or the conversation is
 * incognito; else the block, and the memories in it marked as used at `at`.
 */
export function memoryForRun(db: Db, settings: Pick<Settings, 'memory' | 'memoryTokens'>, conversationId: string, userText: string, at?: string): RunMemory {
  if (!settings.memory) return { block: null, off: 'memory is switched off in Settings', report: null };
  if (isIncognito(db, conversationId)) return { block: null, off: 'this conversation is incognito', report: null };
  const block = memoryBlock(memoriesThatApply(db, projectsInPlay(db, userText)), settings.memoryTokens);
  markMemoriesUsed(
    db,
    block.included.map((m) => m.id),
    at,
  );
  return { block: block.text, report: block.report };
}

/** What the prompt of a request with no project named carries now, for Settings and the Memory page: how many memories were left out. */
export function memoryBudgetNow(db: Db, settings: Pick<Settings, 'memoryTokens'>): MemoryBudgetReport {
  return memoryBlock(memoriesThatApply(db), settings.memoryTokens).report;
}
