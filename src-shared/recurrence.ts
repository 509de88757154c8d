/**
 * One validator for recurrence rules (RRULE values, RFC 5545 §3.3.10), used wherever a rule enters Tidy:
 * an .ics import, `tidy edit --every`, the tools, quick add. It reads the text itself (no ical.js), so a
 * rule ical.js would accept and then fail on while expanding (BYDAY=6MO), read back wrongly (COUNT=1e21)
 * or walk forever on (BYMONTH=2;BYMONTHDAY=30) is refused with one line naming the part. Never throws.
 */

export type RuleCheck = { ok: true; rule: string } | { ok: false; error: string };

export const FREQS = ['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
const DAY_CODES = new Set(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Bounds: a rule is a line of text; no list needs more values than a year has days. */
export const RULE_LIMITS = { maxChars: 1000, maxValues: 366, maxInterval: 10_000, maxCount: 2 ** 53 } as const;

const NUMBER_PARTS: Record<string, [number, number, boolean]> = {
  // [min, max, whether negative values (counted from the end) are allowed]
  BYSECOND: [0, 60, false],
  BYMINUTE: [0, 59, false],
  BYHOUR: [0, 23, false],
  BYMONTHDAY: [1, 31, true],
  BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true],
  BYMONTH: [1, 12, false],
  BYSETPOS: [1, 366, true],
};
const KNOWN = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'WKST', ...Object.keys(NUMBER_PARTS)]);

const shown = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

function validUntil(v: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/.exec(v);
  if (!m) return false;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((x) => x ?? '0');
  const t = new Date(Date.UTC(+y!, +mo! - 1, +d!));
  return +y! >= 1 && t.getUTCFullYear() === +y! && t.getUTCMonth() === +mo! - 1 && t.getUTCDate() === +d! && +h <= 23 && +mi <= 59 && +s <= 60;
}

/**
 * Checks an RRULE value ("RRULE:" prefix allowed, any case). `freqs` limits the frequencies (tasks repeat
 * DAILY to YEARLY). Returns the rule as Tidy stores it (upper case, no prefix) or one line naming the part.
 */
