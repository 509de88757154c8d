// The seed 004 scenario end to end (docs/ARCHITECTURE.md, "Tests"): Alice's (Google) and Bob's (Outlook)
// calendars imported, "Book a 30-minute meeting with Alice and Bob next week" → find_free_slots →
// book_event after approval (once as proposed, once with the title edited on the approval card) → the
// event is in `tidy events` and the export → `tidy undo --run` removes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent, ApprovalDecision } from '../../../src-shared/events';
import { importCalendar, newUserRequest } from '../../../src-main/core';
import { answerApproval, createLiveRuns, createToolServices, startRun, TOOLS, type AgentDeps } from '../../../src-main/core/agent';
import type { ModelRequest } from '../../../src-main/core/llm/port';
import { tempDb } from '../../support/db';
import { tidy } from '../../support/cli';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'ics');
const zoneBefore = process.env['TZ'];
beforeAll(() => {
  process.env['TZ'] = 'Europe/Berlin';
});
afterAll(() => {
  if (zoneBefore === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zoneBefore;
});

/** The last tool result the model was sent, parsed. */
function lastResult(request: ModelRequest): Record<string, unknown> {
  const m = [...request.messages].reverse().find((x) => x.role === 'tool');
  return JSON.parse(String(m?.content ?? '{}')) as Record<string, unknown>;
}

async function scenario(answer: (e: Extract<AgentEvent, { type: 'approval_requested' }>, deps: AgentDeps) => { decision: ApprovalDecision; args?: unknown }) {
  const { db, path } = tempDb();
  for (const [file, person] of [
    ['seed-alice-google.ics', 'Alice Martin <alice.martin@example.com>'],
    ['seed-bob-outlook.ics', 'Bob Stone <bob.stone@example.com>'],
  ] as const) {
    const r = importCalendar(db, newUserRequest(db), { fileName: file, text: readFileSync(join(FIXTURES, file), 'utf8'), person });
    expect(r.ok).toBe(true);
  }
  const model = new ScriptedModel([
    calls(call('find_free_slots', { duration_min: 30, from: '2030-11-11T00:00:00+01:00', to: '2030-11-16T00:00:00+01:00', attendees: ['Alice', 'Bob'] })),
    (request) => {
      const slots = lastResult(request)['slots'] as { start: string }[];
      const start = slots[0]!.start;
      const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
      return calls(call('book_event', { title: 'Sync with Alice and Bob', start, end, attendees: ['Alice', 'Bob'] }));
    },
    say('Booked.'),
  ]);
  // "Now" is Wednesday of the week before.
  const services = createToolServices({ now: () => new Date('2030-11-06T10:00:00+01:00') });
  const deps: AgentDeps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => model, services };
  const events: AgentEvent[] = [];
  const r = startRun(deps, { message: 'Book a 30-minute meeting with Alice and Bob next week', baseUrl: 'http://fake/v1', model: 'm', stream: false }, (e) => {
    events.push(e);
    if (e.type === 'approval_requested') {
      const a = answer(e, deps);
      answerApproval(deps, e.runId, e.approvalId, a.decision, a.args);
    }
  });
  if (!r.ok) throw new Error(r.error);
  const outcome = await r.value.finished;
  return { db, path, model, events, outcome, runId: r.value.runId };
}

