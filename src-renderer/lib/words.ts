/**
 * What the agent did, in words: ids replaced by the names the user knows (task content, project and list
 * names), tool results as short sentences, a request's changes as one line ("Created 3 projects · moved
 * 9 tasks"). The names come from what the UI already has: the run's own tool results and the loaded views.
 */
import type { ActionEntry } from '../../src-shared/domain';
import { asWritten } from '../../src-shared/written';
import { argLabel, count } from './format';

export { asWritten };

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
  if (typeof value === 'string') return names.has(value) ? asWritten(names.get(value)!) : clip(value);
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

/** Tool arguments as label/value pairs in words (an empty list for none). */
export function argsInWords(args: unknown, names: Names): [string, string][] {
  if (args === undefined) return [];
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [['value', valueInWords(args, names)]];
  return Object.entries(args as Record<string, unknown>).map(([k, v]) => [argLabel(k), valueInWords(v, names)]);
}

/** The thing a tool or an action is about, from its name: add_list_item → item, move_task → task. */
export function nounOf(tool: string): string {
  for (const noun of ['item', 'task', 'project', 'list', 'event', 'conversation']) if (tool.includes(noun)) return noun;
  return 'change';
}

/** A list of named things in short: "9 tasks: Bake the cake; Buy milk; … and 6 more". */
function listInWords(rows: unknown[], noun: string, total: number | null, names: Names): string {
  const labels = rows.map((r) => valueInWords(r, names));
  const head = count(total ?? rows.length, noun);
  if (rows.length === 0) return `no ${noun}s`;
  const shown = labels.slice(0, MAX_LIST).join('; ');
  const more = (total ?? rows.length) - Math.min(rows.length, MAX_LIST);
  return `${head}: ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}

/** A tool's result as a short sentence, with names for ids. */
export function resultInWords(tool: string, result: unknown, names: Names): string {
  if (Array.isArray(result)) return listInWords(result, nounOf(tool), null, names);
  if (result && typeof result === 'object') {
    const o = result as Record<string, unknown>;
    if (typeof o['error'] === 'string') return o['error'];
    const list = Object.entries(o).find(([, v]) => Array.isArray(v));
    if (list) {
      const [key, rows] = list as [string, unknown[]];
      const noun = key === 'items' || key === 'results' ? nounOf(tool) : key.replace(/s$/, '');
      return listInWords(rows, noun === 'change' ? 'item' : noun, typeof o['total'] === 'number' ? o['total'] : null, names);
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

const plural = (noun: string, n: number): string => (n === 1 ? noun : `${noun}s`);

/**
 * A request's changes in one line, by what was done to what, in the order first done:
 * "Created 3 projects · moved 9 tasks". The verb is the first word of each action's summary
 * (src-main/core/domain writes them: "Created project 'X'", "Moved 'Y' to X").
 */
export function changesInWords(entries: readonly Pick<ActionEntry, 'tool' | 'summary'>[]): string {
  const groups = new Map<string, { verb: string; noun: string; n: number }>();
  for (const e of entries) {
    const verb = (/^\S+/.exec(e.summary)?.[0] ?? 'Changed').toLowerCase();
    const noun = nounOf(e.tool);
    const key = `${verb} ${noun}`;
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { verb, noun, n: 1 });
  }
  const text = [...groups.values()].map((g) => `${g.verb} ${g.n.toLocaleString()} ${plural(g.noun, g.n)}`).join(' · ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
