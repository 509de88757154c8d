/**
 * Time zones: wall-clock times in an IANA zone to UTC and back, with the zone data of the JavaScript
 * runtime (Intl), so DST transitions follow the tz database. iCalendar files name zones in many ways:
 * IANA names (Google, Apple), Windows names (Outlook/Exchange: "W. Europe Standard Time"), or a prefix
 * before an IANA name ("/mozilla.org/20050126_1/Europe/Berlin"); `ianaZone` maps each to an IANA name.
 */

import type { Wall } from '../../../src-shared/rule-walk';

/** A wall-clock time (what a clock on the wall of a zone shows): one type with the rule walk's. */
export type { Wall };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether the runtime knows this IANA zone. */
export function isIanaZone(zone: string): boolean {
  if (!zone || zone.length > 80) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `zone` at instant `ms`, from the runtime's tz data (slow: tens of microseconds). */
function wallFromIntl(ms: number, zone: string): Wall {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts['year']!, m: parts['month']!, d: parts['day']!, h: parts['hour']! % 24, mi: parts['minute']!, s: parts['second']! };
}

const wallMs = (w: Wall): number => Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s);

function utcWall(ms: number): Wall {
  const t = new Date(ms);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), s: t.getUTCSeconds() };
}

/**
 * Offsets by zone and quarter hour: every tz transition falls on a quarter hour, so one Intl call per
 * quarter hour and zone is enough (expanding two years of recurring events would otherwise make millions).
 */
const QUARTER = 15 * 60_000;
const DAY_MS = 86_400_000;
const offsets = new Map<string, number>();

function quarterOffset(ms: number, zone: string): number {
  const bucket = Math.floor(ms / QUARTER);
  const key = `${zone}|${bucket}`;
  let off = offsets.get(key);
  if (off === undefined) {
    const at = bucket * QUARTER;
    off = Math.round((wallMs(wallFromIntl(at, zone)) - at) / 60_000);
    if (offsets.size > 500_000) offsets.clear();
    offsets.set(key, off);
  }
  return off;
}

/**
 * Offsets by zone and UTC day: a day whose offset is the same at its start, middle and end has no
 * transition (no zone has two within half a day), so one lookup serves the whole day; a day with a
 * transition (NaN here) is read by the quarter hour. A year of occurrences costs about 1,100 Intl calls
 * instead of one per distinct quarter hour.
 */
const dayOffsets = new Map<string, Map<number, number>>();

/** The offset of `zone` from UTC at instant `ms`, in minutes (east positive). */
export function offsetAt(ms: number, zone: string): number {
  if (zone === 'UTC') return 0;
  let days = dayOffsets.get(zone);
  if (!days || days.size > 200_000) {
    if (dayOffsets.size > 1_000) dayOffsets.clear();
    days = new Map();
    dayOffsets.set(zone, days);
  }
  const day = Math.floor(ms / DAY_MS);
  let off = days.get(day);
  if (off === undefined) {
    const start = day * DAY_MS;
    const a = quarterOffset(start, zone);
    off = a === quarterOffset(start + DAY_MS / 2, zone) && a === quarterOffset(start + DAY_MS, zone) ? a : NaN;
    days.set(day, off);
  }
  return Number.isNaN(off) ? quarterOffset(ms, zone) : off;
}

/** The wall-clock time in `zone` at instant `ms`. */
export function wallAt(ms: number, zone: string): Wall {
  return utcWall(ms + offsetAt(ms, zone) * 60_000);
}

/**
 * The instant a wall-clock time in `zone` names. In a DST gap (02:30 on a spring-forward night) it is
 * moved forward by the gap, as RFC 5545 says; in an overlap the first (earlier) instant is taken.
 */
