/**
 * iCalendar (RFC 5545) in, with ical.js doing the parsing (writing is calendar/ics-export.ts). This module checks the
 * file's shape first (size in bytes, nesting, BEGIN/END pairs: bounded before ical.js reads any of it), then
 * parses one component at a time (streamIcs) and turns each VEVENT (and each VFREEBUSY period, as Zimbra
 * and Exchange publish busy time) into a row for the events table. Anything malformed throws a DomainError
 * naming the line or component: an import is all or nothing.
 */
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { DomainError, fail } from '../fail';
import { addDays, ianaZone, parseWall, wallAt, wallDate, wallString, wallToUtc, type Wall } from './zones';
import { checkRule } from '../../../src-shared/recurrence';
import { checkDuration } from '../../../src-shared/dates';
import { normaliseRule, lastOccurrenceEnd } from './expand';

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

export interface Attendee {
  name: string | null;
  email: string | null;
}

/** An event as the events table holds it (see migration 7 in src-main/core/store/migrations.ts). */
export interface EventData {
  uid: string;
  recurrence_id: string | null;
  title: string;
  start: string;
  end: string;
  all_day: number;
  tz: string | null;
  start_ms: number;
  end_ms: number;
  until_ms: number | null;
  rrule: string | null;
  exdates: string | null;
  location: string | null;
  notes: string | null;
  attendees: string;
  busy: number;
  cancelled: boolean;
}

export interface ParsedCalendar {
  name: string | null;
  /** An email that names whose calendar it is (Google puts the owner's address in X-WR-CALNAME). */
  email: string | null;
  prodid: string | null;
  events: EventData[];
  warnings: string[];
}

interface Begin {
  name: string;
  line: number;
}

/** A component directly inside a VCALENDAR: its name, the line of its BEGIN, and its text's offsets. */
interface Child extends Begin {
  /** Which VCALENDAR of the file (a file may hold several). */
  root: number;
  start: number;
  end: number;
}

/** A VCALENDAR of the file: the offsets of its BEGIN line and of its END line's end. */
interface Root {
  start: number;
  end: number;
  line: number;
}

const MB = 1024 * 1024;
/** A size for people: "70.2 MB", "1,200 bytes". */
export const sizeWords = (bytes: number): string => (bytes >= MB ? `${Number((bytes / MB).toFixed(1))} MB` : `${bytes.toLocaleString('en')} bytes`);

/** The file's size in UTF-8 bytes, counted without a copy (a string of more characters than the limit is over it). */
function byteLength(text: string): number {
  return text.length > ICS_LIMITS.maxBytes ? text.length : Buffer.byteLength(text, 'utf8');
}

/**
 * Checks the size, BEGIN/END pairing, nesting depth and component count line by line (no parsing of
 * values), and returns the VCALENDARs and the components directly inside them with their line numbers
 * and offsets, in order: what the events are then read from one at a time.
 */
function checkShape(text: string): { roots: Root[]; children: Child[] } {
  const bytes = byteLength(text);
  if (bytes > ICS_LIMITS.maxBytes) fail(`the file is ${sizeWords(bytes)}`, `import files of at most ${sizeWords(ICS_LIMITS.maxBytes)}; split the calendar`);
  const stack: (Begin & { start: number })[] = [];
  const children: Child[] = [];
  const roots: Root[] = [];
  let components = 0;
  let line = 0;
  let sawCalendar = false;
  let pos = 0;
  while (pos <= text.length) {
    let next = text.indexOf('\n', pos);
    if (next === -1) next = text.length;
    line++;
    const raw = text.slice(pos, Math.min(next, pos + 64)).replace(/\r$/, '');
    const at = pos;
    pos = next + 1;
    const m = /^(BEGIN|END):([A-Za-z0-9-]+)\s*$/i.exec(raw);
    if (!m) {
      if (stack.length === 0 && raw.trim() !== '' && !/^[ \t]/.test(raw))
        fail(`line ${line}: ${sawCalendar ? 'text after END:VCALENDAR' : 'the file does not start with BEGIN:VCALENDAR'}`, 'import an iCalendar (.ics) file');
      continue;
    }
    const name = m[2]!.toUpperCase();
    if (m[1]!.toUpperCase() === 'BEGIN') {
      if (stack.length === 0 && name !== 'VCALENDAR') fail(`line ${line}: BEGIN:${name} outside a VCALENDAR`, 'import an iCalendar (.ics) file');
      if (stack.length >= ICS_LIMITS.maxDepth) fail(`line ${line}: components nested more than ${ICS_LIMITS.maxDepth} deep`, 'this is not a calendar a calendar app writes; export it again');
      if (++components > ICS_LIMITS.maxComponents) fail(`line ${line}: more than ${ICS_LIMITS.maxComponents.toLocaleString('en')} components`, 'split the calendar into smaller files');
      stack.push({ name, line, start: at });
      sawCalendar = true;
    } else {
      const open = stack.pop();
      if (!open) fail(`line ${line}: END:${name} without a BEGIN`, 'the file is damaged; export it again');
      if (open.name !== name) fail(`line ${line}: END:${name} does not close BEGIN:${open.name} of line ${open.line}`, 'the file is damaged; export it again');
      const end = Math.min(next + 1, text.length);
      if (stack.length === 1) children.push({ name, line: open.line, root: roots.length, start: open.start, end });
      else if (stack.length === 0) roots.push({ start: open.start, end, line: open.line });
    }
  }
  const open = stack.pop();
  if (open) fail(`line ${open.line}: BEGIN:${open.name} is never closed`, 'the file is cut off or damaged; export it again');
  if (!sawCalendar) fail('the file has no BEGIN:VCALENDAR', 'import an iCalendar (.ics) file');
  return { roots, children };
}

