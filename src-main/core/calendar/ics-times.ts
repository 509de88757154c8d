/**
 * Times in an .ics file (calendar/ics.ts parses the file): TZIDs resolved to IANA zones or to the file's
 * own VTIMEZONE definitions (bounded: ical.js expands a definition from its first DTSTART on), and a
 * DTSTART/DTEND/RECURRENCE-ID read as a wall time in a zone.
 */
import ICAL from 'ical.js';
import { fail } from '../fail';
import { ianaZone, parseWall, wallAt, wallString, wallToUtc, type Wall } from './zones';
import { checkRule } from '../../../src-shared/recurrence';

export interface TimeValue {
  wall: Wall;
  allDay: boolean;
  /** IANA zone, 'UTC', or null (floating). */
  tz: string | null;
  /** UTC ms (floating: as if UTC). */
  ms: number;
}

/** Bounds on a VTIMEZONE definition ical.js expands from its first DTSTART (often 1601) on. */
export const MAX_OBSERVANCES = 100;
export const MAX_OBSERVANCE_RDATES = 1000;

/**
 * Why a VTIMEZONE cannot be used safely, naming the line, or null: an offset that is not ±HHMM[SS]
 * (ical.js says only "Could not extract integer"), an observance that repeats other than yearly or
 * monthly (FREQ=SECONDLY from 1601 expanded to gigabytes), a bad rule, too many observances or dates.
 */
export function observanceProblem(vtz: ICAL.Component, lineOf: (content: string) => number | null): string | null {
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
export class Zones {
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

export function wallOfTime(t: ICAL.Time): Wall | null {
  const w: Wall = { y: t.year, m: t.month, d: t.day, h: t.isDate ? 0 : t.hour, mi: t.isDate ? 0 : t.minute, s: t.isDate ? 0 : Math.min(t.second, 59) };
  if (![w.y, w.m, w.d, w.h, w.mi, w.s].every(Number.isInteger) || w.y < 1000 || w.y > 9999) return null;
  return parseWall(wallString(w)) ? w : null;
}

export function readTime(prop: ICAL.Property, zones: Zones, floatingZone: string | null, what: string, where: string, warn: (w: string) => void): TimeValue {
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
