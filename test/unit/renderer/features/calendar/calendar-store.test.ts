import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { CalendarInfo, ImportReport } from '../../../../../src-shared/calendar';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { changedFields, replay } from '../../../../../src-renderer/lib/runs';
import { approvalKey } from '../../../../../src-renderer/features/chat/slice';
import { createUploads } from '../../../../../src-main/host/uploads';
import { fakeApi, flush } from '../../fake-api';

const fileOf = (name: string, text: string) => Object.assign(new Blob([text]), { name });

const NOW = new Date(2026, 10, 25, 14, 0).getTime(); // a Wednesday
const PERSONAL: CalendarInfo = { id: 'personal', name: 'Personal', kind: 'local', personName: null, personEmail: null, colour: '#2457c5', readOnly: false, source: null, events: 0, updatedAt: '' };
const ALICE: CalendarInfo = { ...PERSONAL, id: 'k2', name: 'Alice', kind: 'imported', personName: 'Alice', readOnly: true, source: 'alice.ics', events: 3 };
const REPORT: ImportReport = { calendar: ALICE, added: 3, updated: 0, removed: 0, unchanged: 0, warnings: [] };

function setup() {
  const uploads = createUploads();
  const fake = fakeApi({
    'events.list': () => ({ events: [], truncated: false }),
    'calendars.list': () => [PERSONAL, ALICE],
    'uploads.start': ({ name, size }) => ({ upload: uploads.start(name, size) }),
    'uploads.add': ({ upload, offset, base64 }) => ({ received: uploads.add(upload, offset, Buffer.from(base64, 'base64')) }),
    'calendars.importUpload': ({ upload }) => {
      if (!uploads.read(upload).bytes.toString('utf8').includes('BEGIN:VCALENDAR')) throw new BridgeError('failed', 'line 1: not an iCalendar file (no BEGIN:VCALENDAR)', 'export the calendar again as .ics');
      return { value: REPORT, actionId: 'a1' };
    },
    'agent.approve': () => ({ answered: true }),
  });
  const store = createAppStore({ api: fake.api, now: () => NOW });
  connectStore(store, fake.api);
  return { fake, store, uploads };
}

describe('the calendar store', () => {
  it('asks for the shown week, steps by weeks and days, and comes back to today', async () => {
    const { fake, store } = setup();
    await store.getState().loadCalendar();
    const range = () => fake.callsTo('events.list').at(-1) as { from: string; to: string };
    expect(new Date(range().from).getTime()).toBe(new Date(2026, 10, 23).getTime());
    expect(new Date(range().to).getTime()).toBe(new Date(2026, 10, 30).getTime());
    await store.getState().stepCalendar(1);
    expect(new Date(range().from).getTime()).toBe(new Date(2026, 10, 30).getTime());
    await store.getState().showCalendarAt(store.getState().calAnchor, 'day');
    // The day of the shown week that the anchor was on (Wednesday 2 December), then the day before.
    expect(new Date(range().from).getTime()).toBe(new Date(2026, 11, 2).getTime());
    await store.getState().stepCalendar(-1);
    expect(new Date(range().from).getTime()).toBe(new Date(2026, 11, 1).getTime());
    expect(new Date(range().to).getTime()).toBe(new Date(2026, 11, 2).getTime());
    await store.getState().stepCalendar(0);
    expect(new Date(range().from).getTime()).toBe(new Date(2026, 10, 25).getTime());
  });

  it('refetches what it shows when events change, and nothing it never loaded', async () => {
    const { fake, store } = setup();
    fake.emit('data.changed', { topics: ['events'] });
    await flush();
    expect(fake.calls).toEqual([]);
    await store.getState().loadCalendar();
    await store.getState().loadCalendarsList();
    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['events'] });
    await flush();
    await flush();
    expect(fake.calls.map((c) => c.channel).sort()).toEqual(['calendars.list', 'events.list']);
  });

  it('imports a file and says what it did; a refused file leaves its one-line reason', async () => {
    const { fake, store, uploads } = setup();
    expect(await store.getState().importCalendar(fileOf('alice.ics', 'BEGIN:VCALENDAR\r\nEND:VCALENDAR'), 'Alice')).toBe(true);
    const [first] = fake.callsTo('calendars.importUpload') as { upload: string }[];
    expect(first).toEqual({ upload: expect.stringMatching(/^up_/), person: 'Alice' });
    expect(uploads.read(first!.upload)).toEqual({ name: 'alice.ics', bytes: Buffer.from('BEGIN:VCALENDAR\r\nEND:VCALENDAR') });
    expect(store.getState().notices.at(-1)?.text).toBe('Imported alice.ics as Alice: 3 new events');
    expect(await store.getState().importCalendar(fileOf('notes.ics', 'hello'))).toBe(false);
    expect(fake.callsTo('calendars.importUpload')[1]).not.toHaveProperty('person');
    expect(store.getState().importProblem).toMatchObject({ fileName: 'notes.ics', problem: { message: 'line 1: not an iCalendar file (no BEGIN:VCALENDAR)', hint: 'export the calendar again as .ics' } });
    expect(store.getState().importing).toBe(false);
  });
});