/** The line number of the first physical line that starts like `content` (ical.js's errors quote the line). */
function lineOf(text: string, content: string): number | null {
  const head = content.slice(0, 30);
  if (!head) return null;
  const i = text.indexOf(head);
  if (i === -1) return null;
  let n = 1;
  for (let p = text.indexOf('\n'); p !== -1 && p < i; p = text.indexOf('\n', p + 1)) n++;
  return n;
}

/** Date-time properties whose TZID parameter Outlook writes with broken quoting. */
const TIME_PROPS = /^(DTSTART|DTEND|DUE|EXDATE|RDATE|RECURRENCE-ID)(;[^\r\n]*)$/gim;

/**
 * Repairs TZID (and other) parameters of date-time properties written with broken quoting, as Outlook
 * does ('DTSTART;TZID="W. Europe Standard Time:2026…' with no closing quote, or a display name with a colon
 * left unquoted): the value after the last colon is a date list, so the parameters before it can be
 * re-quoted. Lines keep their numbers. Returns the text and the line numbers repaired.
 */
function repairQuoting(text: string, lineBase = 0): { text: string; repaired: number[] } {
  const repaired: number[] = [];
  let lastOffset = 0;
  let lastLine = lineBase + 1;
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
    for (let i = text.indexOf('\n', lastOffset); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) lastLine++;
    lastOffset = offset;
    if (repaired.length < 1000) repaired.push(lastLine);
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
interface RawProp {
  line: number;
  params: Map<string, string>;
  value: string;
}

/** RRULE, EXDATE and RDATE lines of each top-level VEVENT, by the line of its BEGIN. */
interface RawEvent {
  rrule?: string;
  exdate: RawProp[];
  rdate: RawProp[];
}

function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const m of text.matchAll(/;([A-Za-z0-9-]+)=("[^"]*"|[^;]*)/g)) params.set(m[1]!.toUpperCase(), m[2]!.replace(/^"|"$/g, ''));
  return params;
}

/**
 * Reads the raw RRULE, EXDATE and RDATE lines of every event: ical.js drops what it cannot read in a rule
 * (INTERVAL=-1 becomes 1, COUNT=1e21 a float) and throws on a bad date only when it is read, so these
 * are checked from the text, each with its line number.
 */
function rawEvents(text: string, lineBase = 0, eventDepth = 2): Map<number, RawEvent> {
  const out = new Map<number, RawEvent>();
  let depth = 0;
  let current: RawEvent | null = null;
  let line = lineBase;
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
    line++;
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
function rawTime(value: string, params: Map<string, string>): ICAL.Time | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/i.exec(value.trim().split('/')[0]!);
  if (!m) return null;
  const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
  const wall: Wall = { y, m: mo, d, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0) };
  if (!parseWall(wallString(wall)) || y < 1000) return null;
  if (!m[4] || params.get('VALUE')?.toUpperCase() === 'DATE') return ICAL.Time.fromData({ year: y, month: mo, day: d, isDate: true });
  return ICAL.Time.fromData({ year: y, month: mo, day: d, hour: wall.h, minute: wall.mi, second: wall.s, isDate: false }, m[7] ? ICAL.Timezone.utcTimezone : undefined);
}