describe('seed 004: booking a meeting with Alice and Bob', () => {
  it('finds the first time all three are free in working hours, books it after approval; it shows in tidy events and the export, and undo --run removes it', async () => {
    const s = await scenario(() => ({ decision: 'approve' }));
    expect(s.outcome.status).toBe('done');
    const found = s.events.find((e) => e.type === 'tool_result' && e.tool === 'find_free_slots');
    // Monday is taken (Alice 09–12, Bob 12–17); Tuesday Alice's weekly 1:1 ends at 10:00 and Bob's stand-up at
    // 10:30; Bob's lunch is marked free (TRANSP:TRANSPARENT), so the window runs to the end of the day.
    expect((found as { result: { slots: { start: string }[] } }).result.slots[0]).toEqual({ start: '2030-11-12T10:30:00+01:00', end: '2030-11-12T17:00:00+01:00' });
    const asked = s.events.find((e) => e.type === 'approval_requested');
    expect(asked).toMatchObject({ tool: 'book_event', args: { title: 'Sync with Alice and Bob' }, message: "Book 'Sync with Alice and Bob' on Tue 2030-11-12 10:30–11:00 with Alice, Bob?", form: 'event' });

    const listed = tidy(s.path, ['events', '--from', '2030-11-12', '--to', '2030-11-13', '--json'], { env: { TZ: 'Europe/Berlin' } });
    expect(listed.code).toBe(0);
    const mine = (JSON.parse(listed.stdout) as { title: string; calendar: string; start: string; attendees: string[] }[]).filter((e) => e.calendar === 'Personal');
    expect(mine).toEqual([
      { id: 'e8', title: 'Sync with Alice and Bob', start: '2030-11-12T10:30:00+01:00', end: '2030-11-12T11:00:00+01:00', allDay: false, calendar: 'Personal', location: null, attendees: ['Alice Martin', 'Bob Stone'] },
    ]);
    const exported = tidy(s.path, ['cal', 'export'], { env: { TZ: 'Europe/Berlin' } });
    expect(exported.stdout).toContain('SUMMARY:Sync with Alice and Bob');
    expect(exported.stdout).toContain('DTSTART:20301112T093000Z');
    const invite = tidy(s.path, ['cal', 'export', '--invite', 'e8']);
    expect(invite.stdout).toContain('METHOD:REQUEST');
    expect(invite.stdout.replace(/\r\n /g, '')).toContain('ATTENDEE;CN=Alice Martin;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:alice.martin@example.com');

    const undone = tidy(s.path, ['undo', '--run', s.runId]);
    expect(undone.code).toBe(0);
    const after = JSON.parse(tidy(s.path, ['events', '--from', '2030-11-12', '--to', '2030-11-13', '--json'], { env: { TZ: 'Europe/Berlin' } }).stdout) as { calendar: string }[];
    expect(after.filter((e) => e.calendar === 'Personal')).toEqual([]);
    expect(tidy(s.path, ['cal', 'export']).stdout).not.toContain('Sync with Alice and Bob');
  });

  it('books with the title the user edited on the approval card, and tells the model what changed', async () => {
    const s = await scenario((e) => ({ decision: 'approve', args: { ...(e.args as object), title: 'Planning' } }));
    expect(s.outcome.status).toBe('done');
    const resolved = s.events.find((e) => e.type === 'approval_resolved');
    expect(resolved).toMatchObject({ decision: 'approve', args: { title: 'Planning' } });
    // The question restated for what was done: the card and the trace show the edited booking, not the model's.
    expect(resolved).toMatchObject({ message: "Book 'Planning' on Tue 2030-11-12 10:30–11:00 with Alice, Bob?" });
    const booked = s.events.find((e) => e.type === 'tool_result' && e.tool === 'book_event') as { ok: boolean; result: Record<string, unknown> };
    expect(booked.ok).toBe(true);
    expect(booked.result).toMatchObject({ title: 'Planning', user_edits: "Before approving, the user changed title from 'Sync with Alice and Bob' to 'Planning'. The call ran with the user's values." });
    // The model's next request carries the words.
    expect(JSON.stringify(s.model.requests[2]!.messages)).toContain("changed title from 'Sync with Alice and Bob' to 'Planning'");
    const titles = (JSON.parse(tidy(s.path, ['events', '--from', '2030-11-12', '--to', '2030-11-13', '--json']).stdout) as { title: string }[]).map((e) => e.title);
    expect(titles).toContain('Planning');
    expect(titles).not.toContain('Sync with Alice and Bob');
  });

  it('refuses edited values that break the tool schema and keeps the approval waiting; a decline then books nothing', async () => {
    let refusal: unknown = null;
    const s = await scenario((e, deps) => {
      try {
        answerApproval(deps, e.runId, e.approvalId, 'approve', { ...(e.args as object), start: 42 });
      } catch (err) {
        refusal = err;
      }
      return { decision: 'decline' };
    });
    expect(String((refusal as Error | null)?.message)).toMatch(/^the edited values are not valid: start/);
    expect(s.outcome.status).toBe('done');
    expect(s.events.filter((e) => e.type === 'approval_resolved')).toMatchObject([{ decision: 'decline' }]);
    expect(s.events.find((e) => e.type === 'tool_result' && e.tool === 'book_event')).toMatchObject({ ok: false, result: { error: expect.stringMatching(/^the user declined/) } });
    const mine = (JSON.parse(tidy(s.path, ['events', '--from', '2030-11-12', '--to', '2030-11-13', '--json']).stdout) as { calendar: string }[]).filter((e) => e.calendar === 'Personal');
    expect(mine).toEqual([]);
  });
});