describe('approving with the event form’s edits', () => {
  const key = approvalKey('r1', 'ap1');

  it('sends the edited arguments with an approval, none with a decline', async () => {
    const { fake, store } = setup();
    store.getState().setApprovalEdit(key, { args: { title: 'Planning', start: 'a', end: 'b' }, problem: null });
    await store.getState().answerApproval('r1', 'ap1', 'approve');
    expect(fake.callsTo('agent.approve')).toEqual([{ runId: 'r1', approvalId: 'ap1', decision: 'approve', args: { title: 'Planning', start: 'a', end: 'b' } }]);

    const other = approvalKey('r1', 'ap2');
    store.getState().setApprovalEdit(other, { args: { title: 'x' }, problem: null });
    await store.getState().answerApproval('r1', 'ap2', 'decline');
    expect(fake.callsTo('agent.approve')[1]).toEqual({ runId: 'r1', approvalId: 'ap2', decision: 'decline' });
  });

  it('holds an approval back while the form is not valid, and says why', async () => {
    const { fake, store } = setup();
    store.getState().setApprovalEdit(key, { args: null, problem: 'End: must be after the start' });
    await store.getState().answerApproval('r1', 'ap1', 'approve');
    expect(fake.callsTo('agent.approve')).toEqual([]);
    expect(store.getState().notices.at(-1)).toMatchObject({ text: 'Not approved yet: End: must be after the start', tone: 'error' });
    expect(store.getState().approvalsSent).toEqual({});
    // Fixed (no edits left): approved as the model asked.
    store.getState().setApprovalEdit(key, null);
    await store.getState().answerApproval('r1', 'ap1', 'approve');
    expect(fake.callsTo('agent.approve')).toEqual([{ runId: 'r1', approvalId: 'ap1', decision: 'approve' }]);
  });
});

describe('an approval answered with edits', () => {
  it('keeps what the user changed, in words, for the answered card', () => {
    const at = '2026-11-25T14:00:00.000Z';
    const run = replay([
      { type: 'run_started', runId: 'r1', seq: 0, at, conversationId: 'c1', request: 'Book it', model: 'm', baseUrl: 'http://127.0.0.1:9/v1', protocol: 'native' },
      { type: 'approval_requested', runId: 'r1', seq: 1, at, approvalId: 'ap1', callId: 'call1', tool: 'book_event', args: { title: 'Sync' }, message: 'Book “Sync”?' },
      { type: 'approval_resolved', runId: 'r1', seq: 2, at, approvalId: 'ap1', decision: 'approve', args: { title: 'Planning' }, edits: 'title “Sync” → “Planning”', message: 'Book “Planning”?' },
    ]);
    expect(run?.approvals[0]).toMatchObject({ decision: 'approve', edits: 'title “Sync” → “Planning”' });
    // What was done, for the answered card: the arguments the call ran with and the question restated for them.
    expect(run?.approvals[0]).toMatchObject({ args: { title: 'Sync' }, usedArgs: { title: 'Planning' }, usedMessage: 'Book “Planning”?' });
    expect(changedFields({ title: 'Sync', start: 'a', end: 'b' }, { title: 'Planning', start: 'c', end: 'b' })).toBe('title and start');
  });
});