function parseJcal(text: string, file: string = text): ICAL.Component[] {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const quoted = /"([^"]*)"$/.exec(message)?.[1];
    const line = quoted ? lineOf(file, quoted) : null;
    fail(`${line ? `line ${line}: ` : ''}${message.replace(/ "[^"]*"$/, '').slice(0, 120)}`, 'the file is not valid iCalendar; export it again from the calendar app');
  }
  const roots = (Array.isArray(jcal) && typeof jcal[0] === 'string' ? [jcal] : (jcal as unknown[])) as unknown[];
  return roots.map((j) => new ICAL.Component(j as unknown[]));
}

const clean = (v: unknown, max = ICS_LIMITS.maxText): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.normalize('NFC').trim();
  return t ? t.slice(0, max) : null;
};

interface TimeValue {
  wall: Wall;
  allDay: boolean;
  /** IANA zone, 'UTC', or null (floating). */
  tz: string | null;
  /** UTC ms (floating: as if UTC). */
  ms: number;
}

/** Bounds on a VTIMEZONE definition ical.js expands from its first DTSTART (often 1601) on. */
const MAX_OBSERVANCES = 100;
const MAX_OBSERVANCE_RDATES = 1000;

/**
 * Why a VTIMEZONE cannot be used safely, naming the line, or null: an offset that is not ±HHMM[SS]
 * (ical.js says only "Could not extract integer"), an observance that repeats other than yearly or
 * monthly (FREQ=SECONDLY from 1601 expanded to gigabytes), a bad rule, too many observances or dates.
 */
function observanceProblem(vtz: ICAL.Component, lineOf: (content: string) => number | null): string | null {
  const observances = vtz.getAllSubcomponents();
  if (observances.length > MAX_OBSERVANCES) return `a time zone has more than ${MAX_OBSERVANCES} parts`;
  const at = (name: string, raw: string): string => {
    const line = lineOf(`${name.toUpperCase()}:${raw}`) ?? lineOf(`${name.toUpperCase()}:${raw.replace(':', '')}`);
    return line ? `line ${line}: ` : '';
  };
  for (const o of observances) {
    for (const name of ['tzoffsetfrom', 'tzoffsetto']) {
      const p = o.getFirstProperty(name);
      const raw = p ? String((p as unknown as { jCal: unknown[] }).jCal[3] ?? '') : '';
      const compact = raw.replace(':', '');
      if (!p || !/^[+-]\d{4}(\d{2})?$/.test(compact) || Number(compact.slice(1, 3)) > 23 || Number(compact.slice(3, 5)) > 59)
        return `${at(name, String(raw))}${name.toUpperCase()} ${JSON.stringify(String(raw).slice(0, 20))} is not an offset like +0100`;
    }
    const rules = o.getAllProperties('rrule');
    for (const r of rules) {
      let rule: unknown;
      try {
        rule = r.getFirstValue();
      } catch {
        rule = null;
      }
      const text = rule instanceof ICAL.Recur ? rule.toString() : '';
      const check = checkRule(text);
      if (!check.ok) return `a time zone's repeat rule cannot be used (${check.error})`;
      if (!/FREQ=(YEARLY|MONTHLY)/.test(text)) return `a time zone's ${o.name.toUpperCase()} time repeats ${/FREQ=(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'oddly'} (time zones change at most monthly)`;
    }
    let rdates = 0;
    for (const r of o.getAllProperties('rdate')) rdates += (r as unknown as { jCal: unknown[] }).jCal.length - 3;
    if (rdates > MAX_OBSERVANCE_RDATES) return `a time zone has more than ${MAX_OBSERVANCE_RDATES} change dates`;
  }
  return null;
}

/** Resolves TZIDs: an IANA zone when one can be named; else the file's own VTIMEZONE definition. */
class Zones {
  private readonly defs = new Map<string, ICAL.Timezone>();
  readonly warned = new Set<string>();
  constructor(
    vtimezones: readonly ICAL.Component[],
    private readonly warn: (w: string) => void,
    private readonly lineOf: (content: string) => number | null = () => null,
  ) {
    for (const vtz of vtimezones) {
      let id: unknown;
      try {
        id = vtz.getFirstPropertyValue('tzid');
      } catch {
        continue;
      }
      if (typeof id !== 'string') continue;
      const location = vtz.getFirstPropertyValue('x-lic-location');
      if (typeof location === 'string' && ianaZone(location)) this.aliases.set(id, ianaZone(location)!);
      if (ianaZone(id)) continue; // named: the runtime's tz data is used, the definition never read
      const problem = observanceProblem(vtz, this.lineOf);
      if (problem) {
        this.warn(`${problem}; time zone ${JSON.stringify(id.slice(0, 60))} was not used`);
        continue;
      }
      try {
        this.defs.set(id, new ICAL.Timezone(vtz));
      } catch {
        // A VTIMEZONE ical.js cannot read: the TZID may still name a zone.
      }
    }
  }

