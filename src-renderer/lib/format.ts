/** Small formatting helpers: times, durations, tool names and arguments in words. */

/** The clock today, a date and the clock before: in the user's locale (src-renderer/lib/when.ts). */
export { shortTime } from './when';

/** 850 ms, 4.2 s, 2 min 05 s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${min} min ${String(s).padStart(2, '0')} s`;
}

export const count = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** move_task → "Move task". */
export function toolLabel(tool: string): string {
  const words = tool.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** task_id → "task", project_id → "project", item_id → "item". */
export function argLabel(key: string): string {
  return key.replace(/_id$/, '').replace(/_/g, ' ');
}

/** An argument value as a short phrase. */
function argValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined) return '—';
  return JSON.stringify(value);
}

/** The arguments of a tool call as label/value pairs (an empty list for no arguments). */
export function argPairs(args: unknown): [string, string][] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args === undefined ? [] : [['value', argValue(args)]];
  return Object.entries(args as Record<string, unknown>).map(([k, v]) => [argLabel(k), argValue(v)]);
}

/** JSON as the trace shows it: pretty, and whether it is long enough to collapse. */
export function prettyJson(value: unknown): { text: string; long: boolean } {
  let text: string;
  try {
    if (typeof value === 'string') text = value;
    else {
      // Short values stay on one line; longer ones are indented to be read.
      const compact = JSON.stringify(value) ?? String(value);
      text = compact.length <= 100 ? compact : (JSON.stringify(value, null, 2) ?? compact);
    }
  } catch {
    text = String(value);
  }
  return { text, long: text.length > 280 || text.split('\n').length > 8 };
}

/** A one-line gist of a tool result, for the collapsed view. */
export function resultGist(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('items' in o && Array.isArray(o['items'])) {
      const total = typeof o['total'] === 'number' ? ` of ${o['total']}` : '';
      return `${o['items'].length}${total} items`;
    }
    if (typeof o['error'] === 'string') return o['error'];
    if (typeof o['name'] === 'string') return `${o['name']}`;
    if (typeof o['content'] === 'string') return `${o['content']}`;
    if (o['ok'] === true) return 'ok';
  }
  const { text } = prettyJson(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export const tokens = (n: number): string => `${n.toLocaleString()} tokens`;
