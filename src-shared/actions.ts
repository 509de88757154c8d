/**
 * What an action did, as data, and every sentence Tidy makes of it: the action log's entries carry
 * `what` ({verb, kind, id, name, count, reverses}); the renderer, the CLI and the MCP server word it with
 * the functions below, so no code reads meaning out of a summary. Summaries stay, for display only (the
 * entries of older versions have nothing else). Nouns and plurals come from src-shared/entities.ts.
 */
import { z } from 'zod';
import { countOf, EntityKind } from './entities';

/** Every verb of the action log, with the word for it. */
export const VERB_WORDS = {
  added: 'Added',
  updated: 'Updated',
  moved: 'Moved',
  snoozed: 'Snoozed',
  completed: 'Completed',
  reopened: 'Reopened',
  archived: 'Archived',
  unarchived: 'Unarchived',
  created: 'Created',
  made: 'Made',
  renamed: 'Renamed',
  changed: 'Changed',
  checked: 'Checked',
  unchecked: 'Unchecked',
  booked: 'Booked',
  /** Blocks of time for tasks (a plan). */
  planned: 'Planned',
  cancelled: 'Cancelled',
  imported: 'Imported',
  reimported: 'Re-imported',
  removed: 'Removed',
  saved: 'Saved',
  remembered: 'Remembered',
  forgot: 'Forgot',
  /** A tool of an MCP server: it happened outside Tidy. */
  ran: 'Ran',
  undid: 'Undid',
  redid: 'Redid',
} as const;

export type ActionVerb = keyof typeof VERB_WORDS;
export const ActionVerb = z.enum(Object.keys(VERB_WORDS) as [ActionVerb, ...ActionVerb[]]);

/** What one action did. */
export const ActionWhat = z.object({
  verb: ActionVerb,
  /** The kind of thing it touched (null: a tool outside Tidy). For an undo or a redo, the reversed action's. */
  kind: EntityKind.nullable(),
  /** The thing's id and name as they were then (a task's content, a project's name). */
  id: z.string().nullable(),
  name: z.string().nullable(),
  /** How many things of that kind (an import of a file: one calendar). */
  count: z.number().int().min(0),
  /** For an undo or a redo: the id of the action it reversed. */
  reverses: z.string().nullable(),
});
export type ActionWhat = z.infer<typeof ActionWhat>;

/** The verb in words: "Moved". */
export const verbWord = (verb: ActionVerb): string => VERB_WORDS[verb];

/** Reversing an action: an undo, or (reversing an undo) a redo. */
export function reversalOf(reversed: ActionWhat): 'undid' | 'redid' {
  return reversed.verb === 'undid' ? 'redid' : 'undid';
}

/** The summary the log keeps for an undo or a redo: "Undid: Moved 'x' to Home" (the original's summary). */
export function reversalSummary(verb: 'undid' | 'redid', original: string): string {
  return `${verbWord(verb)}: ${original}`;
}

/**
 * A request's changes in one line, by what was done to what, in the order first done:
 * "Created 3 projects · moved 9 tasks".
 */
export function changesInWords(entries: readonly { what: ActionWhat }[]): string {
  const groups = new Map<string, { verb: ActionVerb; kind: EntityKind | null; n: number }>();
  for (const { what } of entries) {
    const key = `${what.verb} ${what.kind ?? ''}`;
    const g = groups.get(key);
    if (g) g.n += what.count;
    else groups.set(key, { verb: what.verb, kind: what.kind, n: what.count });
  }
  const text = [...groups.values()].map((g) => `${verbWord(g.verb).toLowerCase()} ${countOf(g.n, g.kind)}`).join(' · ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A reversed action as an undo report lists it: its id, summary and what it did, and the summary of the change it is about. */
export interface ReversedAction {
  id: string;
  summary: string;
  what: ActionWhat;
  /** The change this undo or redo is about (the first of the chain): what "Undid: …" names. */
  subject: string;
}

/** What an undo or redo did, for the status region: "Undid: …", "Redid: …", "Redid 12 changes". */
export function reportWords(report: { reversed: readonly Pick<ReversedAction, 'what' | 'subject'>[] }): string {
  const redone = report.reversed.filter((r) => reversalOf(r.what) === 'redid').length;
  const undone = report.reversed.length - redone;
  // A redo with cascade first undoes the later changes that blocked it: both are said.
  if (redone > 0 && undone > 0) return `Undid ${countOf(undone, null)} and redid ${countOf(redone, null)}`;
  const verb = redone > 0 ? 'redid' : 'undid';
  if (report.reversed.length === 1) return reversalSummary(verb, report.reversed[0]!.subject);
  return `${verbWord(verb)} ${report.reversed.length} changes`;
}

/** One line of `tidy undo`: "Undid a12: Moved 'x' to Home (undo a14 to redo)". */
export function reversedLine(r: Pick<ReversedAction, 'id' | 'summary'>, created: string | undefined): string {
  return `${verbWord('undid')} ${r.id}: ${r.summary} (undo ${created} to redo)`;
}

/** How many changes an undo reversed, for a log line: "undid 3 changes". */
export const undoCountWords = (n: number): string => `${verbWord('undid').toLowerCase()} ${countOf(n, null)}`;

/** The `what` of an entry written before actions carried one and not readable now: a change, said by its summary. */
export const UNKNOWN_WHAT: ActionWhat = { verb: 'changed', kind: null, id: null, name: null, count: 1, reverses: null };
