/**
 * An .ics file as text, before ical.js reads any of it (calendar/ics.ts parses it): the bounds on a file,
 * its shape (size in bytes, nesting, BEGIN/END pairs), Outlook's broken TZID quoting repaired, and the raw
 * RRULE/EXDATE/RDATE lines of each event as written.
 */
import ICAL from 'ical.js';
import { fail } from '../fail';
import { parseWall, wallString, type Wall } from './zones';
import { checkRule } from '../../../src-shared/recurrence';
import type { ContentLine } from './ics-lines';

/** Bounds on an .ics file, checked before it is parsed. */
export const ICS_LIMITS = {
  /** Bytes of the file, UTF-8 (a 5,000-event export is about 2 MB; 100,000 events about 43 MB). */
  maxBytes: 64 * 1024 * 1024,
  /** Components inside one another (VCALENDAR > VEVENT > VALARM is 3). */
  maxDepth: 8,
  /** Components in all. */
  maxComponents: 250_000,
  /** Events (or free/busy periods) one file may hold. */
  maxEvents: 100_000,
  /** Characters of one event's text field kept (a description longer than this is cut). */
  maxText: 20_000,
  /** Attendees kept per event. */
  maxAttendees: 200,
};

/**
 * A component directly inside a VCALENDAR (or a VCALENDAR's own properties, named VCALENDAR): its name, the
 * line of its BEGIN, which VCALENDAR of the file it is in (a file may hold several), and its content lines
 * (folds undone) joined by CRLF, with the file's line number of each.
 */
export interface Piece {
  name: string;
  line: number;
  root: number;
  text: string;
  lines: number[];
}

/** The file's line where the piece's first line that starts like `content` is (ical.js's errors quote the line). */
export function lineInPiece(piece: Piece, content: string): number | null {
  const i = lineOf(piece.text, content);
  return i === null ? null : (piece.lines[i - 1] ?? null);
}

export interface WalkOptions {
  /** Which components directly inside a VCALENDAR to give whole (by name and the line of their BEGIN). */
  want: (name: string, line: number) => boolean;
  /** Give each VCALENDAR's own properties too, as a piece named VCALENDAR once its END is read. */
  heads?: boolean;
  /** Told of every component directly inside a VCALENDAR as its BEGIN is read. */
  seen?: (name: string, line: number, root: number) => void;
  /** Filled with the BEGIN lines of the events that change one occurrence (a RECURRENCE-ID of their own). */
  overrides?: Set<number>;
}

/**
 * Walks a file's content lines, checking its shape as it goes (BEGIN/END pairs, nesting depth, component
 * count; no values are parsed), and gives the components asked for one at a time. Each pass over a file
 * checks it again, so a file changed between passes is refused, never misread.
 */
export function* walkIcs(lines: Iterable<ContentLine>, o: WalkOptions): Generator<Piece> {
  const stack: Begin[] = [];
  let components = 0;
  let sawCalendar = false;
  let roots = 0;
  let piece: { name: string; line: number; text: string[]; lines: number[] } | null = null;
  let head: { text: string[]; lines: number[]; line: number } | null = null;
  let isEvent = false;
  for (const { text, line } of lines) {
    const raw = text.length > 64 ? text.slice(0, 64) : text;
    // Only a line starting with B or E can begin or end a component (a cheap test before the pattern).
    const first = text.charCodeAt(0) | 0x20;
    const m = first === 0x62 || first === 0x65 ? /^(BEGIN|END):([A-Za-z0-9-]+)\s*$/i.exec(raw) : null;
    if (!m) {
      if (stack.length === 0) {
        if (raw.trim() !== '' && !/^[ \t]/.test(raw))
          fail(`line ${line}: ${sawCalendar ? 'text after END:VCALENDAR' : 'the file does not start with BEGIN:VCALENDAR'}`, 'import an iCalendar (.ics) file');
        continue;
      }
      if (piece) {
        piece.text.push(text);
        piece.lines.push(line);
      } else if (head && stack.length === 1) {
        head.text.push(text);
        head.lines.push(line);
      }
      if (isEvent && stack.length === 2 && o.overrides && /^RECURRENCE-ID[;:]/i.test(raw)) o.overrides.add(stack[1]!.line);
      continue;
    }
    const name = m[2]!.toUpperCase();
    if (m[1]!.toUpperCase() === 'BEGIN') {
      if (stack.length === 0 && name !== 'VCALENDAR') fail(`line ${line}: BEGIN:${name} outside a VCALENDAR`, 'import an iCalendar (.ics) file');
      if (stack.length >= ICS_LIMITS.maxDepth) fail(`line ${line}: components nested more than ${ICS_LIMITS.maxDepth} deep`, 'this is not a calendar a calendar app writes; export it again');
      if (++components > ICS_LIMITS.maxComponents) fail(`line ${line}: more than ${ICS_LIMITS.maxComponents.toLocaleString('en')} components`, 'split the calendar into smaller files');
      stack.push({ name, line });
      sawCalendar = true;
      if (stack.length === 1 && o.heads) head = { text: [text], lines: [line], line };
      else if (stack.length === 2) {
        isEvent = name === 'VEVENT';
        o.seen?.(name, line, roots);
        if (o.want(name, line)) piece = { name, line, text: [], lines: [] };
      }
      if (piece) {
        piece.text.push(text);
        piece.lines.push(line);
      }
    } else {
      const open = stack.pop();
      if (!open) fail(`line ${line}: END:${name} without a BEGIN`, 'the file is damaged; export it again');
      if (open.name !== name) fail(`line ${line}: END:${name} does not close BEGIN:${open.name} of line ${open.line}`, 'the file is damaged; export it again');
      if (piece) {
        piece.text.push(text);
        piece.lines.push(line);
        if (stack.length === 1) {
          yield { name: piece.name, line: piece.line, root: roots, text: `${piece.text.join('\r\n')}\r\n`, lines: piece.lines };
          piece = null;
        }
      } else if (stack.length === 0) {
        if (head) {
          head.text.push(text);
          head.lines.push(line);
          yield { name: 'VCALENDAR', line: head.line, root: roots, text: `${head.text.join('\r\n')}\r\n`, lines: head.lines };
          head = null;
        }
        roots++;
      }
      if (stack.length < 2) isEvent = false;
    }
  }
  const open = stack.pop();
  if (open) fail(`line ${open.line}: BEGIN:${open.name} is never closed`, 'the file is cut off or damaged; export it again');
  if (!sawCalendar) fail('the file has no BEGIN:VCALENDAR', 'import an iCalendar (.ics) file');
}

