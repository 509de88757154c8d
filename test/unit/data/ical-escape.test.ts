// iCalendar output under attack (issue 28 item 7): a bare CR, LF, ESC or bidi control in a task's text,
// an event's title, location, description or an attendee's name must not start a line of its own (an
// injected VEVENT) nor go out raw, in `export --format ical`, `cal export` and `--invite` alike.
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { addTask } from '../../../src-main/core';
import { exportIcs, icsText, inviteIcs, type ExportEvent } from '../../../src-main/core/calendar/ics-export';
import { exportIcal } from '../../../src-main/core/data';
import { okValue, tempDb, userCtx } from '../../support/db';

const HOSTILE = 'Lunch\rEND:VEVENT\rBEGIN:VEVENT\r\nSUMMARY:evil\nX\u001b[31mred\u202eflipped\u2066\u0000\u0085next\u2028line\ud800';

/** Checks a written calendar: every line ends in CR LF, no control or bidi character, no injected line. */
function assertClean(text: string): void {
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  const lines = text.split('\r\n');
  expect(lines.filter((l) => l === 'BEGIN:VEVENT' || l === 'BEGIN:VTODO').length).toBeLessThanOrEqual(1);
  expect(lines.some((l) => l.startsWith('SUMMARY:evil'))).toBe(false);
}

const event = (over: Partial<ExportEvent> = {}): ExportEvent => ({
  id: 'e1',
  uid: 'e1-x@tidy',
  title: HOSTILE,
  startMs: Date.UTC(2030, 0, 5, 9),
  endMs: Date.UTC(2030, 0, 5, 10),
  allDay: false,
  startDate: '2030-01-05',
  endDate: '2030-01-05',
  location: HOSTILE,
  notes: HOSTILE,
  attendees: [{ name: 'Eve "the" \r\nBEGIN:VEVENT', email: 'eve@example.com' }],
  cancelled: false,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  ...over,
});

describe('icsText', () => {
  it('turns every line break into one LF, drops control and bidi characters, repairs lone surrogates', () => {
    expect(icsText('a\r\nb\rc\nd\u2028e\u0085f')).toBe('a\nb\nc\nd\ne\nf');
    expect(icsText('x\u001b[31my\u202ez\u2066\u0000\u007f\u009b')).toBe('x[31myz');
    expect(icsText('tab\tkept, ünïcode ✓ 😀')).toBe('tab\tkept, ünïcode ✓ 😀');
    expect(icsText('bad\ud800end')).toBe('bad\ufffdend');
  });
});

describe('iCalendar output escapes every text it writes', () => {
  it('cal export and --invite: title, location, description and attendee names stay inside their property', () => {
    for (const text of [exportIcs('Personal\r\nBEGIN:VEVENT', [event()]), inviteIcs(event())]) {
      assertClean(text);
      const cal = new ICAL.Component(ICAL.parse(text));
      const vevents = cal.getAllSubcomponents('vevent');
      expect(vevents).toHaveLength(1);
      const summary = String(vevents[0]!.getFirstPropertyValue('summary'));
      expect(summary.startsWith('Lunch\nEND:VEVENT\nBEGIN:VEVENT\nSUMMARY:evil\nX[31mredflipped')).toBe(true);
      expect(vevents[0]!.getFirstProperty('attendee')!.getParameter('cn')).toBe("Eve 'the'  BEGIN:VEVENT");
    }
  });

  it('export --format ical: a task with a bare CR cannot inject a component', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'placeholder', due: '2030-01-05' }));
    db.prepare(`UPDATE tasks SET content = ? WHERE id = ?`).run(HOSTILE, t.id);
    db.prepare(`UPDATE projects SET name = ? WHERE id = (SELECT project_id FROM tasks WHERE id = ?)`).run('Inbox\rBEGIN:VTODO', t.id);
    let text = '';
    exportIcal(db, { write: (c) => (text += c) }, new Date('2030-01-01T00:00:00Z'));
    assertClean(text);
    const todos = new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vtodo');
    expect(todos).toHaveLength(1);
    expect(String(todos[0]!.getFirstPropertyValue('summary'))).toMatch(/^Lunch\nEND:VEVENT\nBEGIN:VEVENT\n/);
  });

  it('a stored repeat rule that fails the check is left out of the export', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'Rent', due: '2030-01-05' }));
    db.prepare(`UPDATE tasks SET recurrence = ? WHERE id = ?`).run('FREQ=MONTHLY;BYDAY=6MO', t.id);
    let text = '';
    exportIcal(db, { write: (c) => (text += c) }, new Date('2030-01-01T00:00:00Z'));
    expect(text).not.toContain('RRULE');
    expect(text).toContain('SUMMARY:Rent');
  });
});
