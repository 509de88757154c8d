/**
 * iCalendar (RFC 5545) out: the local calendar as an .ics file and one booking as an invitation, written
 * by ical.js, every text escaped (icsText). Reading .ics files is calendar/ics.ts.
 */
import ICAL from 'ical.js';
import type { Attendee } from './ics';

export interface ExportEvent {
  id: string;
  uid: string;
  title: string;
  startMs: number;
  endMs: number;
  allDay: boolean;
  startDate: string;
  endDate: string;
  location: string | null;
  notes: string | null;
  attendees: Attendee[];
  cancelled: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * Text as Tidy writes it into any iCalendar property (RFC 5545 §3.3.11): line breaks of every kind (CR LF,
 * a bare CR, U+2028/2029, NEL) become one LF, which the writer escapes as \n, so no text can start a line
 * of its own (an injected VEVENT); other control characters (ESC, NUL, DEL, C1) and bidirectional
 * controls are dropped; a lone surrogate becomes U+FFFD. Used for every text Tidy writes (summaries,
 * locations, descriptions, categories, names), by `export --format ical`, `cal export` and `--invite`.
 */
export function icsText(text: string): string {
  return (
    String(text)
      .replace(/\r\n|[\r\u0085\u2028\u2029]/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
  );
}

/** A parameter value (CN="…"): as icsText, on one line, without the double quote a parameter cannot hold. */
const icsParam = (text: string): string => icsText(text).replace(/\n/g, ' ').replace(/"/g, "'");

const utcTime = (ms: number): ICAL.Time => ICAL.Time.fromJSDate(new Date(ms), true);
const dateTime = (date: string): ICAL.Time => ICAL.Time.fromDateString(date);

function veventOf(e: ExportEvent, invite: boolean): ICAL.Component {
  const v = new ICAL.Component('vevent');
  v.addPropertyWithValue('uid', icsParam(e.uid));
  v.addPropertyWithValue('dtstamp', utcTime(Date.now()));
  v.addPropertyWithValue('created', utcTime(Date.parse(e.createdAt)));
  v.addPropertyWithValue('last-modified', utcTime(Date.parse(e.updatedAt)));
  if (e.allDay) {
    v.addPropertyWithValue('dtstart', dateTime(e.startDate));
    v.addPropertyWithValue('dtend', dateTime(e.endDate));
  } else {
    v.addPropertyWithValue('dtstart', utcTime(e.startMs));
    v.addPropertyWithValue('dtend', utcTime(e.endMs));
  }
  v.addPropertyWithValue('summary', icsText(e.title));
  if (e.location) v.addPropertyWithValue('location', icsText(e.location));
  if (e.notes) v.addPropertyWithValue('description', icsText(e.notes));
  v.addPropertyWithValue('status', e.cancelled ? 'CANCELLED' : 'CONFIRMED');
  v.addPropertyWithValue('sequence', 0);
  for (const a of e.attendees) {
    if (!a.email) continue;
    const p = new ICAL.Property('attendee');
    p.setValue(`mailto:${icsParam(a.email).replace(/[\s,;]/g, '')}`);
    if (a.name) p.setParameter('cn', icsParam(a.name));
    p.setParameter('role', 'REQ-PARTICIPANT');
    p.setParameter('partstat', 'NEEDS-ACTION');
    if (invite) p.setParameter('rsvp', 'TRUE');
    v.addProperty(p);
  }
  return v;
}

function vcalendar(name: string | null, method: string | null): ICAL.Component {
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('prodid', '-//Tidy//Tidy Calendar//EN');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  if (method) cal.addPropertyWithValue('method', method);
  if (name) cal.addPropertyWithValue('x-wr-calname', icsParam(name)); // an X- property is written unescaped: one line
  return cal;
}

/** The local calendar as an iCalendar file (times in UTC, so no VTIMEZONE is needed). */
export function exportIcs(name: string, events: readonly ExportEvent[]): string {
  const cal = vcalendar(name, 'PUBLISH');
  for (const e of events) cal.addSubcomponent(veventOf(e, false));
  return cal.toString().replace(/\r?\n/g, '\r\n') + '\r\n';
}

/** One booking as an invitation for its attendees (RFC 5546 METHOD:REQUEST). */
export function inviteIcs(event: ExportEvent): string {
  const cal = vcalendar(null, event.cancelled ? 'CANCEL' : 'REQUEST');
  cal.addSubcomponent(veventOf(event, true));
  return cal.toString().replace(/\r?\n/g, '\r\n') + '\r\n';
}
