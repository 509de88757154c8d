/**
 * What the agent did, in words: ids replaced by the names the user knows (task content, project and list
 * names), tool results as short sentences, a request's changes as one line ("Created 3 projects · moved
 * 9 tasks"). The names come from what the UI already has: the run's own tool results and the loaded views.
 */
import { changesInWords, verbWord, VERB_WORDS, type ActionVerb } from '../../src-shared/actions';
import { KINDS, kindOfWord, type EntityKind } from '../../src-shared/entities';
import { asWritten } from '../../src-shared/written';
import { argLabel, count } from './format';
import { dateTimeText, dueDateText } from './when';

export { asWritten, changesInWords };

/** Id → the name the user knows it by. */
export type Names = ReadonlyMap<string, string>;

const LABEL_KEYS = ['content', 'name', 'title', 'text'] as const;
/** A tool result can be large (a page of 500 tasks); the walk stops after this many values. */
const MAX_WALK = 20_000;
const MAX_DEPTH = 8;

/** Adds the name of every `{id, content|name|title|text}` object found in `values` (nested too) to `into`. */
export function collectNames(values: readonly unknown[], into: Map<string, string> = new Map()): Map<string, string> {
  let budget = MAX_WALK;
  const walk = (v: unknown, depth: number): void => {
    if (budget-- <= 0 || depth > MAX_DEPTH || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o['id'] === 'string') {
      const key = LABEL_KEYS.find((k) => typeof o[k] === 'string' && (o[k] as string).trim() !== '');
      if (key) into.set(o['id'], o[key] as string);
    }
    for (const x of Object.values(o)) if (x !== null && typeof x === 'object') walk(x, depth + 1);
  };
  for (const v of values) walk(v, 0);
  return into;
}

const MAX_LIST = 3;
const MAX_TEXT = 120;

const clip = (s: string, n = MAX_TEXT): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A value in words, with known ids named. */
export function valueInWords(value: unknown, names: Names, depth = 0): string {
  if (typeof value === 'string') return names.has(value) ? asWritten(names.get(value)!) : dateInWords(value) ?? clip(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return value.toLocaleString();
  if (value === null || value === undefined) return '—';
  if (depth > 2) return '…';
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_LIST).map((v) => valueInWords(v, names, depth + 1));
    return value.length > MAX_LIST ? `${shown.join('; ')} and ${value.length - MAX_LIST} more` : shown.join('; ');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const named = typeof (value as { id?: unknown }).id === 'string' ? names.get((value as { id: string }).id) : undefined;
  if (named) return asWritten(named);
  return clip(entries.map(([k, v]) => `${argLabel(k)} ${valueInWords(v, names, depth + 1)}`).join(', '));
}

/** A value that is wholly a date, a due or an instant (`2026-11-30T14:00:00+00:00`), in the display locale; null otherwise. */
function dateInWords(value: string): string | null {
  if (/^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?$/.test(value)) {
    const shown = dueDateText(value);
    return shown === value ? null : shown;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value)) return dateTimeText(value) || null;
  return null;
}

/** Tool arguments as label/value pairs in words (an empty list for none). */
export function argsInWords(args: unknown, names: Names): [string, string][] {
  if (args === undefined) return [];
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [['value', valueInWords(args, names)]];
  return Object.entries(args as Record<string, unknown>).map(([k, v]) => [argLabel(k), valueInWords(v, names)]);
}

/**
 * The kind of thing a tool is about, from the words of its name (add_list_item → item, move_tasks → task,
 * list_tasks → task): the last word that names a kind in src-shared/entities.ts. Null: no kind (calculate).
 */
function kindOfTool(tool: string): EntityKind | null {
  const words = tool.split('_');
  for (let i = words.length - 1; i >= 0; i--) {
    const kind = kindOfWord(words[i]!);
    if (kind) return kind;
  }
  return null;
}

const isVerb = (word: string): word is ActionVerb => Object.hasOwn(VERB_WORDS, word);

/** A noun and its plural: a kind's from src-shared/entities.ts, else the result's own word ("slots"). */
type Noun = readonly [one: string, many: string];
const nounOfKind = (kind: EntityKind | null): Noun => (kind ? [KINDS[kind].noun, KINDS[kind].plural] : ['item', 'items']);
const nounOfKey = (key: string): Noun => {
  const kind = kindOfWord(key);
  return kind ? nounOfKind(kind) : [key.replace(/s$/, ''), key.endsWith('s') ? key : `${key}s`];
};

/** A list of named things in short: "9 tasks: Bake the cake; Buy milk; … and 6 more"; with a verb, "Moved 3 tasks: …". */
function listInWords(rows: unknown[], noun: Noun, total: number | null, names: Names, verb?: ActionVerb): string {
  const labels = rows.map((r) => valueInWords(r, names));
  const n = total ?? rows.length;
  const head = `${verb ? `${verbWord(verb)} ` : ''}${count(n, noun[0], noun[1])}`;
  if (rows.length === 0) return verb ? head : `no ${noun[1]}`;
  const shown = labels.slice(0, MAX_LIST).join('; ');
  const more = n - Math.min(rows.length, MAX_LIST);
  return `${head}: ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}

/** A tool's result as a short sentence, with names for ids. */
export function resultInWords(tool: string, result: unknown, names: Names): string {
  if (Array.isArray(result)) return listInWords(result, nounOfKind(kindOfTool(tool)), null, names);
  if (result && typeof result === 'object') {
    const o = result as Record<string, unknown>;
    if (typeof o['error'] === 'string') return o['error'];
    const list = Object.entries(o).find(([, v]) => Array.isArray(v));
    if (list) {
      const [key, rows] = list as [string, unknown[]];
      const total = typeof o['total'] === 'number' ? o['total'] : null;
      // {moved: [...]} of move_tasks: "Moved 3 tasks: …"; {tasks: [...]}: "3 tasks: …"; {items|results}: the tool's kind
      if (isVerb(key)) return listInWords(rows, nounOfKind(kindOfTool(tool)), total, names, key);
      const noun = key === 'items' || key === 'results' ? nounOfKind(kindOfTool(tool)) : nounOfKey(key);
      return listInWords(rows, noun, total, names);
    }
    const label = LABEL_KEYS.map((k) => o[k]).find((v): v is string => typeof v === 'string');
    if (label) {
      const where = typeof o['project'] === 'string' ? ` in ${asWritten(o['project'])}` : '';
      return `${o['ok'] === true ? 'Done: ' : ''}${clip(asWritten(label))}${where}`;
    }
    if (o['ok'] === true) return 'Done';
  }
  return valueInWords(result, names);
}
