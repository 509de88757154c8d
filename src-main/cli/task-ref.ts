import type { Db } from '../core/store/db';
import { CliFailure, usage } from './context';

interface Candidate {
  id: string;
  content: string;
  status: string;
  project: string;
}

/** At most this many candidates are named when text matches several tasks. */
const MAX_SHOWN = 8;
/** Longer text cannot be a task's words typed on a command line; refused before any search. */
const MAX_REF = 2000;

const fold = (s: string): string => s.normalize('NFKC').toLocaleLowerCase().replace(/\s+/g, ' ').trim();
const clip = (s: string, n = 60): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * A `<TASK>` on the command line: a task id (t12), or text that picks out exactly one task. Exact text
 * (case and spacing aside) wins over a part of the text; tasks in the wanted state (open, or done and
 * archived for `reopen`) win over the others. Several equally good matches are refused with the
 * candidates and their ids (exit 2); no match is refused with how to find the id (exit 1).
 */
export function resolveTaskRef(db: Db, ref: string, want: 'open' | 'closed' = 'open'): string {
  const raw = String(ref ?? '');
  const text = fold(raw);
  if (text === '') throw usage('say which task: an id or some of its text', 'e.g. tidy done t12, tidy done "Buy milk"');
  if (raw.length > MAX_REF) throw usage(`a task is an id or some of its text, not ${raw.length} characters`, 'give the task id (tidy tasks shows them)');
  if (/^t\d+(\.[0-9a-f]{6})?$/.test(text)) {
    const byId = db.prepare(`SELECT id FROM tasks WHERE id = ?`).get(text) as { id: string } | undefined;
    if (byId) return byId.id;
  }
  const all = db.prepare(`SELECT t.id, t.content, t.status, p.name AS project FROM tasks t JOIN projects p ON p.id = t.project_id ORDER BY t.rowid`).all() as Candidate[];
  const wanted = (c: Candidate): boolean => (want === 'open' ? c.status === 'open' : c.status !== 'open');
  const exact = all.filter((c) => fold(c.content) === text);
  const partial = all.filter((c) => fold(c.content).includes(text));
  for (const tier of [exact.filter(wanted), exact, partial.filter(wanted), partial]) {
    if (tier.length === 1) return tier[0]!.id;
    if (tier.length > 1) {
      const shown = tier.slice(0, MAX_SHOWN).map((c) => `${c.id} ${JSON.stringify(clip(c.content))} [${c.project}]${c.status !== 'open' ? ` (${c.status})` : ''}`);
      const more = tier.length - shown.length;
      throw usage(`${JSON.stringify(clip(raw))} matches ${tier.length} tasks: ${shown.join(', ')}${more ? ` and ${more} more` : ''}`, 'give the id, or more of the text');
    }
  }
  throw new CliFailure(`no task with id or text ${JSON.stringify(clip(raw))}`, 'run `tidy tasks --all` or `tidy search <words>` to find it');
}
