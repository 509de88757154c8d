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
import { ICS_LIMITS, icsTooLarge, lineInPiece, parseJcal, rawEvents, rawTime, repairQuoting, walkIcs, type Piece, type RawProp } from './ics-text';
import { contentLines, textSource, type IcsSource } from './ics-lines';

import { readTime, wallOfTime, Zones, type TimeValue } from './ics-times';
export { ICS_LIMITS, sizeWords } from './ics-text';

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


const clean = (v: unknown, max = ICS_LIMITS.maxText): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.normalize('NFC').trim();
  return t ? t.slice(0, max) : null;
};

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
function refuse(e: unknown, where: Piece | null): never {
  if (e instanceof DomainError) throw e;
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 120);
  const quoted = /"([^"]*)"$/.exec(message)?.[1];
  const line = quoted && where ? lineInPiece(where, quoted) : null;
  return fail(`${line ? `line ${line}: ` : ''}the file could not be read (${message})`, 'the file is damaged; export it again from the calendar app');
}

/** A string that shares no memory with the text it was cut from (a key kept for the whole import must not keep its event's text). */
const unshared = (s: string): string => (s.length > 12 ? (JSON.parse(JSON.stringify(s)) as string) : s);

/** What is known of one VCALENDAR of the file before its events are read, and what its events share. */
interface Calendar {
  method: string;
  zones: Zones;
  floatingZone: string | null;
  skipped: string[];
  skippedCount: number;
  masters: Map<string, { tz: string | null; allDay: boolean }>;
  seenUids: Map<string, number>;
}

/**
 * Reads an .ics file (its text, or a source that reads it in pieces: calendar/ics-lines.ts) one event at a
 * time, so a 64 MB file is never one string nor one tree in memory. A first pass checks the shape line by
 * line (size, nesting, pairs) and reads the VCALENDAR's own properties and time zones (which may come
 * anywhere); then each VEVENT is parsed alone as `events` is iterated, in a second pass; the occurrences
 * events change (which name their event) and free/busy time come in a third, only if the file has any. A
 * DomainError naming the line may come from the iteration: the caller's transaction makes the import all
 * or nothing.
 */
export function streamIcs(input: string | IcsSource): IcsStream {
  const source = typeof input === 'string' ? textSource(input) : input;
  try {
    return openIcs(source);
  } catch (e) {
    return refuse(e, null);
  }
}