interface Begin {
  name: string;
  line: number;
}

export const MB = 1024 * 1024;
/** A size for people: "70.2 MB", "1,200 bytes". */
export const sizeWords = (bytes: number): string => (bytes >= MB ? `${Number((bytes / MB).toFixed(1))} MB` : `${bytes.toLocaleString('en')} bytes`);

/**
 * The refusal of a calendar file over the limit, worded once: for the import ("the file is 70.2 MB") and for
 * the CLI, which checks a file's size on disk before reading it ("cal.ics is 70.2 MB").
 */
export const icsTooLarge = (bytes: number, file = 'the file'): { error: string; hint: string } => ({
  error: `${file} is ${sizeWords(bytes)}`,
  hint: `import files of at most ${sizeWords(ICS_LIMITS.maxBytes)}; split the calendar`,
});

/** The line number of the first physical line that starts like `content` (ical.js's errors quote the line). */
export function lineOf(text: string, content: string): number | null {
  const head = content.slice(0, 30);
  if (!head) return null;
  const i = text.indexOf(head);
  if (i === -1) return null;
  let n = 1;
  for (let p = text.indexOf('\n'); p !== -1 && p < i; p = text.indexOf('\n', p + 1)) n++;
  return n;
}

/** Date-time properties whose TZID parameter Outlook writes with broken quoting. */
export const TIME_PROPS = /^(DTSTART|DTEND|DUE|EXDATE|RDATE|RECURRENCE-ID)(;[^\r\n]*)$/gim;

/**
 * Repairs TZID (and other) parameters of date-time properties written with broken quoting, as Outlook
 * does ('DTSTART;TZID="W. Europe Standard Time:2026…' with no closing quote, or a display name with a colon
 * left unquoted): the value after the last colon is a date list, so the parameters before it can be
 * re-quoted. Lines keep their numbers (`lineAt` gives the file's line of the text's n-th line, from 0).
 * Returns the text and the line numbers repaired.
 */