  /** Forgets a definition that failed when used (its times are then read as floating). */
  drop(tzid: string, why: string): void {
    this.defs.delete(tzid);
    if (!this.warned.has(tzid)) {
      this.warned.add(tzid);
      this.warn(`${why}; its times were read in your time zone`);
    }
  }
  private readonly aliases = new Map<string, string>();

  iana(tzid: string): string | null {
    return ianaZone(tzid) ?? this.aliases.get(tzid) ?? null;
  }

  /** The file's own definition of a zone no IANA name was found for. */
  definition(tzid: string): ICAL.Timezone | null {
    return this.defs.get(tzid) ?? null;
  }
}

function wallOfTime(t: ICAL.Time): Wall | null {
  const w: Wall = { y: t.year, m: t.month, d: t.day, h: t.isDate ? 0 : t.hour, mi: t.isDate ? 0 : t.minute, s: t.isDate ? 0 : Math.min(t.second, 59) };
  if (![w.y, w.m, w.d, w.h, w.mi, w.s].every(Number.isInteger) || w.y < 1000 || w.y > 9999) return null;
  return parseWall(wallString(w)) ? w : null;
}

function readTime(prop: ICAL.Property, zones: Zones, floatingZone: string | null, what: string, where: string, warn: (w: string) => void): TimeValue {
  let value: unknown;
  try {
    value = prop.getFirstValue();
  } catch {
    value = null;
  }
  if (!(value instanceof ICAL.Time)) {
    // A bare date without VALUE=DATE ("DTSTART:20260105"), which ical.js reads as a broken date-time:
    // a date, as the widely used parsers take it.
    const raw = (prop as unknown as { jCal: unknown[] }).jCal[3];
    const m = typeof raw === 'string' ? /^(\d{4})-?(\d{2})-?(\d{2})(?:T::)?$/.exec(raw) : null;
    if (m) value = ICAL.Time.fromData({ year: +m[1]!, month: +m[2]!, day: +m[3]!, isDate: true });
  }
  if (!(value instanceof ICAL.Time)) fail(`${where}: ${what} is not a date or time`, 'the file is damaged; export it again');
  const wall = wallOfTime(value);
  if (!wall) fail(`${where}: ${what} ${JSON.stringify(String(prop.toICALString()).slice(0, 60))} is not a real date or time`, 'the file is damaged; export it again');
  if (value.isDate) return { wall, allDay: true, tz: null, ms: Date.UTC(wall.y, wall.m - 1, wall.d) };
  const tzid = prop.getParameter('tzid');
  const id = typeof tzid === 'string' ? tzid : Array.isArray(tzid) ? String(tzid[0] ?? '') : '';
  if (value.zone === ICAL.Timezone.utcTimezone || (!id && String(prop.toICALString()).trim().endsWith('Z')))
    return { wall, allDay: false, tz: 'UTC', ms: wallToUtc(wall, 'UTC') };
  if (id) {
    const iana = zones.iana(id);
    if (iana) return { wall, allDay: false, tz: iana, ms: wallToUtc(wall, iana) };
    const def = zones.definition(id);
    if (def) {
      // No IANA name: convert with the file's own rules and keep the time in UTC.
      const t = value.clone();
      t.zone = def;
      let ms: number;
      try {
        ms = t.toUnixTime() * 1000;
      } catch {
        ms = NaN;
      }
      if (!Number.isFinite(ms)) {
        zones.drop(id, `time zone ${JSON.stringify(id.slice(0, 60))} could not be used`);
        if (floatingZone) return { wall, allDay: false, tz: floatingZone, ms: wallToUtc(wall, floatingZone) };
        return { wall, allDay: false, tz: null, ms: wallToUtc(wall, 'UTC') };
      }
      if (!zones.warned.has(id)) {
        zones.warned.add(id);
        warn(`time zone ${JSON.stringify(id.slice(0, 60))} has no standard name; its times were converted with the file's own definition`);
      }
      return { wall: wallAt(ms, 'UTC'), allDay: false, tz: 'UTC', ms };
    }
    if (!zones.warned.has(id)) {
      zones.warned.add(id);
      warn(`unknown time zone ${JSON.stringify(id.slice(0, 60))}; its times were read in your time zone`);
    }
  }
  if (floatingZone) return { wall, allDay: false, tz: floatingZone, ms: wallToUtc(wall, floatingZone) };
  return { wall, allDay: false, tz: null, ms: wallToUtc(wall, 'UTC') };
}