function openIcs(source: IcsSource): IcsStream {
  if (source.bytes > ICS_LIMITS.maxBytes) {
    const { error, hint } = icsTooLarge(source.bytes);
    fail(error, hint);
  }
  const warnings: string[] = [];
  const warn = (w: string): void => {
    if (warnings.length < 20) warnings.push(w);
  };
  const repairedLines: number[] = [];
  /** One component's text, its quoting repaired, parsed alone. */
  const parse = (p: Piece): { comp: ICAL.Component; source: string } => {
    const repair = repairQuoting(p.text, (i) => p.lines[i] ?? p.line);
    for (const l of repair.repaired) if (repairedLines.length < 1000) repairedLines.push(l);
    return { comp: parseJcal(repair.text, (content) => lineInPiece(p, content))[0]!, source: repair.text };
  };
  let name: string | null = null;
  let prodid: string | null = null;
  const calendars: Calendar[] = [];
  const zonePieces: Piece[][] = [];
  const overrides = new Set<number>();
  let freeBusy = false;
  const seen = (name: string, _line: number, root: number): void => {
    if (name === 'VFREEBUSY') freeBusy = true;
    else if (name !== 'VEVENT' && name !== 'VTIMEZONE') {
      const skipped = (skippedOf[root] ??= { names: [], count: 0 });
      skipped.count++;
      if (!skipped.names.includes(name) && skipped.names.length < 20) skipped.names.push(name);
    }
  };
  const skippedOf: { names: string[]; count: number }[] = [];
  let where: Piece | null = null;
  try {
    for (const p of walkIcs(contentLines(source.open()), { want: (n) => n === 'VTIMEZONE', heads: true, seen, overrides })) {
      where = p;
      if (p.name === 'VTIMEZONE') {
        (zonePieces[p.root] ??= []).push(p);
        continue;
      }
      // The VCALENDAR's own properties (its END is read after all its components).
      const cal = parseJcal(p.text, (content) => lineInPiece(p, content))[0]!;
      if (cal.name !== 'vcalendar') fail(`the file's top component is ${cal.name.toUpperCase()}, not VCALENDAR`, 'import an iCalendar (.ics) file');
      name ??= clean(cal.getFirstPropertyValue('x-wr-calname'), 200);
      prodid ??= clean(cal.getFirstPropertyValue('prodid'), 200);
      const method = String(cal.getFirstPropertyValue('method') ?? '').toUpperCase();
      const zoneTexts = zonePieces[p.root] ?? [];
      const zones = new Zones(
        zoneTexts.map((z) => {
          where = z;
          return parse(z).comp;
        }),
        warn,
        (content) => {
          for (const z of zoneTexts) {
            const line = lineInPiece(z, content);
            if (line !== null) return line;
          }
          return null;
        },
      );
      zonePieces[p.root] = [];
      const wrZone = cal.getFirstPropertyValue('x-wr-timezone');
      const floatingZone = typeof wrZone === 'string' ? ianaZone(wrZone) : null;
      const skipped = skippedOf[p.root] ?? { names: [], count: 0 };
      calendars[p.root] = { method, zones, floatingZone, skipped: skipped.names, skippedCount: skipped.count, masters: new Map(), seenUids: new Map() };
    }
  } catch (e) {
    refuse(e, where);
  }
  const calendarOf = (p: Piece): Calendar => calendars[p.root] ?? fail('the file changed while it was read', 'import it again once it is saved');

  let count = 0;
  /** What the component just read gave (a free/busy component may give many). */
  const ready: EventData[] = [];
  const push = (e: EventData): void => {
    count++;
    ready.push(e);
  };
  const readEvent = (ev: ICAL.Component, c: Piece, source: string): void => {
    const { method, zones, floatingZone, masters, seenUids } = calendarOf(c);
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
      seenUids.set(unshared(uid), n);
      if (n > 1) uid = `${uid}#${n}`;
      const raw = rawEvents(source, (i) => c.lines[i] ?? c.line, 1).get(c.line);
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
      masters.set(unshared(uid), { tz: start.tz, allDay: start.allDay });
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
  // Free/busy publications (Zimbra, Exchange): each busy period is an event called "Busy".
  const readFreeBusy = (fb: ICAL.Component, c: Piece): void => {
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
  };
  function* events(): Generator<EventData> {
    let at: Piece | null = null;
    try {
      // Events first, then the occurrences they change (which name their event) and free/busy time.
      for (const p of walkIcs(contentLines(source.open()), { want: (n, line) => n === 'VEVENT' && !overrides.has(line) })) {
        at = p;
        const { comp, source: repaired } = parse(p);
        readEvent(comp, p, repaired);
        yield* ready;
        ready.length = 0;
      }
      if (overrides.size || freeBusy) {
        for (const p of walkIcs(contentLines(source.open()), { want: (n, line) => (n === 'VEVENT' && overrides.has(line)) || n === 'VFREEBUSY' })) {
          at = p;
          const { comp, source: repaired } = parse(p);
          if (p.name === 'VEVENT') readEvent(comp, p, repaired);
          else readFreeBusy(comp, p);
          yield* ready;
          ready.length = 0;
        }
      }
      at = null;
      for (const cal of calendars) {
        if (cal?.skippedCount) warn(`${cal.skippedCount} ${cal.skipped.join('/')} component(s) skipped (only events and free/busy time are imported)`);
      }
    } catch (e) {
      refuse(e, at);
    }
    if (repairedLines.length) {
      warnings.unshift(`line ${repairedLines.slice(0, 5).join(', ')}${repairedLines.length > 5 ? ', …' : ''}: a time zone name with broken quotes was read as if quoted`);
      if (warnings.length > 20) warnings.length = 20;
    }
  }
  const emailName = name && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(name) ? (name as string).toLowerCase() : null;
  return { name, email: emailName, prodid, events: events(), warnings };
}