export function wallToUtc(w: Wall, zone: string): number {
  const guess = wallMs(w);
  if (zone === 'UTC') return guess;
  // The offsets a day either side bracket any transition near this wall time.
  const before = offsetAt(guess - 86_400_000, zone);
  const after = offsetAt(guess + 86_400_000, zone);
  const at = offsetAt(guess, zone);
  // No transition near: the one candidate below, valid or (never in practice) read as a gap, is this.
  if (before === after && after === at) return guess - at * 60_000;
  const valid = [before, after, at].map((o) => guess - o * 60_000).filter((t) => wallMs(wallAt(t, zone)) === guess);
  if (valid.length) return Math.min(...valid);
  // A gap: the wall time does not exist; read it with the offset from before the gap, which moves it forward.
  return guess - Math.min(before, after) * 60_000;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

export const wallDate = (w: Pick<Wall, 'y' | 'm' | 'd'>): string => `${pad(w.y, 4)}-${pad(w.m)}-${pad(w.d)}`;
export const wallString = (w: Wall): string => `${wallDate(w)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;

/** ISO 8601 with the zone's offset: 2026-11-30T10:00:00+01:00. */
export function isoInZone(ms: number, zone: string): string {
  const off = offsetAt(ms, zone);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${wallString(wallAt(ms, zone))}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** Parses "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM[:SS]" (no offset) into a wall time; null if it is not one. */
export function parseWall(text: string): Wall | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (!m) return null;
  const w: Wall = { y: +m[1]!, m: +m[2]!, d: +m[3]!, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0) };
  const check = new Date(Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s));
  if (check.getUTCFullYear() !== w.y || check.getUTCMonth() !== w.m - 1 || check.getUTCDate() !== w.d || w.h > 23 || w.mi > 59 || w.s > 59) return null;
  return w;
}

/** Adds days to a date (calendar arithmetic, no zone involved). */
export function addDays(w: Wall, days: number): Wall {
  const t = new Date(Date.UTC(w.y, w.m - 1, w.d + days, w.h, w.mi, w.s));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), s: t.getUTCSeconds() };
}

/** Day of the week of a date: 0 Sunday … 6 Saturday. */
export const weekday = (w: Pick<Wall, 'y' | 'm' | 'd'>): number => new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay();

/**
 * Windows time-zone names (Outlook, Exchange) to IANA, after the Unicode CLDR windowsZones table
 * (territory "001", the zone each name stands for).
 */
const WINDOWS_ZONES: Record<string, string> = {
  'Dateline Standard Time': 'Etc/GMT+12',
  'UTC-11': 'Etc/GMT+11',
  'Aleutian Standard Time': 'America/Adak',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Marquesas Standard Time': 'Pacific/Marquesas',
  'Alaskan Standard Time': 'America/Anchorage',
  'UTC-09': 'Etc/GMT+9',
  'Pacific Standard Time (Mexico)': 'America/Tijuana',
  'UTC-08': 'Etc/GMT+8',
  'Pacific Standard Time': 'America/Los_Angeles',
  'US Mountain Standard Time': 'America/Phoenix',
  'Mountain Standard Time (Mexico)': 'America/Mazatlan',
  'Mountain Standard Time': 'America/Denver',
  'Yukon Standard Time': 'America/Whitehorse',
  'Central America Standard Time': 'America/Guatemala',
  'Central Standard Time': 'America/Chicago',
  'Easter Island Standard Time': 'Pacific/Easter',
  'Central Standard Time (Mexico)': 'America/Mexico_City',
  'Canada Central Standard Time': 'America/Regina',
  'SA Pacific Standard Time': 'America/Bogota',
  'Eastern Standard Time (Mexico)': 'America/Cancun',
  'Eastern Standard Time': 'America/New_York',
  'Haiti Standard Time': 'America/Port-au-Prince',
  'Cuba Standard Time': 'America/Havana',
  'US Eastern Standard Time': 'America/Indianapolis',
  'Turks And Caicos Standard Time': 'America/Grand_Turk',
  'Paraguay Standard Time': 'America/Asuncion',
  'Atlantic Standard Time': 'America/Halifax',
  'Venezuela Standard Time': 'America/Caracas',
  'Central Brazilian Standard Time': 'America/Cuiaba',
  'SA Western Standard Time': 'America/La_Paz',
  'Pacific SA Standard Time': 'America/Santiago',
  'Newfoundland Standard Time': 'America/St_Johns',
  'Tocantins Standard Time': 'America/Araguaina',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'SA Eastern Standard Time': 'America/Cayenne',
  'Argentina Standard Time': 'America/Buenos_Aires',
  'Greenland Standard Time': 'America/Godthab',
  'Montevideo Standard Time': 'America/Montevideo',
  'Magallanes Standard Time': 'America/Punta_Arenas',
  'Saint Pierre Standard Time': 'America/Miquelon',
  'Bahia Standard Time': 'America/Bahia',
  'UTC-02': 'Etc/GMT+2',
  'Mid-Atlantic Standard Time': 'Etc/GMT+2',
  'Azores Standard Time': 'Atlantic/Azores',
  'Cape Verde Standard Time': 'Atlantic/Cape_Verde',
  UTC: 'Etc/UTC',
  'Coordinated Universal Time': 'Etc/UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'Sao Tome Standard Time': 'Africa/Sao_Tome',
  'Morocco Standard Time': 'Africa/Casablanca',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Romance Standard Time': 'Europe/Paris',
  'Central European Standard Time': 'Europe/Warsaw',
  'W. Central Africa Standard Time': 'Africa/Lagos',
  'Jordan Standard Time': 'Asia/Amman',
  'GTB Standard Time': 'Europe/Bucharest',
  'Middle East Standard Time': 'Asia/Beirut',
  'Egypt Standard Time': 'Africa/Cairo',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'Syria Standard Time': 'Asia/Damascus',
  'West Bank Standard Time': 'Asia/Hebron',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'FLE Standard Time': 'Europe/Kiev',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Sudan Standard Time': 'Africa/Juba',
  'Kaliningrad Standard Time': 'Europe/Kaliningrad',
  'Sudan Standard Time': 'Africa/Khartoum',
  'Libya Standard Time': 'Africa/Tripoli',
  'Namibia Standard Time': 'Africa/Windhoek',
  'Arabic Standard Time': 'Asia/Baghdad',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Arab Standard Time': 'Asia/Riyadh',
  'Belarus Standard Time': 'Europe/Minsk',
  'Russian Standard Time': 'Europe/Moscow',
  'E. Africa Standard Time': 'Africa/Nairobi',
  'Volgograd Standard Time': 'Europe/Volgograd',
  'Iran Standard Time': 'Asia/Tehran',
  'Arabian Standard Time': 'Asia/Dubai',
  'Astrakhan Standard Time': 'Europe/Astrakhan',
  'Azerbaijan Standard Time': 'Asia/Baku',
  'Russia Time Zone 3': 'Europe/Samara',
  'Mauritius Standard Time': 'Indian/Mauritius',
  'Saratov Standard Time': 'Europe/Saratov',
  'Georgian Standard Time': 'Asia/Tbilisi',
  'Caucasus Standard Time': 'Asia/Yerevan',
  'Afghanistan Standard Time': 'Asia/Kabul',
  'West Asia Standard Time': 'Asia/Tashkent',
  'Ekaterinburg Standard Time': 'Asia/Yekaterinburg',
  'Pakistan Standard Time': 'Asia/Karachi',
  'Qyzylorda Standard Time': 'Asia/Qyzylorda',
  'India Standard Time': 'Asia/Calcutta',
  'Sri Lanka Standard Time': 'Asia/Colombo',
  'Nepal Standard Time': 'Asia/Katmandu',
  'Central Asia Standard Time': 'Asia/Almaty',
  'Bangladesh Standard Time': 'Asia/Dhaka',
  'Omsk Standard Time': 'Asia/Omsk',
  'Myanmar Standard Time': 'Asia/Rangoon',
  'SE Asia Standard Time': 'Asia/Bangkok',
  'Altai Standard Time': 'Asia/Barnaul',
  'W. Mongolia Standard Time': 'Asia/Hovd',
  'North Asia Standard Time': 'Asia/Krasnoyarsk',
  'N. Central Asia Standard Time': 'Asia/Novosibirsk',
  'Tomsk Standard Time': 'Asia/Tomsk',
  'China Standard Time': 'Asia/Shanghai',
  'North Asia East Standard Time': 'Asia/Irkutsk',
  'Singapore Standard Time': 'Asia/Singapore',
  'W. Australia Standard Time': 'Australia/Perth',
  'Taipei Standard Time': 'Asia/Taipei',
  'Ulaanbaatar Standard Time': 'Asia/Ulaanbaatar',
  'Aus Central W. Standard Time': 'Australia/Eucla',
  'Transbaikal Standard Time': 'Asia/Chita',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'North Korea Standard Time': 'Asia/Pyongyang',
  'Korea Standard Time': 'Asia/Seoul',
  'Yakutsk Standard Time': 'Asia/Yakutsk',
  'Cen. Australia Standard Time': 'Australia/Adelaide',
  'AUS Central Standard Time': 'Australia/Darwin',
  'E. Australia Standard Time': 'Australia/Brisbane',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'West Pacific Standard Time': 'Pacific/Port_Moresby',
  'Tasmania Standard Time': 'Australia/Hobart',
  'Vladivostok Standard Time': 'Asia/Vladivostok',
  'Lord Howe Standard Time': 'Australia/Lord_Howe',
  'Bougainville Standard Time': 'Pacific/Bougainville',
  'Russia Time Zone 10': 'Asia/Srednekolymsk',
  'Magadan Standard Time': 'Asia/Magadan',
  'Norfolk Standard Time': 'Pacific/Norfolk',
  'Sakhalin Standard Time': 'Asia/Sakhalin',
  'Central Pacific Standard Time': 'Pacific/Guadalcanal',
  'Russia Time Zone 11': 'Asia/Kamchatka',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'UTC+12': 'Etc/GMT-12',
  'Fiji Standard Time': 'Pacific/Fiji',
  'Chatham Islands Standard Time': 'Pacific/Chatham',
  'UTC+13': 'Etc/GMT-13',
  'Tonga Standard Time': 'Pacific/Tongatapu',
  'Samoa Standard Time': 'Pacific/Apia',
  'Line Islands Standard Time': 'Pacific/Kiritimati',
};

const windowsByKey = new Map(Object.entries(WINDOWS_ZONES).map(([k, v]) => [k.toLowerCase(), v]));

/**
 * The display names old Exchange and Outlook versions wrote as TZID ("(GMT+10:00) Canberra, Melbourne,
 * Sydney"), without their offset prefix, to IANA (after the Windows registry's display names).
 */
const DISPLAY_ZONES: Record<string, string> = {
  'International Date Line West': 'Etc/GMT+12',
  'Midway Island, Samoa': 'Pacific/Pago_Pago',
  Hawaii: 'Pacific/Honolulu',
  Alaska: 'America/Anchorage',
  'Pacific Time (US & Canada)': 'America/Los_Angeles',
  'Pacific Time (US & Canada); Tijuana': 'America/Los_Angeles',
  'Pacific Time (US and Canada); Tijuana': 'America/Los_Angeles',
  Tijuana: 'America/Tijuana',
  'Baja California': 'America/Tijuana',
  Arizona: 'America/Phoenix',
  'Mountain Time (US & Canada)': 'America/Denver',
  'Mountain Time (US and Canada)': 'America/Denver',
  'Chihuahua, La Paz, Mazatlan': 'America/Mazatlan',
  'Central America': 'America/Guatemala',
  'Central Time (US & Canada)': 'America/Chicago',
  'Central Time (US and Canada)': 'America/Chicago',
  'Guadalajara, Mexico City, Monterrey': 'America/Mexico_City',
  Saskatchewan: 'America/Regina',
  'Bogota, Lima, Quito': 'America/Bogota',
  'Bogota, Lima, Quito, Rio Branco': 'America/Bogota',
  'Eastern Time (US & Canada)': 'America/New_York',
  'Eastern Time (US and Canada)': 'America/New_York',
  'Indiana (East)': 'America/Indianapolis',
  Caracas: 'America/Caracas',
  'Atlantic Time (Canada)': 'America/Halifax',
  'Georgetown, La Paz, Manaus, San Juan': 'America/La_Paz',
  'Caracas, La Paz': 'America/La_Paz',
  Santiago: 'America/Santiago',
  Newfoundland: 'America/St_Johns',
  Brasilia: 'America/Sao_Paulo',
  'Buenos Aires': 'America/Buenos_Aires',
  'Buenos Aires, Georgetown': 'America/Buenos_Aires',
  Greenland: 'America/Godthab',
  Montevideo: 'America/Montevideo',
  'Mid-Atlantic': 'Etc/GMT+2',
  Azores: 'Atlantic/Azores',
  'Cape Verde Is.': 'Atlantic/Cape_Verde',
  'Casablanca, Monrovia': 'Africa/Casablanca',
  Casablanca: 'Africa/Casablanca',
  'Monrovia, Reykjavik': 'Atlantic/Reykjavik',
  'Coordinated Universal Time': 'Etc/UTC',
  'Greenwich Mean Time : Dublin, Edinburgh, Lisbon, London': 'Europe/London',
  'Greenwich Mean Time: Dublin, Edinburgh, Lisbon, London': 'Europe/London',
  'Dublin, Edinburgh, Lisbon, London': 'Europe/London',
  'Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna': 'Europe/Berlin',
  'Belgrade, Bratislava, Budapest, Ljubljana, Prague': 'Europe/Budapest',
  'Brussels, Copenhagen, Madrid, Paris': 'Europe/Paris',
  'Sarajevo, Skopje, Warsaw, Zagreb': 'Europe/Warsaw',
  'Sarajevo, Skopje, Sofija, Vilnius, Warsaw, Zagreb': 'Europe/Warsaw',
  'West Central Africa': 'Africa/Lagos',
  Amman: 'Asia/Amman',
  'Athens, Bucharest': 'Europe/Bucharest',
  'Athens, Bucharest, Istanbul': 'Europe/Bucharest',
  'Athens, Istanbul, Minsk': 'Europe/Bucharest',
  Bucharest: 'Europe/Bucharest',
  Beirut: 'Asia/Beirut',
  Cairo: 'Africa/Cairo',
  'Harare, Pretoria': 'Africa/Johannesburg',
  'Helsinki, Kyiv, Riga, Sofia, Tallinn, Vilnius': 'Europe/Kiev',
  'Helsinki, Kiev, Riga, Sofia, Tallinn, Vilnius': 'Europe/Kiev',
  Jerusalem: 'Asia/Jerusalem',
  Minsk: 'Europe/Minsk',
  Windhoek: 'Africa/Windhoek',
  Baghdad: 'Asia/Baghdad',
  'Kuwait, Riyadh': 'Asia/Riyadh',
  'Moscow, St. Petersburg, Volgograd': 'Europe/Moscow',
  'Moscow, St. Petersburg': 'Europe/Moscow',
  Nairobi: 'Africa/Nairobi',
  Istanbul: 'Europe/Istanbul',
  Tehran: 'Asia/Tehran',
  'Abu Dhabi, Muscat': 'Asia/Dubai',
  Baku: 'Asia/Baku',
  'Baku, Tbilisi, Yerevan': 'Asia/Baku',
  Tbilisi: 'Asia/Tbilisi',
  Yerevan: 'Asia/Yerevan',
  Kabul: 'Asia/Kabul',
  Ekaterinburg: 'Asia/Yekaterinburg',
  'Islamabad, Karachi, Tashkent': 'Asia/Karachi',
  'Islamabad, Karachi': 'Asia/Karachi',
  Tashkent: 'Asia/Tashkent',
  'Chennai, Kolkata, Mumbai, New Delhi': 'Asia/Calcutta',
  'Sri Jayawardenepura': 'Asia/Colombo',
  Kathmandu: 'Asia/Katmandu',
  'Almaty, Novosibirsk': 'Asia/Almaty',
  'Astana, Dhaka': 'Asia/Dhaka',
  Astana: 'Asia/Almaty',
  Dhaka: 'Asia/Dhaka',
  'Yangon (Rangoon)': 'Asia/Rangoon',
  Rangoon: 'Asia/Rangoon',
  'Bangkok, Hanoi, Jakarta': 'Asia/Bangkok',
  Krasnoyarsk: 'Asia/Krasnoyarsk',
  Novosibirsk: 'Asia/Novosibirsk',
  'Beijing, Chongqing, Hong Kong, Urumqi': 'Asia/Shanghai',
  'Beijing, Chongqing, Hong Kong SAR, Urumqi': 'Asia/Shanghai',
  'Irkutsk, Ulaan Bataar': 'Asia/Irkutsk',
  Irkutsk: 'Asia/Irkutsk',
  'Kuala Lumpur, Singapore': 'Asia/Singapore',
  Perth: 'Australia/Perth',
  Taipei: 'Asia/Taipei',
  'Osaka, Sapporo, Tokyo': 'Asia/Tokyo',
  Seoul: 'Asia/Seoul',
  Yakutsk: 'Asia/Yakutsk',
  Adelaide: 'Australia/Adelaide',
  Darwin: 'Australia/Darwin',
  Brisbane: 'Australia/Brisbane',
  'Canberra, Melbourne, Sydney': 'Australia/Sydney',
  'Guam, Port Moresby': 'Pacific/Port_Moresby',
  Hobart: 'Australia/Hobart',
  Vladivostok: 'Asia/Vladivostok',
  'Magadan, Solomon Is., New Caledonia': 'Asia/Magadan',
  Magadan: 'Asia/Magadan',
  'Solomon Is., New Caledonia': 'Pacific/Guadalcanal',
  'Auckland, Wellington': 'Pacific/Auckland',
  'Fiji, Kamchatka, Marshall Is.': 'Pacific/Fiji',
  Fiji: 'Pacific/Fiji',
  "Nuku'alofa": 'Pacific/Tongatapu',
  Samoa: 'Pacific/Apia',
};
const normalDisplay = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').replace(/\s*([,;:])\s*/g, '$1 ').trim();
const displayByKey = new Map(Object.entries(DISPLAY_ZONES).map(([k, v]) => [normalDisplay(k), v]));

/**
 * An old Exchange display name ("(GMT+10:00) Canberra, Melbourne, Sydney") to IANA: the cities looked up
 * (as written, or a known city list that holds the first city), else the fixed offset of the prefix
 * (Etc/GMT-10) when it is a whole number of hours. Null when it is not one.
 */
function displayZone(id: string): string | null {
  const m = /^\((?:GMT|UTC)\s*(?:([+-])(\d{1,2})(?::?(\d{2}))?)?\)\s*(.*)$/i.exec(id);
  if (!m) return null;
  const cities = normalDisplay(m[4] ?? '');
  const exact = displayByKey.get(cities) ?? windowsByKey.get(cities);
  if (exact) return exact;
  const first = cities.split(/[,;]/)[0]!.trim();
  if (first) for (const [key, zone] of displayByKey) if (key.split(/[,;]\s*/).map((c) => c.trim()).includes(first)) return zone;
  if (!m[1]) return 'UTC';
  if (m[3] && m[3] !== '00') return null;
  const hours = Number(m[2]);
  if (hours === 0) return 'UTC';
  if (hours > 14) return null;
  // Etc/GMT zones count the other way: UTC+10 is Etc/GMT-10.
  return `Etc/GMT${m[1] === '+' ? '-' : '+'}${hours}`;
}

/**
 * The IANA zone a TZID names, or null: an IANA name as it is; a Windows name through the CLDR table
 * (also quoted, or after a "(UTC+01:00) " display prefix that some exporters keep); the IANA name at the
 * end of a path-like TZID ("/mozilla.org/20050126_1/Europe/Berlin", "/softwarestudio.org/.../Europe/Paris").
 */
export function ianaZone(tzid: string | null | undefined): string | null {
  if (!tzid) return null;
  const known = resolved.get(tzid);
  if (known !== undefined) return known;
  const found = resolveZone(tzid);
  if (resolved.size > 10_000) resolved.clear();
  resolved.set(tzid, found);
  return found;
}

const resolved = new Map<string, string | null>();

function resolveZone(tzid: string): string | null {
  const id = tzid.trim().replace(/^"|"$/g, '');
  if (/^(utc|gmt|z|etc\/utc|etc\/gmt)$/i.test(id)) return 'UTC';
  if (id.includes('/') && isIanaZone(id)) return id;
  const windows = windowsByKey.get(id.toLowerCase()) ?? windowsByKey.get(id.replace(/^\((?:UTC|GMT)[^)]*\)\s*/i, '').toLowerCase());
  if (windows) return windows;
  const display = displayZone(id);
  if (display) return display;
  const parts = id.split('/').filter(Boolean);
  for (let i = 0; i < parts.length - 1; i++) {
    const tail = parts.slice(i).join('/');
    if (isIanaZone(tail) && tail.includes('/')) return tail;
  }
  if (isIanaZone(id) && /^[A-Za-z]/.test(id)) return id;
  return null;
}

/** The time zone of this machine (the user's), as IANA. */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
