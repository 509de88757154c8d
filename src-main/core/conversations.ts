/**
 * Conversations as the UI handles them: rename one, export one (Markdown to read, JSON to keep) with its
 * runs and their traces. The agent's own store (agent/store.ts, agent/trace.ts) keeps and reads them.
 */
import type { AgentEvent, RunInfo } from '../../src-shared/events';
import type { Result } from '../../src-shared/result';
import { getConversation, loadMessages, type ConversationInfo } from './agent/conversations';
import { listRuns, readTrace } from './agent/trace';
import { cleanName } from './domain/text';
import { forgetMemory, listMemories } from './domain/memory';
import { newUserRequest } from './actions/log';
import { attempt, fail } from './fail';
import type { Db } from './store/db';
import { cached } from './store/statements';

type ExportFormat = 'markdown' | 'json';

interface ConversationExport {
  filename: string;
  mimeType: string;
  content: string;
}

const missing = (id: string) => fail(`no conversation with id ${id}`, 'list the conversations to see their ids');

export function renameConversation(db: Db, id: string, title: string): Result<ConversationInfo> {
  return attempt(() => {
    if (!getConversation(db, id)) missing(id);
    const clean = cleanName(title, 'conversation');
    cached(db, `UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?`).run(clean, new Date().toISOString(), id);
    return getConversation(db, id)!;
  });
}

/**
 * Moves a conversation out of the list, or back (`archived` false). Its runs, traces and messages stay;
 * `tidy ask` no longer continues it by default. The time it was active is kept, so it comes back in place.
 */
export function archiveConversation(db: Db, id: string, archived: boolean, options: { forgetMemories?: boolean } = {}): Result<ConversationInfo> {
  return attempt(() => {
    if (!getConversation(db, id)) missing(id);
    if (archived && options.forgetMemories) forgetConversationMemories(db, id);
    cached(db, `UPDATE conversations SET archived_at = ? WHERE id = ?`).run(archived ? new Date().toISOString() : null, id);
    return getConversation(db, id)!;
  });
}

/**
 * Forgets the live memories a conversation made (not ChatGPT's trap, where deleting a chat keeps them): each
 * one a logged change, all under one request by hand, so one undo brings them all back. Returns their ids.
 */
function forgetConversationMemories(db: Db, id: string): string[] {
  const memories = listMemories(db, { conversationId: id });
  if (memories.length === 0) return [];
  const ctx = newUserRequest(db);
  return memories.map((m) => {
    const r = forgetMemory(db, ctx, { memory: m.id });
    if (!r.ok) fail(r.error, r.hint);
    return m.id;
  });
}

/** Every run of a conversation, oldest first, with its trace. */
function runsOf(db: Db, id: string): { run: RunInfo; trace: AgentEvent[] }[] {
  return listRuns(db, { conversationId: id, limit: 100_000 })
    .reverse()
    .map((run) => ({ run, trace: readTrace(db, run.id) }));
}

const slug = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'conversation';

const when = (iso: string): string => iso.replace('T', ' ').slice(0, 16);
const json = (v: unknown): string => JSON.stringify(v ?? {});
/** Inline code that survives backticks in the text. */
const code = (s: string): string => {
  const flat = s.replace(/\s+/g, ' ');
  const ticks = '`'.repeat((flat.match(/`+/g) ?? []).reduce((m, t) => Math.max(m, t.length), 0) + 1);
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${flat}${ticks.length > 1 ? ' ' : ''}${ticks}`;
};

function traceLines(trace: AgentEvent[]): string[] {
  const lines: string[] = [];
  for (const e of trace) {
    if (e.type === 'tool_call') lines.push(`- ${code(`${e.tool} ${json(e.args)}`)}`);
    else if (e.type === 'tool_result' && !e.ok) lines.push(`  - failed: ${code(json(e.result))}`);
    else if (e.type === 'tool_result' && e.actionId) lines.push(`  - logged as action ${e.actionId}`);
    else if (e.type === 'approval_requested') lines.push(`- asked: ${e.message}`);
    else if (e.type === 'approval_resolved') lines.push(`  - ${e.decision === 'decline' ? 'declined' : 'approved'}`);
    else if (e.type === 'error') lines.push(`- ${e.fatal ? 'error' : 'note'}: ${e.message}`);
  }
  return lines;
}

function markdown(conversation: ConversationInfo, runs: { run: RunInfo; trace: AgentEvent[] }[]): string {
  const out = [`# ${conversation.title}`, '', `Exported from Tidy on ${when(new Date().toISOString())}; conversation ${conversation.id}, started ${when(conversation.createdAt)}.`];
  for (const { run, trace } of runs) {
    out.push('', `## You, ${when(run.startedAt)}`, '', run.request, '', '## Tidy', '');
    const steps = traceLines(trace);
    if (steps.length) out.push(...steps, '');
    if (run.answer) out.push(run.answer, '');
    const tail = run.status === 'done' ? '' : `: ${run.status}${run.message ? ` (${run.message})` : ''}`;
    out.push(`_Run ${run.id}${tail}; ${run.actions} action${run.actions === 1 ? '' : 's'}, ${run.usage.totalTokens} tokens, ${run.model}._`);
  }
  return `${out.join('\n')}\n`;
}

/** The conversation as a file: Markdown (what was asked, done and answered) or JSON (everything, for keeping). */
export function exportConversation(db: Db, id: string, format: ExportFormat): Result<ConversationExport> {
  return attempt(() => {
    const conversation = getConversation(db, id) ?? missing(id);
    const runs = runsOf(db, id);
    const base = `tidy-${id}-${slug(conversation.title)}`;
    if (format === 'markdown') return { filename: `${base}.md`, mimeType: 'text/markdown; charset=utf-8', content: markdown(conversation, runs) };
    const document = {
      format: 'tidy-conversation',
      version: 1,
      exportedAt: new Date().toISOString(),
      conversation,
      runs: runs.map(({ run, trace }) => ({ ...run, trace })),
      messages: loadMessages(db, id, 1_000_000),
    };
    return { filename: `${base}.json`, mimeType: 'application/json', content: `${JSON.stringify(document, null, 2)}\n` };
  });
}