export function checkRule(text: unknown, opts: { freqs?: readonly string[] } = {}): RuleCheck {
  if (typeof text !== 'string') return { ok: false, error: 'the repeat rule is not text' };
  const rule = text.trim().replace(/^RRULE:/i, '').toUpperCase();
  if (rule === '') return { ok: false, error: 'the repeat rule is empty' };
  if (rule.length > RULE_LIMITS.maxChars) return { ok: false, error: `the repeat rule is ${rule.length} characters long (at most ${RULE_LIMITS.maxChars})` };
  const parts = new Map<string, string>();
  for (const piece of rule.split(';')) {
    const eq = piece.indexOf('=');
    const name = eq === -1 ? piece : piece.slice(0, eq);
    const value = eq === -1 ? '' : piece.slice(eq + 1);
    if (!/^[A-Z-]{1,20}$/.test(name) || value === '') return { ok: false, error: `${shown(piece || '(empty part)')} is not NAME=VALUE` };
    if (!KNOWN.has(name)) return { ok: false, error: `${shown(name)} is not a part of a repeat rule` };
    if (parts.has(name)) return { ok: false, error: `${name} is given twice` };
    parts.set(name, value);
  }
  const freq = parts.get('FREQ');
  if (!freq) return { ok: false, error: 'the repeat rule has no FREQ' };
  if (!(FREQS as readonly string[]).includes(freq)) return { ok: false, error: `FREQ=${shown(freq)} is not a frequency (DAILY, WEEKLY, MONTHLY, YEARLY, …)` };
  if (opts.freqs && !opts.freqs.includes(freq)) return { ok: false, error: `FREQ=${freq} is not supported here (${opts.freqs.join(', ')})` };

  const interval = parts.get('INTERVAL');
  if (interval !== undefined && !(/^\d{1,6}$/.test(interval) && +interval >= 1 && +interval <= RULE_LIMITS.maxInterval))
    return { ok: false, error: `INTERVAL=${shown(interval)} must be a whole number from 1 to ${RULE_LIMITS.maxInterval.toLocaleString('en')}` };
  const count = parts.get('COUNT');
  if (count !== undefined) {
    if (!/^\d+$/.test(count)) return { ok: false, error: `COUNT=${shown(count)} is not a whole number` };
    if (count.length > 16 || +count > RULE_LIMITS.maxCount) return { ok: false, error: `COUNT=${shown(count)} is more than 2^53` };
    if (+count < 1) return { ok: false, error: 'COUNT=0 gives no occurrence' };
  }
  const until = parts.get('UNTIL');
  if (until !== undefined && !validUntil(until)) return { ok: false, error: `UNTIL=${shown(until)} is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSSZ)` };
  const wkst = parts.get('WKST');
  if (wkst !== undefined && !DAY_CODES.has(wkst)) return { ok: false, error: `WKST=${shown(wkst)} is not a weekday (MO … SU)` };

  const numbers: Record<string, number[]> = {};
  for (const [name, [min, max, negative]] of Object.entries(NUMBER_PARTS)) {
    const value = parts.get(name);
    if (value === undefined) continue;
    const list = value.split(',');
    if (list.length > RULE_LIMITS.maxValues) return { ok: false, error: `${name} has more than ${RULE_LIMITS.maxValues} values` };
    const out: number[] = [];
    for (const v of list) {
      const n = /^[+-]?\d{1,3}$/.test(v) ? Number(v) : NaN;
      const a = Math.abs(n);
      if (!Number.isInteger(n) || a < min || a > max || (n < 0 && !negative) || (n === 0 && negative))
        return { ok: false, error: `${name}=${shown(v)} is out of range (${negative ? `±${min}` : min} to ${negative ? '±' : ''}${max})` };
      out.push(n);
    }
    numbers[name] = out;
  }
  const byday = parts.get('BYDAY');
  if (byday !== undefined) {
    const list = byday.split(',');
    if (list.length > RULE_LIMITS.maxValues) return { ok: false, error: `BYDAY has more than ${RULE_LIMITS.maxValues} values` };
    for (const v of list) {
      const m = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(v);
      if (!m || !DAY_CODES.has(m[2]!)) return { ok: false, error: `BYDAY=${shown(v)} is not a weekday (MO … SU, optionally with a number as in 2MO or -1FR)` };
      if (m[1] === undefined) continue;
      const n = Number(m[1]);
      if (freq !== 'MONTHLY' && freq !== 'YEARLY') return { ok: false, error: `BYDAY=${v}: a numbered weekday needs FREQ=MONTHLY or YEARLY` };
      const max = freq === 'MONTHLY' || numbers['BYMONTH'] ? 5 : 53;
      if (n === 0 || Math.abs(n) > max)
        return { ok: false, error: `BYDAY=${v}: a ${max === 5 ? 'month' : 'year'} has at most ${max} of each weekday` };
    }
  }
  if (numbers['BYWEEKNO'] && freq !== 'YEARLY') return { ok: false, error: 'BYWEEKNO needs FREQ=YEARLY' };
  if (numbers['BYYEARDAY'] && (freq === 'DAILY' || freq === 'WEEKLY' || freq === 'MONTHLY')) return { ok: false, error: `BYYEARDAY cannot be used with FREQ=${freq}` };
  if (numbers['BYMONTHDAY'] && freq === 'WEEKLY') return { ok: false, error: 'BYMONTHDAY cannot be used with FREQ=WEEKLY' };
  if (numbers['BYSETPOS'] && ![...parts.keys()].some((k) => k.startsWith('BY') && k !== 'BYSETPOS')) return { ok: false, error: 'BYSETPOS needs another BY… part to pick from' };
  const months = numbers['BYMONTH'];
  const monthDays = numbers['BYMONTHDAY'];
  if (months && monthDays && !months.some((m) => monthDays.some((d) => Math.abs(d) <= MONTH_DAYS[m - 1]!)))
    return { ok: false, error: `BYMONTH=${parts.get('BYMONTH')};BYMONTHDAY=${shown(parts.get('BYMONTHDAY')!)} never happens (no month has that day)` };
  return { ok: true, rule };
}