/** A time as a wall string in a zone (the key recurrence ids and exception dates are compared by). */
function keyIn(t: TimeValue, tz: string | null, allDay: boolean): string {
  if (allDay || t.allDay) return wallDate(t.wall);
  if (tz === t.tz) return wallString(t.wall);
  return wallString(wallAt(t.ms, tz ?? 'UTC'));
}

function attendeesOf(comp: ICAL.Component): Attendee[] {
  const out: Attendee[] = [];
  for (const p of comp.getAllProperties('attendee').slice(0, ICS_LIMITS.maxAttendees)) {
    const value = String(p.getFirstValue() ?? '');
    const email = /^mailto:/i.test(value) ? value.slice(7).trim().toLowerCase().slice(0, 200) : null;
    const cn = p.getParameter('cn');
    const name = clean(typeof cn === 'string' ? cn : null, 200);
    if (name || email) out.push({ name, email: email || null });
  }
  return out;
}

/** The range index's end with extra dates: the later of the rule's last end and the last extra date's (null: no end). */
function untilWithRdates(ruleEnd: number | null, lastRdate: number | null, durationMs: number): number | null {
  if (ruleEnd === null || lastRdate === null) return ruleEnd;
  return Math.max(ruleEnd, lastRdate + Math.max(0, durationMs) + 2 * 86_400_000);
}

const stableUid = (...parts: string[]): string => `tidy-${createHash('sha1').update(parts.join('\u0000')).digest('hex').slice(0, 20)}`;

/** Parses an .ics file into rows for the events table, all at once. Throws a DomainError naming the line or component. */
export function parseIcs(text: string): ParsedCalendar {
  const stream = streamIcs(text);
  const events = [...stream.events];
  return { name: stream.name, email: stream.email, prodid: stream.prodid, events, warnings: stream.warnings };
}

/** An .ics file read one event at a time: `events` parses as it is iterated (warnings fill up meanwhile). */
export interface IcsStream extends Omit<ParsedCalendar, 'events'> {
  events: Iterable<EventData>;
}

/** Whatever ical.js throws on a value this module did not foresee: a refusal in words, never a bug message. */
function refuse(e: unknown, text: string): never {
  if (e instanceof DomainError) throw e;
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 120);
  const quoted = /"([^"]*)"$/.exec(message)?.[1];
  const line = quoted ? lineOf(text, quoted) : null;
  return fail(`${line ? `line ${line}: ` : ''}the file could not be read (${message})`, 'the file is damaged; export it again from the calendar app');
}

/**
 * Reads an .ics file one component at a time, so a 64 MB file never becomes one tree in memory: the
 * shape is checked line by line first (size, nesting, pairs) and the VCALENDAR's own properties and
 * time zones (which may come anywhere) are read up front; then each VEVENT is parsed alone as `events` is
 * iterated (changed occurrences after every event they change, free/busy time last). A DomainError
 * naming the line may come from the iteration: the caller's transaction makes the import all or nothing.
 */
export function streamIcs(input: string): IcsStream {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  try {
    return openIcs(text);
  } catch (e) {
    return refuse(e, text);
  }
}

