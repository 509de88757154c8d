/**
 * The approval card's event form, as data: from the fields the user sees to the arguments the tool runs
 * with. Pure, so it is tested alone. Only what the user actually changed differs from the model's
 * arguments (a time shown and left alone keeps the model's exact text), so approving an untouched form
 * sends no edits at all.
 */
import { localInputToIso, parseEventTime, toLocalInput } from './layout';

/** What the form shows: text of each field (times as datetime-local values, attendees comma-separated). */
export interface EventFields {
  title: string;
  start: string;
  end: string;
  attendees: string;
}

type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

export interface EditedArgs {
  /** The arguments to send, or null when nothing was changed. */
  args: Record<string, JsonValue> | null;
  /** Why the edits cannot be sent (one line, what to fix), or null. */
  problem: string | null;
}

const splitPeople = (text: string): string[] =>
  text
    .split(/[,;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The model's time as the form shows it ('' when unreadable). */
const shown = (v: unknown): string => {
  const t = typeof v === 'string' ? parseEventTime(v) : NaN;
  return Number.isFinite(t) ? toLocalInput(t) : '';
};

/** The form's fields for the model's arguments. */
export function fieldsFromArgs(args: Record<string, unknown>): EventFields {
  return {
    title: typeof args['title'] === 'string' ? args['title'] : '',
    start: shown(args['start']),
    end: shown(args['end']),
    attendees: Array.isArray(args['attendees']) ? args['attendees'].filter((a) => typeof a === 'string').join(', ') : '',
  };
}

/** The edited arguments of `tool` (book_event: title, start, end, attendees; move_event: start, end). */
export function editedArgs(tool: string, original: Record<string, unknown>, fields: EventFields): EditedArgs {
  const booking = tool === 'book_event';
  const args: Record<string, unknown> = { ...original };
  let changed = false;

  const time = (key: 'start' | 'end', label: string): string | null => {
    const value = fields[key];
    if (value === shown(original[key]) && typeof original[key] === 'string') return null;
    const iso = localInputToIso(value);
    if (iso === null) return `${label}: enter a date and time`;
    args[key] = iso;
    changed = true;
    return null;
  };

  if (booking) {
    const title = fields.title.trim();
    if (title === '') return { args: null, problem: 'Title: give the event a title' };
    if (title !== original['title']) {
      args['title'] = title;
      changed = true;
    }
  }
  const timeProblem = time('start', 'Start') ?? time('end', 'End');
  if (timeProblem) return { args: null, problem: timeProblem };
  const start = parseEventTime(String(args['start'] ?? ''));
  const end = parseEventTime(String(args['end'] ?? ''));
  if (Number.isFinite(start) && Number.isFinite(end) && end <= start) return { args: null, problem: 'End: must be after the start' };

  if (booking) {
    const people = splitPeople(fields.attendees);
    const before = Array.isArray(original['attendees']) ? original['attendees'] : [];
    if (!sameList(people, before)) {
      if (people.length === 0) delete args['attendees'];
      else args['attendees'] = people;
      changed = true;
    }
  }
  return { args: changed ? (JSON.parse(JSON.stringify(args)) as Record<string, JsonValue>) : null, problem: null };
}