export function repairQuoting(text: string, lineAt: (index: number) => number = (i) => i + 1): { text: string; repaired: number[] } {
  const repaired: number[] = [];
  let lastOffset = 0;
  let lastIndex = 0;
  const out = text.replace(TIME_PROPS, (line: string, name: string, rest: string, offset: number) => {
    const after = offset + line.length;
    const next = text.charAt(text.charAt(after) === '\r' ? after + 2 : after + 1);
    if (next === ' ' || next === '\t') return line; // folded: left to the parser
    const colon = rest.lastIndexOf(':');
    if (colon === -1) return line;
    const params = rest.slice(1, colon);
    const value = rest.slice(colon + 1);
    if (!/^[0-9TZtz,/PHMSDW+-]+$/.test(value.trim())) return line;
    const pieces = params.split(';');
    const unbalanced = (params.match(/"/g)?.length ?? 0) % 2 === 1;
    const unquotedSpecial = pieces.some((p) => /^[^=]+=[^"]*[:,]/.test(p));
    if (!unbalanced && !unquotedSpecial) return line;
    const fixed = pieces.map((p) => {
      const eq = p.indexOf('=');
      if (eq === -1) return p.replace(/"/g, '');
      const v = p.slice(eq + 1).replace(/"/g, '').trim();
      return `${p.slice(0, eq)}=${/[:;,]/.test(v) ? `"${v}"` : v}`;
    });
    for (let i = text.indexOf('\n', lastOffset); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) lastIndex++;
    lastOffset = offset;
    if (repaired.length < 1000) repaired.push(lineAt(lastIndex));
    return `${name};${fixed.join(';')}:${value}`;
  });
  // A repeat rule ical.js would refuse while parsing (refusing the whole file) is renamed so it is
  // skipped there; rawEvents still reads it, and the event is imported once with a note.
  const ruled = out.replace(/^RRULE([;:][^\r\n]*)$/gim, (line: string, rest: string) => {
    const colon = rest.indexOf(':');
    return colon !== -1 && !checkRule(rest.slice(colon + 1)).ok ? `X-TIDY-RRULE${rest}` : line;
  });
  return { text: ruled, repaired };
}

/** A property line inside an event as the file has it (before ical.js reads it). */
export interface RawProp {
  line: number;
  params: Map<string, string>;
  value: string;
}

/** RRULE, EXDATE and RDATE lines of each top-level VEVENT, by the line of its BEGIN. */
export interface RawEvent {
  rrule?: string;
  exdate: RawProp[];
  rdate: RawProp[];
}

export function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const m of text.matchAll(/;([A-Za-z0-9-]+)=("[^"]*"|[^;]*)/g)) params.set(m[1]!.toUpperCase(), m[2]!.replace(/^"|"$/g, ''));
  return params;
}

/**
 * Reads the raw RRULE, EXDATE and RDATE lines of every event: ical.js drops what it cannot read in a rule
 * (INTERVAL=-1 becomes 1, COUNT=1e21 a float) and throws on a bad date only when it is read, so these
 * are checked from the text, each with its line number.
 */
export function rawEvents(text: string, lineAt: (index: number) => number = (i) => i + 1, eventDepth = 2): Map<number, RawEvent> {
  const out = new Map<number, RawEvent>();
  let depth = 0;
  let current: RawEvent | null = null;
  let index = -1;
  let logical = '';
  let logicalLine = 0;
  const take = (): void => {
    if (!current || !logical) return;
    const m = /^(?:X-TIDY-)?(RRULE|EXDATE|RDATE)((?:;(?:"[^"]*"|[^:;"])*)*):(.*)$/i.exec(logical.slice(0, 100_000));
    if (!m) return;
    const name = m[1]!.toUpperCase();
    if (name === 'RRULE') current.rrule ??= m[3]!.trim();
    else if (current[name === 'EXDATE' ? 'exdate' : 'rdate'].length < 100) current[name === 'EXDATE' ? 'exdate' : 'rdate'].push({ line: logicalLine, params: parseParams(m[2]!), value: m[3]!.trim() });
  };
  let pos = 0;
  while (pos <= text.length) {
    let next = text.indexOf('\n', pos);
    if (next === -1) next = text.length;
    const line = lineAt(++index);
    const raw = text.slice(pos, next).replace(/\r$/, '');
    pos = next + 1;
    if ((raw.startsWith(' ') || raw.startsWith('\t')) && logical) {
      if (logical.length < 100_000) logical += raw.slice(1);
      continue;
    }
    take();
    logical = '';
    const m = /^(BEGIN|END):([A-Za-z0-9-]+)\s*$/i.exec(raw.slice(0, 64));
    if (m) {
      if (m[1]!.toUpperCase() === 'BEGIN') {
        depth++;
        if (depth === eventDepth && m[2]!.toUpperCase() === 'VEVENT') {
          current = { exdate: [], rdate: [] };
          out.set(line, current);
        }
      } else {
        depth--;
        if (depth < eventDepth) current = null;
      }
      continue;
    }
    if (current && depth === eventDepth && /^(X-TIDY-RRULE|RRULE|EXDATE|RDATE)[;:]/i.test(raw)) {
      logical = raw;
      logicalLine = line;
    }
  }
  take();
  for (const [k, v] of out) if (!v.rrule && !v.exdate.length && !v.rdate.length) out.delete(k);
  return out;
}

/** One date or date-time of an EXDATE/RDATE as written: null when it is not one. */
export function rawTime(value: string, params: Map<string, string>): ICAL.Time | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/i.exec(value.trim().split('/')[0]!);
  if (!m) return null;
  const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
  const wall: Wall = { y, m: mo, d, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0) };
  if (!parseWall(wallString(wall)) || y < 1000) return null;
  if (!m[4] || params.get('VALUE')?.toUpperCase() === 'DATE') return ICAL.Time.fromData({ year: y, month: mo, day: d, isDate: true });
  return ICAL.Time.fromData({ year: y, month: mo, day: d, hour: wall.h, minute: wall.mi, second: wall.s, isDate: false }, m[7] ? ICAL.Timezone.utcTimezone : undefined);
}

export function parseJcal(text: string, lineOfText: (content: string) => number | null = (content) => lineOf(text, content)): ICAL.Component[] {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const quoted = /"([^"]*)"$/.exec(message)?.[1];
    const line = quoted ? lineOfText(quoted) : null;
    fail(`${line ? `line ${line}: ` : ''}${message.replace(/ "[^"]*"$/, '').slice(0, 120)}`, 'the file is not valid iCalendar; export it again from the calendar app');
  }
  const roots = (Array.isArray(jcal) && typeof jcal[0] === 'string' ? [jcal] : (jcal as unknown[])) as unknown[];
  return roots.map((j) => new ICAL.Component(j as unknown[]));
}