function openIcs(text: string): IcsStream {
  const { roots, children } = checkShape(text);
  const warnings: string[] = [];
  const warn = (w: string): void => {
    if (warnings.length < 20) warnings.push(w);
  };
  const repairedLines: number[] = [];
  const lineIn = (content: string): number | null => lineOf(text, content);
  /** One component's text, its quoting repaired, parsed alone. */
  const parse = (c: Child): { comp: ICAL.Component; source: string } => {
    const repair = repairQuoting(text.slice(c.start, c.end), c.line - 1);
    for (const l of repair.repaired) if (repairedLines.length < 1000) repairedLines.push(l);
    return { comp: parseJcal(repair.text, text)[0]!, source: repair.text };
  };
  let name: string | null = null;
  let prodid: string | null = null;
  const calendars = roots.map((root, i) => {
    const own = children.filter((c) => c.root === i);
    // The VCALENDAR's own properties: its text without its components.
    let head = '';
    let from = root.start;
    for (const c of own) {
      head += text.slice(from, c.start);
      from = c.end;
    }
    head += text.slice(from, root.end);
    const cal = parseJcal(head, text)[0]!;
    if (cal.name !== 'vcalendar') fail(`the file's top component is ${cal.name.toUpperCase()}, not VCALENDAR`, 'import an iCalendar (.ics) file');
    name ??= clean(cal.getFirstPropertyValue('x-wr-calname'), 200);
    prodid ??= clean(cal.getFirstPropertyValue('prodid'), 200);
    const method = String(cal.getFirstPropertyValue('method') ?? '').toUpperCase();
    const zones = new Zones(
      own.filter((c) => c.name === 'VTIMEZONE').map((c) => parse(c).comp),
      warn,
      lineIn,
    );
    const wrZone = cal.getFirstPropertyValue('x-wr-timezone');
    const floatingZone = typeof wrZone === 'string' ? ianaZone(wrZone) : null;
    return { own, method, zones, floatingZone };
  });

  let count = 0;
  function* events(): Generator<EventData> {
    try {
      for (const { own, method, zones, floatingZone } of calendars) {
        const masters = new Map<string, { tz: string | null; allDay: boolean }>();
        const seenUids = new Map<string, number>();
        const out: EventData[] = [];
        const push = (e: EventData): void => {
          count++;
          out.push(e);
        };
        const readEvent = (ev: ICAL.Component, c: Child, source: string): void => {
          if (count >= ICS_LIMITS.maxEvents) fail(`the file has more than ${ICS_LIMITS.maxEvents.toLocaleString('en')} events`, 'split the calendar into smaller files');
          const at = `VEVENT at line ${c.line}`;
          const dtstart = ev.getFirstProperty('dtstart');
          if (!dtstart) fail(`${at}: the event has no DTSTART`, 'the file is damaged; export it again');
          const start = readTime(dtstart, zones, floatingZone, 'DTSTART', at, warn);
          const title = clean(ev.getFirstPropertyValue('summary'), 500) ?? '(no title)';
          let uid = clean(ev.getFirstPropertyValue('uid'), 500) ?? stableUid(title, wallString(start.wall));
          const recurrenceProp = ev.getFirstProperty('recurrence-id');

          let endMs: number;
          let endWall: Wall;
          const dtend = ev.getFirstProperty('dtend');
          const duration = ev.getFirstPropertyValue('duration');
          if (dtend) {
            const end = readTime(dtend, zones, floatingZone, 'DTEND', at, warn);
            endMs = start.allDay ? Date.UTC(end.wall.y, end.wall.m - 1, end.wall.d) : end.ms;
            endWall = start.allDay ? end.wall : wallAt(end.ms, start.tz ?? 'UTC');
          } else if (duration instanceof ICAL.Duration && !checkDuration(Math.max(0, duration.toSeconds())).ok) {
            const check = checkDuration(Math.max(0, duration.toSeconds()));
            warn(`${at}: "${title.slice(0, 40)}" DURATION ${JSON.stringify(duration.toString().slice(0, 30))} cannot be used (${check.ok ? '' : check.error}); it was given no end`);
            endMs = start.ms;
            endWall = start.wall;
            if (start.allDay) {
              endWall = addDays(start.wall, 1);
              endMs = Date.UTC(endWall.y, endWall.m - 1, endWall.d);
            }
          } else if (duration instanceof ICAL.Duration) {
            const seconds = Math.max(0, duration.toSeconds());
            if (start.allDay) {
              endWall = addDays(start.wall, Math.max(1, Math.round(seconds / 86_400)));
              endMs = Date.UTC(endWall.y, endWall.m - 1, endWall.d);
            } else {
              endMs = start.ms + seconds * 1000;
              endWall = wallAt(endMs, start.tz ?? 'UTC');
            }
          } else if (start.allDay) {
            endWall = addDays(start.wall, 1);
            endMs = Date.UTC(endWall.y, endWall.m - 1, endWall.d);
          } else {
            endMs = start.ms;
            endWall = start.wall;
          }
          if (endMs < start.ms) {
            warn(`${at}: "${title.slice(0, 40)}" ends before it starts; it was given no length`);
            endMs = start.ms;
            endWall = start.wall;
          }
          if (start.allDay && endMs === start.ms) {
            endWall = addDays(start.wall, 1);
            endMs = Date.UTC(endWall.y, endWall.m - 1, endWall.d);
          }

          let recurrenceId: string | null = null;
          let rrule: string | null = null;
          let lastRdate: number | null = null;
          let exdates: string[] = [];
          if (recurrenceProp) {
            const master = masters.get(uid);
            const rid = readTime(recurrenceProp, zones, floatingZone, 'RECURRENCE-ID', at, warn);
            recurrenceId = keyIn(rid, master ? master.tz : start.tz, master ? master.allDay : start.allDay);
            if (!master) warn(`${at}: a changed occurrence of an event that is not in the file; kept as a single event`);
            if (recurrenceProp.getParameter('range')) warn(`${at}: RANGE=THISANDFUTURE is not supported; only that occurrence was changed`);
          } else {
            const n = (seenUids.get(uid) ?? 0) + 1;
            seenUids.set(uid, n);
            if (n > 1) uid = `${uid}#${n}`;
            const raw = rawEvents(source, c.line - 1, 1).get(c.line);
            let rule: unknown;
            try {
              rule = ev.getFirstPropertyValue('rrule');
            } catch {
              rule = null;
            }
            if (rule instanceof ICAL.Recur || raw?.rrule) {
              // The rule as written is checked (ical.js drops or misreads what it cannot read).
              const check = checkRule(raw?.rrule ?? (rule instanceof ICAL.Recur ? rule.toString() : ''));
              if (!check.ok) warn(`${at}: "${title.slice(0, 40)}" has a repeat rule that cannot be used (${check.error}); imported as a single event`);
              else if (rule instanceof ICAL.Recur) {
                const norm = normaliseRule(rule, start.tz, start.allDay, zones.iana.bind(zones));
                if (norm.warning) warn(`${at}: "${title.slice(0, 40)}" ${norm.warning}`);
                rrule = norm.rule;
              }
            }
            // EXDATE and RDATE as written, value by value: a broken one is skipped alone, with its line.
            const timesOf = (props: RawProp[], what: string): { t: TimeValue; line: number }[] => {
              const out: { t: TimeValue; line: number }[] = [];
              for (const p of props) {
                for (const v of p.value.split(',').slice(0, 5000)) {
                  const time = rawTime(v, p.params);
                  if (!time) {
                    warn(`line ${p.line}: ${what} ${JSON.stringify(v.slice(0, 30))} is not a date or time; skipped`);
                    continue;
                  }
                  const single = new ICAL.Property(what.toLowerCase());
                  const tzid = p.params.get('TZID');
                  if (tzid && !time.isDate && time.zone !== ICAL.Timezone.utcTimezone) single.setParameter('tzid', tzid);
                  single.setValue(time);
                  try {
                    out.push({ t: readTime(single, zones, floatingZone, what, `line ${p.line}`, warn), line: p.line });
                  } catch {
                    warn(`line ${p.line}: ${what} ${JSON.stringify(v.slice(0, 30))} could not be read; skipped`);
                  }
                }
              }
              return out;
            };
            for (const { t } of timesOf(raw?.exdate ?? [], 'EXDATE')) {
              // A date alone on a timed event excludes that day's occurrence (as Google and Outlook read it).
              exdates.push(t.allDay && !start.allDay ? wallDate(t.wall) : keyIn(t, start.tz, start.allDay));
            }
            const rdates: string[] = [];
            const period = raw?.rdate.find((p) => p.params.get('VALUE')?.toUpperCase() === 'PERIOD');
            if (period) warn(`line ${period.line}: RDATE periods are read as extra starts of "${title.slice(0, 40)}" with its own length`);
            for (const { t } of timesOf(raw?.rdate ?? [], 'RDATE')) {
              if (rdates.length >= 1000) break;
              const key = t.allDay && !start.allDay ? `${wallDate(t.wall)}T${wallString(start.wall).slice(11)}` : keyIn(t, start.tz, start.allDay);
              rdates.push(key);
            }
            if (rdates.length) {
              // Extra dates: kept beside the exception dates, marked "+" (see exceptionDates in domain/calendar.ts);
              // an event with extra dates and no rule repeats once by a rule plus its dates.
              rrule ??= 'FREQ=DAILY;COUNT=1';
              exdates.push(...rdates.map((k) => `+${k}`));
              const last = rdates.map((k) => parseWall(k)).filter((w): w is Wall => w !== null).reduce<Wall | null>((a, w) => (!a || wallString(w) > wallString(a) ? w : a), null);
              if (last) lastRdate = start.allDay ? Date.UTC(last.y, last.m - 1, last.d) : wallToUtc(last, start.tz ?? 'UTC');
            }
            exdates = [...new Set(exdates)];
            masters.set(uid, { tz: start.tz, allDay: start.allDay });
          }

          const status = String(ev.getFirstPropertyValue('status') ?? '').toUpperCase();
          const transp = String(ev.getFirstPropertyValue('transp') ?? '').toUpperCase();
          const msBusy = String(ev.getFirstPropertyValue('x-microsoft-cdo-busystatus') ?? '').toUpperCase();
          const durationMs = endMs - start.ms;
          const startText = start.allDay ? wallDate(start.wall) : wallString(start.wall);
          const endText = start.allDay ? wallDate(endWall) : wallString(endWall);
          push({
            uid,
            recurrence_id: recurrenceId,
            title,
            start: startText,
            end: endText,
            all_day: start.allDay ? 1 : 0,
            tz: start.allDay ? null : start.tz,
            start_ms: start.ms,
            end_ms: endMs,
            until_ms: rrule ? untilWithRdates(lastOccurrenceEnd(rrule, startText, start.allDay, start.tz, durationMs), lastRdate, durationMs) : endMs,
            rrule,
            exdates: rrule && exdates.length ? JSON.stringify(exdates) : null,
            location: clean(ev.getFirstPropertyValue('location'), 1000),
            notes: clean(ev.getFirstPropertyValue('description')),
            attendees: JSON.stringify(attendeesOf(ev)),
            busy: transp === 'TRANSPARENT' || msBusy === 'FREE' ? 0 : 1,
            cancelled: status === 'CANCELLED' || method === 'CANCEL',
          });
        };
        // Events first, then the occurrences they change (which name their event), then free/busy time.
        const overrides: Child[] = [];
        for (const c of own) {
          if (c.name !== 'VEVENT') continue;
          const { comp, source } = parse(c);
          if (comp.hasProperty('recurrence-id')) {
            overrides.push(c);
            continue;
          }
          readEvent(comp, c, source);
          yield* out;
          out.length = 0;
        }
        for (const c of overrides) {
          const { comp, source } = parse(c);
          readEvent(comp, c, source);
          yield* out;
          out.length = 0;
        }
        // Free/busy publications (Zimbra, Exchange): each busy period is an event called "Busy".
        for (const c of own) {
          if (c.name !== 'VFREEBUSY') continue;
          const fb = parse(c).comp;
          const at = `VFREEBUSY at line ${c.line}`;

          const fbUid = clean(fb.getFirstPropertyValue('uid'), 500) ?? 'freebusy';
          for (const p of fb.getAllProperties('freebusy')) {
            const type = String(p.getParameter('fbtype') ?? 'BUSY').toUpperCase();
            if (type === 'FREE') continue;
            for (const period of p.getValues()) {
              if (count >= ICS_LIMITS.maxEvents) fail(`the file has more than ${ICS_LIMITS.maxEvents.toLocaleString('en')} busy periods`, 'split the calendar into smaller files');
              if (!(period instanceof ICAL.Period)) fail(`${at}: FREEBUSY is not a period`, 'the file is damaged; export it again');
              const s = period.start;
              const e = period.getEnd();
              const sw = wallOfTime(s);
              const ew = wallOfTime(e);
              if (!sw || !ew) fail(`${at}: FREEBUSY ${JSON.stringify(p.toICALString().slice(0, 60))} is not a real period`, 'the file is damaged; export it again');
              const startMs = s.toUnixTime() * 1000;
              const endMs = Math.max(startMs, e.toUnixTime() * 1000);
              push({
                uid: `${fbUid}/${startMs}`,
                recurrence_id: null,
                title: type === 'BUSY-TENTATIVE' ? 'Busy (tentative)' : type === 'BUSY-UNAVAILABLE' ? 'Unavailable' : 'Busy',
                start: wallString(wallAt(startMs, 'UTC')),
                end: wallString(wallAt(endMs, 'UTC')),
                all_day: 0,
                tz: 'UTC',
                start_ms: startMs,
                end_ms: endMs,
                until_ms: endMs,
                rrule: null,
                exdates: null,
                location: null,
                notes: null,
                attendees: '[]',
                busy: 1,
                cancelled: false,
              });
            }
          }
          yield* out;
          out.length = 0;
        }
        const skipped = own.filter((c) => !['VEVENT', 'VFREEBUSY', 'VTIMEZONE'].includes(c.name)).map((c) => c.name);
        if (skipped.length) warn(`${skipped.length} ${[...new Set(skipped)].join('/')} component(s) skipped (only events and free/busy time are imported)`);
      }
    } catch (e) {
      refuse(e, text);
    }
    if (repairedLines.length) {
      warnings.unshift(`line ${repairedLines.slice(0, 5).join(', ')}${repairedLines.length > 5 ? ', …' : ''}: a time zone name with broken quotes was read as if quoted`);
      if (warnings.length > 20) warnings.length = 20;
    }
  }
  const emailName = name && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(name) ? (name as string).toLowerCase() : null;
  return { name, email: emailName, prodid, events: events(), warnings };
}
