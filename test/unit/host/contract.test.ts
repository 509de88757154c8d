// The IPC contract over the in-memory transport (src-main/host/memory.ts): the real handlers, dispatcher and event hub
// on a real database; every value is checked against the contract's output schema.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeOpenAI } from '../../fakes/openai-server';
import { BridgeError } from '../../../src-shared/bridge';
import { channels, DATA_TOPICS, type ChannelName, type DataChanged } from '../../../src-shared/ipc';
import { TOPICS } from '../../../src-shared/topics';
import { readFileSync } from 'node:fs';
import type { AgentEvent } from '../../../src-shared/events';
import type { Model } from '../../../src-main/core/llm/port';
import { memoryHost } from '../../support/host';
import { okValue, snapshot, tempDir } from '../../support/db';
import { setupSync } from '../../../src-main/core/sync/service';
import { FAST_KDF } from '../sync/scenario';
import { addMemory, openDatabase } from '../../../src-main/core';
import { sendFile } from '../../../src-renderer/lib/upload';
import { call as toolCall, calls, hang, say, ScriptedModel } from '../../fakes/scripted-model';

/** Every channel a test below calls; the last test checks that none was forgotten. */
const covered = new Set<ChannelName>();
function setup(model?: Model) {
  const h = memoryHost(model);
  const call: typeof h.call = (channel, input) => {
    covered.add(channel);
    return h.call(channel, input);
  };
  const events: DataChanged[] = [];
  h.api.on('data.changed', (e) => events.push(e));
  const agentEvents: AgentEvent[] = [];
  h.api.on('agent.event', (e) => agentEvents.push(e));
  /** Resolves with the run's events once it has finished. */
  const finished = (runId: string) =>
    new Promise<AgentEvent[]>((resolve) => {
      const done = () => agentEvents.some((e) => e.runId === runId && e.type === 'run_finished');
      if (done()) return resolve(agentEvents.filter((e) => e.runId === runId));
      const off = h.api.on('agent.event', () => {
        if (!done()) return;
        off();
        resolve(agentEvents.filter((e) => e.runId === runId));
      });
    });
  /** The first event of a kind the run emits (waits for it). */
  const next = <T extends AgentEvent['type']>(type: T) =>
    new Promise<Extract<AgentEvent, { type: T }>>((resolve) => {
      const found = agentEvents.find((e) => e.type === type);
      if (found) return resolve(found as Extract<AgentEvent, { type: T }>);
      const off = h.api.on('agent.event', (e) => {
        if (e.type !== type) return;
        off();
        resolve(e as Extract<AgentEvent, { type: T }>);
      });
    });
  return { ...h, call, events, agentEvents, finished, next };
}

const KEY = 'sk-test-0123456789abcdef';

/** A loopback port that was free a moment ago. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** A host whose active profile (OpenAI) has a key, so runs may start. */
async function withKey(model: Model) {
  const h = setup(model);
  await h.call('keys.set', { key: KEY });
  return h;
}

async function refusal(p: Promise<unknown>): Promise<BridgeError> {
  const e: unknown = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof BridgeError)) throw new Error(`expected a BridgeError, got ${String(e)}`);
  return e;
}

describe('tasks', () => {
  it('adds, lists, updates, moves, completes, reopens and archives, each change logged with an action id', async () => {
    const { call } = setup();
    const added = await call('tasks.add', { content: 'Bake the cake' });
    expect(added.value).toMatchObject({ content: 'Bake the cake', project: 'Inbox', status: 'open' });
    expect(added.actionId).toMatch(/^a\d+$/);
    const id = added.value.id;

    expect((await call('tasks.list', { project: 'inbox' })).tasks.map((t) => t.id)).toEqual([id]);
    expect((await call('tasks.update', { task: id, priority: 3, due: '2030-01-02' })).value).toMatchObject({ priority: 3, due: '2030-01-02' });
    await call('projects.create', { name: 'Birthday' });
    expect((await call('tasks.move', { task: id, project: 'Birthday' })).value.project).toBe('Birthday');
    expect((await call('tasks.complete', { task: id })).value.status).toBe('done');
    expect((await call('tasks.reopen', { task: id })).value.status).toBe('open');
    expect((await call('tasks.archive', { task: id })).value.status).toBe('archived');
    const all = await call('tasks.list', { status: 'all', limit: 10, offset: 0 });
    expect(all.total).toBe(1);
  });

  it('refuses what the core refuses, with its message and hint, and changes nothing', async () => {
    const { call, db, events } = setup();
    const before = snapshot(db);
    const e = await refusal(call('tasks.complete', { task: 't999' }));
    expect(e.code).toBe('failed');
    expect(e.message).toContain('no task with id');
    expect(e.hint).not.toBe('');
    expect(snapshot(db)).toEqual(before);
    expect(events).toEqual([]);
  });
});

describe('projects and lists', () => {
  it('creates, renames, archives and unarchives projects; lists them with open-task counts', async () => {
    const { call } = setup();
    const p = (await call('projects.create', { name: 'Garden' })).value;
    await call('tasks.add', { content: 'Dig', project: 'Garden' });
    expect((await call('projects.list', {})).map((x) => [x.name, x.openTasks])).toEqual([
      ['Inbox', 0],
      ['Garden', 1],
    ]);
    expect((await call('projects.rename', { project: p.id, name: 'Allotment' })).value.name).toBe('Allotment');
    const e = await refusal(call('projects.archive', { project: p.id }));
    expect(e.message).toContain('open task');
    const empty = (await call('projects.create', { name: 'Empty' })).value;
    await call('projects.archive', { project: empty.id });
    expect((await call('projects.list', {})).map((x) => x.name)).not.toContain('Empty');
    expect((await call('projects.list', { includeArchived: true })).map((x) => x.name)).toContain('Empty');
    await call('projects.unarchive', { project: empty.id });
  });

  it('makes lists and keeps their items', async () => {
    const { call } = setup();
    const l = (await call('lists.create', { name: 'Groceries' })).value;
    const milk = (await call('lists.addItem', { list: 'groceries', text: 'Milk' })).value;
    await call('lists.editItem', { list: l.id, item: milk.id, text: 'Oat milk' });
    await call('lists.checkItem', { list: l.id, item: milk.id, checked: true });
    const eggs = (await call('lists.addItem', { list: l.id, text: 'Eggs' })).value;
    await call('lists.archiveItem', { list: l.id, item: eggs.id });
    expect((await call('lists.items', { list: l.id })).items.map((i) => [i.text, i.checked])).toEqual([['Oat milk', true]]);
    expect((await call('lists.items', { list: l.id, includeArchived: true })).items).toHaveLength(2);
    await call('lists.rename', { list: l.id, name: 'Shopping' });
    await call('lists.archive', { list: l.id });
    expect(await call('lists.list', {})).toEqual([]);
    await call('lists.unarchive', { list: l.id });
    expect((await call('lists.list', { includeArchived: false })).map((x) => x.name)).toEqual(['Shopping']);
  });
});

describe('task views, order, reminders and search', () => {
  const today = '2026-11-23';
  it('lists Today, Upcoming and Completed, and counts them for the sidebar', async () => {
    const { call } = setup();
    const add = async (content: string, due: string | null) => (await call('tasks.add', { content, due })).value.id;
    const overdue = await add('Overdue', '2026-11-20');
    const now = await add('Today', '2026-11-23T15:00');
    const soon = await add('Soon', '2026-11-29');
    await add('Later', '2026-11-30');
    await add('Someday', null);
    expect((await call('tasks.list', { view: 'today', today })).tasks.map((t) => t.id)).toEqual([overdue, now]);
    expect((await call('tasks.list', { view: 'upcoming', today })).tasks.map((t) => t.id)).toEqual([now, soon]);
    expect(await call('tasks.counts', { today })).toEqual({ inbox: 5, today: 2, overdue: 1, upcoming: 2 });
    await call('tasks.complete', { task: soon });
    await call('tasks.complete', { task: overdue });
    expect((await call('tasks.list', { view: 'completed', today })).tasks.map((t) => t.id)).toEqual([overdue, soon]);
  });

  it('rich tasks: sections, subtasks, comments and the new fields travel over the contract', async () => {
    const { call } = setup();
    const project = (await call('projects.create', { name: 'Rich' })).value;
    const s1 = (await call('sections.create', { project: project.id, name: 'Later' })).value;
    const s2 = (await call('sections.create', { project: project.id, name: 'Now' })).value;
    await call('sections.reorder', { section: s2.id, before: s1.id });
    expect((await call('sections.rename', { section: s1.id, name: 'Someday' })).value.name).toBe('Someday');
    const a = (await call('tasks.add', { content: 'a', project: project.id, section: 'Now', labels: ['Home'], deadline: '2035-01-02', durationMin: 45, description: 'd' })).value;
    expect(a).toMatchObject({ section: 'Now', labels: ['Home'], deadline: '2035-01-02', durationMin: 45, description: 'd', parentId: null });
    const b = (await call('tasks.add', { content: 'b', project: project.id, section: 'Now' })).value;
    expect((await call('tasks.indent', { task: b.id })).value.parentId).toBe(a.id);
    expect((await call('tasks.outdent', { task: b.id })).value.parentId).toBe(null);
    const c = await call('tasks.comment', { task: a.id, text: 'a note' });
    expect(c.value).toMatchObject({ taskId: a.id, text: 'a note' });
    expect((await call('tasks.update', { task: b.id, parent: a.id })).value.parentId).toBe(a.id);
    expect((await call('sections.archive', { section: s1.id })).value.archivedAt).not.toBe(null);
  });

  it('the window reads rich tasks: filter queries, labels, sections, comments, subtask progress, saved filters', async () => {
    const { call, events, db } = setup();
    const project = (await call('projects.create', { name: 'Window' })).value;
    const section = (await call('sections.create', { project: project.id, name: 'First' })).value;
    const parent = (await call('tasks.add', { content: 'Parent', project: project.id, labels: ['Home'], deadline: '2035-01-02' })).value;
    const kids = [];
    for (const content of ['one', 'two', 'three']) kids.push((await call('tasks.add', { content, project: project.id, parent: parent.id })).value);
    await call('tasks.complete', { task: kids[0]!.id });
    await call('tasks.archive', { task: kids[2]!.id });
    expect(await call('tasks.progress', { tasks: [parent.id, kids[1]!.id, parent.id.toUpperCase(), 't999'] })).toEqual([
      { id: parent.id, done: 1, total: 2 },
      { id: kids[1]!.id, done: 0, total: 0 },
      { id: 't999', done: 0, total: 0 },
    ]);

    const found = await call('tasks.find', { filter: '@home | search: two', today: '2035-01-01' });
    expect(found.tasks.map((t) => t.content)).toEqual(['Parent', 'two']);
    expect(found.total).toBe(2);
    expect((await call('tasks.find', { filter: 'subtask', status: 'all', limit: 1 })).total).toBe(3);
    // A bad query: one line naming the position, and nothing changes.
    const bad = await refusal(call('tasks.find', { filter: 'p1 &' }));
    expect(bad.code).toBe('failed');
    expect(bad.message).toMatch(/^filter: expected .* at position 5/);
    // Hostile queries: too long, injected SQL, deep nesting, are refused or taken as text.
    expect((await refusal(call('tasks.find', { filter: 'p1 & '.repeat(700) }))).message).toMatch(/characters long/);
    expect((await call('tasks.find', { filter: "search: '; DROP TABLE tasks; --" })).total).toBe(0);
    expect((await refusal(call('tasks.find', { filter: '('.repeat(60) + 'p1' + ')'.repeat(60) }))).message).toMatch(/deep/);

    expect(await call('labels.list', {})).toEqual([{ id: expect.any(String), name: 'Home', colour: null, openTasks: 1 }]);
    expect((await call('labels.colour', { label: '@home', colour: '#2E9D5B' })).value).toMatchObject({ name: 'Home', colour: '#2e9d5b' });
    expect((await refusal(call('labels.colour', { label: 'Home', colour: 'red; DROP TABLE x' }))).message).toMatch(/is not a colour/);
    await call('labels.colour', { label: 'Home', colour: null });
    expect((await call('sections.list', { project: 'Window' })).map((s) => s.name)).toEqual([section.name]);
    await call('sections.archive', { section: section.id });
    expect(await call('sections.list', { project: project.id })).toEqual([]);
    expect((await call('sections.list', { project: project.id, includeArchived: true })).map((s) => s.id)).toEqual([section.id]);

    await call('tasks.comment', { task: parent.id, text: 'first' });
    await call('tasks.comment', { task: parent.id, text: 'second' });
    expect((await call('tasks.comments', { task: parent.id })).map((c) => c.text)).toEqual(['first', 'second']);
    expect((await refusal(call('tasks.comments', { task: 't999' }))).message).toContain('no task');

    events.length = 0;
    const saved = await call('filters.save', { name: 'Home now', query: '@home & !subtask' });
    expect(saved.actionId).toMatch(/^a\d+$/);
    expect(events.at(-1)?.topics).toEqual(expect.arrayContaining(['tasks', 'actions']));
    expect(await call('filters.list', {})).toEqual([saved.value]);
    expect((await refusal(call('filters.save', { name: 'Broken', query: '(p1' }))).message).toMatch(/position 4/);
    expect((await call('filters.delete', { filter: 'home NOW' })).value.id).toBe(saved.value.id);
    expect(await call('filters.list', {})).toEqual([]);
    await call('actions.undoLast', {});
    expect((await call('filters.list', {})).map((f) => f.name)).toEqual(['Home now']);
    expect(db.open).toBe(true);
  });

  it('reorders within a project and snoozes a due time, each logged', async () => {
    const { call } = setup();
    const a = (await call('tasks.add', { content: 'a' })).value.id;
    const b = (await call('tasks.add', { content: 'b' })).value.id;
    const c = (await call('tasks.add', { content: 'c' })).value.id;
    const r = await call('tasks.reorder', { task: c, before: a });
    expect(r.actionId).toMatch(/^a\d+$/);
    expect((await call('tasks.list', { project: 'inbox' })).tasks.map((t) => t.id)).toEqual([c, a, b]);
    await call('tasks.reorder', { task: c, before: null });
    expect((await call('tasks.list', { project: 'inbox' })).tasks.map((t) => t.id)).toEqual([a, b, c]);
    const snoozed = await call('tasks.snooze', { task: a, minutes: 15 });
    expect(snoozed.value.due).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
  });

  it('searches every kind, grouped, and takes any text as a query', async () => {
    const { call } = setup();
    await call('tasks.add', { content: 'Order the birthday cake' });
    await call('projects.create', { name: 'Birthday party' });
    const r = await call('search.query', { query: 'birthday' });
    expect(r.groups.map((g) => g.kind)).toEqual(['task', 'project']);
    expect(r.groups[0]!.hits[0]).toMatchObject({ kind: 'task', title: 'Order the birthday cake', snippet: expect.stringContaining('«birthday»'), parent: 'Inbox' });
    expect(await call('search.query', { query: '"* NEAR( -:' })).toEqual({ groups: [], total: 0 });
  });

  it('finds events by title with their calendar and start, and no longer once cancelled', async () => {
    const { call } = setup();
    await call('tasks.add', { content: 'Call the dentist back' });
    const booked = (await call('events.book', { title: 'Dentist appointment', start: '2030-01-07T11:00:00Z', end: '2030-01-07T11:30:00Z' })).value;
    const r = await call('search.query', { query: 'dentist' });
    expect(r.groups.map((g) => g.kind)).toEqual(['task', 'event']);
    expect(r.groups[1]!.hits[0]).toMatchObject({ kind: 'event', id: booked.id, title: 'Dentist appointment', parent: 'Personal', start: '2030-01-07T11:00:00.000Z' });
    expect(r.groups[0]!.hits[0]!.start).toBeUndefined();
    await call('events.cancel', { event: booked.id });
    expect((await call('search.query', { query: 'dentist' })).groups.map((g) => g.kind)).toEqual(['task']);
  });
});

describe('the calendar', () => {
  const ALICE = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'BEGIN:VEVENT',
    'UID:standup@example.com',
    'DTSTART:20300107T090000Z',
    'DTEND:20300107T100000Z',
    'RRULE:FREQ=DAILY;COUNT=3',
    'SUMMARY:Stand-up',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

  it('imports a calendar, lists occurrences and free time, books, moves, cancels and removes, each logged', async () => {
    const { call, events } = setup();
    const imported = await call('calendars.import', { fileName: 'alice.ics', text: ALICE, person: 'Alice <alice@example.com>' });
    expect(imported.value).toMatchObject({ added: 1, calendar: { name: 'Alice', personEmail: 'alice@example.com', readOnly: true } });
    expect(events.at(-1)).toEqual({ topics: ['events', 'actions'] });
    expect((await call('calendars.list', {})).map((c) => c.name)).toEqual(['Personal', 'Alice']);
    const listed = await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-10T00:00:00Z' });
    expect(listed.events.map((e) => [e.title, e.occurrence])).toEqual([
      ['Stand-up', '2030-01-07T09:00:00'],
      ['Stand-up', '2030-01-08T09:00:00'],
      ['Stand-up', '2030-01-09T09:00:00'],
    ]);
    // Next and Previous event find the nearest occurrence either side, recurring series included.
    const next = await call('events.adjacent', { at: '2030-01-07T10:00:00Z', direction: 'next' });
    expect([next?.title, next?.occurrence]).toEqual(['Stand-up', '2030-01-08T09:00:00']);
    const previous = await call('events.adjacent', { at: '2030-01-07T10:00:00Z', direction: 'previous' });
    expect([previous?.title, previous?.occurrence]).toEqual(['Stand-up', '2030-01-07T09:00:00']);
    const booked = (await call('events.book', { title: 'Plan', start: '2030-01-07T11:00:00Z', end: '2030-01-07T11:30:00Z', attendees: ['alice'] })).value;
    expect(booked).toMatchObject({ calendar: 'Personal', attendees: ['Alice'], readOnly: false });
    const moved = (await call('events.move', { event: booked.id, start: '2030-01-07T12:00:00Z', end: '2030-01-07T12:30:00Z' })).value;
    expect(Date.parse(moved.start)).toBe(Date.parse('2030-01-07T12:00:00Z'));
    const free = await call('events.free', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z', durationMin: 30, attendees: ['Alice'] });
    expect(free.total).toBeGreaterThan(0);
    await call('events.cancel', { event: booked.id });
    expect((await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' })).events.map((e) => e.title)).toEqual(['Stand-up']);
    // A calendar is renamed (logged); the name is what lists show, and a clash is refused.
    expect((await call('calendars.rename', { calendar: 'Alice', name: 'Alice at work' })).value).toMatchObject({ name: 'Alice at work' });
    expect((await call('calendars.list', {})).map((c) => c.name)).toEqual(['Personal', 'Alice at work']);
    await expect(call('calendars.rename', { calendar: 'Alice at work', name: 'Personal' })).rejects.toThrow();
    await call('calendars.remove', { calendar: 'Alice at work' });
    expect((await call('calendars.list', {})).map((c) => c.name)).toEqual(['Personal']);
    await expect(call('calendars.remove', { calendar: 'personal' })).rejects.toThrow(/cannot be removed/);
  });
});

describe('plans', () => {
  it('proposes a plan through the transport and writes nothing', async () => {
    const { call } = setup();
    const task = (await call('tasks.add', { content: 'Write report', durationMin: 60 })).value;
    const plan = await call('plans.propose', { task_ids: [task.id], from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' });
    expect(plan.blocks.map((b) => [b.task_id, b.task])).toEqual([[task.id, 'Write report']]);
    expect(plan.summary.text).toMatch(/^1 h of tasks, /);
    expect((await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' })).events).toEqual([]);
    await expect(call('plans.propose', { from: '2030-01-08T00:00:00Z', to: '2030-01-07T00:00:00Z' })).rejects.toThrow(/ends before it starts/);
    await expect(call('plans.propose', { from: '2030-01-07', to: '2030-01-08', extra: true } as never)).rejects.toThrow();
  });

  it('applies a plan as edited on a card as one undoable request, and refuses a malformed block', async () => {
    const { call } = setup();
    const task = (await call('tasks.add', { content: 'Write report', durationMin: 60 })).value;
    const applied = await call('plans.apply', { blocks: [{ task_id: task.id, start: '2030-01-07T10:30:00Z', end: '2030-01-07T11:30:00Z', pinned: true }] });
    expect(applied.value).toMatchObject({ created: 1, moved: 0, cancelled: 0 });
    const events = (await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' })).events;
    expect(events.map((e) => [e.title, new Date(e.start).toISOString()])).toEqual([['Write report', '2030-01-07T10:30:00.000Z']]);
    await call('actions.undo', { actionId: applied.actionId });
    expect((await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' })).events).toEqual([]);
    await expect(call('plans.apply', { blocks: [{ task_id: task.id, start: 'not a time at all', end: '2030-01-07T11:30:00Z' }] })).rejects.toThrow();
    await expect(call('plans.apply', { blocks: [{ task_id: task.id, start: '2030-01-07T10:30:00Z', end: '2030-01-07T11:30:00Z', extra: 1 }] } as never)).rejects.toThrow();
    await expect(call('plans.apply', { blocks: Array.from({ length: 2001 }, () => ({ task_id: task.id, start: '2030-01-07T10:30:00Z', end: '2030-01-07T11:30:00Z' })) })).rejects.toThrow();
    expect((await call('events.list', { from: '2030-01-07T00:00:00Z', to: '2030-01-08T00:00:00Z' })).events).toEqual([]);
  });

  it('lists the plan blocks missed while their task is open', async () => {
    const { call } = setup();
    expect(await call('plans.missed', {})).toEqual([]);
    const task = (await call('tasks.add', { content: 'Write report', durationMin: 60 })).value;
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await call('plans.apply', { blocks: [{ task_id: task.id, start: new Date(hour - 3 * 3_600_000).toISOString(), end: new Date(hour - 2 * 3_600_000).toISOString() }] });
    expect((await call('plans.missed', {})).map((m) => [m.task_id, m.task, Date.parse(m.start)])).toEqual([[task.id, 'Write report', hour - 3 * 3_600_000]]);
    await expect(call('plans.missed', { since: 1 } as never)).rejects.toThrow();
  });
});

describe('quick capture', () => {
  it('adds the text to the inbox at once', async () => {
    const { call } = setup();
    const r = await call('capture.add', { text: '  Call the plumber ' });
    expect(r.value).toMatchObject({ content: 'Call the plumber', projectId: 'inbox' });
    expect(r.note).toBeNull();
  });

  it('reads the quick-add grammar against the projects, and says when a #project is unknown', async () => {
    const { call } = setup();
    await call('projects.create', { name: 'Birthday Celebration' });
    const r = await call('capture.add', { text: 'Buy balloons tomorrow #birthday celebration p1' });
    expect(r.value).toMatchObject({ content: 'Buy balloons', project: 'Birthday Celebration', priority: 1, due: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    const unknown = await call('capture.add', { text: 'Paint the shed #Garden' });
    expect(unknown.value).toMatchObject({ content: 'Paint the shed #Garden', project: 'Inbox' });
    expect(unknown.note).toContain('"Garden"');
    expect(unknown.unread).toEqual({ project: { name: 'Garden', suggestion: null }, repeat: null });
  });

  it('takes a box’s defaults (project, due), and refuses defaults that are not one', async () => {
    const { call } = setup();
    const p = await call('projects.create', { name: 'Garden' });
    const r = await call('capture.add', { text: 'Mow the lawn', project: p.value.id, due: '2035-01-10' });
    expect(r.value).toMatchObject({ content: 'Mow the lawn', project: 'Garden', due: '2035-01-10' });
    await expect(call('capture.add', { text: 'x', due: '2035-02-30' })).rejects.toThrow();
    await expect(call('capture.add', { text: 'x', project: 'p'.repeat(201) })).rejects.toThrow();
    await expect(call('capture.add', { text: 'x', project: 'Nowhere' })).rejects.toThrow();
  });
});

describe('the agent', () => {
  it('runs a message: events stream live, the change is logged, views are told, and the trace is stored', async () => {
    const model = new ScriptedModel([calls(toolCall('add_task', { content: 'Buy milk' })), say('Added it to your inbox.')]);
    const h = await withKey(model);
    const started = await h.call('agent.send', { message: 'remind me to buy milk' });
    const events = await h.finished(started.runId);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('run_started');
    expect(types.indexOf('tool_call')).toBeLessThan(types.indexOf('tool_result'));
    expect(types).toContain('answer');
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'done', actions: 1 });
    const result = events.find((e) => e.type === 'tool_result')!;
    expect(result).toMatchObject({ ok: true, actionId: expect.stringMatching(/^a\d+$/) });
    expect(h.events).toContainEqual({ topics: [...DATA_TOPICS] });
    expect(h.events.at(-1)).toEqual({ topics: ['runs', 'conversations'] });

    const inbox = await h.call('tasks.list', { project: 'inbox' });
    expect(inbox.tasks.map((t) => t.content)).toEqual(['Buy milk']);
    const log = await h.call('actions.list', {});
    expect(log.groups[0]).toMatchObject({ requestId: started.runId, source: 'agent' });

    const runs = await h.call('runs.list', { conversationId: started.conversationId });
    expect(runs.map((r) => [r.id, r.status, r.answer])).toEqual([[started.runId, 'done', 'Added it to your inbox.']]);
    const trace = await h.call('runs.trace', { runId: started.runId });
    expect(trace.events.map((e) => e.type)).toContain('tool_result');
    expect((await refusal(h.call('runs.trace', { runId: 'r999' }))).message).toContain('no run');
    expect(await h.call('agent.cancel', { runId: started.runId })).toEqual({ cancelled: false });
  });

  it('continues a conversation, lists, renames and exports it as Markdown and JSON', async () => {
    const h = await withKey(new ScriptedModel([say('Hello!'), say('Still here.')]));
    const first = await h.call('agent.send', { message: 'hi there' });
    await h.finished(first.runId);
    const second = await h.call('agent.send', { message: 'are you there?', conversationId: first.conversationId });
    await h.finished(second.runId);
    expect(second.conversationId).toBe(first.conversationId);

    const messages = await h.call('conversations.messages', { id: first.conversationId });
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['hi there', 'are you there?']);
    expect((await h.call('conversations.list', {})).map((c) => c.title)).toEqual(['hi there']);
    expect((await h.call('conversations.rename', { id: first.conversationId, title: 'Greetings' })).title).toBe('Greetings');
    expect((await refusal(h.call('conversations.rename', { id: first.conversationId, title: '   ' }))).message).toContain('empty');

    const md = await h.call('conversations.export', { id: first.conversationId, format: 'markdown' });
    expect(md.filename).toBe(`tidy-${first.conversationId}-greetings.md`);
    expect(md.content).toMatch(/^# Greetings\n/);
    expect(md.content.indexOf('hi there')).toBeLessThan(md.content.indexOf('are you there?'));
    expect(md.content).toContain('Still here.');
    const json = await h.call('conversations.export', { id: first.conversationId, format: 'json' });
    const doc = JSON.parse(json.content) as { conversation: { title: string }; runs: { id: string; trace: unknown[] }[] };
    expect(doc.conversation.title).toBe('Greetings');
    expect(doc.runs.map((r) => r.id)).toEqual([first.runId, second.runId]);
    expect(doc.runs[0]!.trace.length).toBeGreaterThan(0);
    expect((await refusal(h.call('conversations.export', { id: 'c999', format: 'json' }))).message).toContain('no conversation');
    expect((await refusal(h.call('conversations.messages', { id: 'c999' }))).code).toBe('failed');
  });

  it('creates an empty conversation to talk in', async () => {
    const h = setup();
    const c = await h.call('conversations.create', {});
    expect(c.title).toBe('New conversation');
    expect((await h.call('conversations.create', { title: 'Trip' })).title).toBe('Trip');
    expect(await h.call('conversations.messages', { id: c.id })).toEqual([]);
  });

  it('pauses for an approval until it is answered', async () => {
    const model = new ScriptedModel([calls(toolCall('add_task', { content: 'Pay rent' })), calls(toolCall('complete_task', { task_id: 't1' })), say('Done.')]);
    const h = await withKey(model);
    const started = await h.call('agent.send', { message: 'add and complete it' });
    const asked = await h.next('approval_requested');
    expect(asked.tool).toBe('complete_task');
    expect(await h.call('agent.approve', { runId: started.runId, approvalId: asked.approvalId, decision: 'approve' })).toEqual({ answered: true });
    await h.finished(started.runId);
    expect(await h.call('agent.approve', { runId: started.runId, approvalId: asked.approvalId, decision: 'approve' })).toEqual({ answered: false });
    expect((await h.call('tasks.list', { status: 'done' })).tasks.map((t) => t.content)).toEqual(['Pay rent']);
  });

  it('cancels a run by id', async () => {
    const h = await withKey(new ScriptedModel([hang]));
    const started = await h.call('agent.send', { message: 'take your time' });
    await h.next('run_started');
    expect(await h.call('agent.cancel', { runId: started.runId })).toEqual({ cancelled: true });
    expect((await h.finished(started.runId)).at(-1)).toMatchObject({ type: 'run_finished', status: 'cancelled' });
  });

  it('refuses to start when the model cannot be reached for lack of a key, saying what to do', async () => {
    const h = setup();
    const e = await refusal(h.call('agent.send', { message: 'hello' }));
    expect(e).toMatchObject({ code: 'failed', message: 'no API key for profile openai' });
    expect(e.hint).toContain('tidy key set');
    expect(await h.call('conversations.list', {})).toEqual([]);
  });

  it('sends quick capture to the agent in a conversation of its own', async () => {
    const h = await withKey(new ScriptedModel([say('Noted.'), say('Noted again.')]));
    const a = await h.call('capture.ask', { text: 'plan the garden' });
    await h.finished(a.runId);
    const b = await h.call('capture.ask', { text: 'plan the trip' });
    await h.finished(b.runId);
    expect(a.conversationId).not.toBe(b.conversationId);
  });

  it('lists its tools, saying which change data (the settings offer approvals for those)', async () => {
    const { call } = setup();
    const tools = await call('agent.tools', {});
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('move_task')).toMatchObject({ changes: true, approval: 'auto', description: expect.stringContaining('Move one task') });
    expect(byName.get('complete_task')).toMatchObject({ changes: true, approval: 'ask' });
    expect(byName.get('get_inbox_tasks')?.changes).toBe(false);
    // create_routine asks every time: the window shows it as not configurable.
    expect(byName.get('create_routine')).toMatchObject({ changes: true, approval: 'ask', alwaysAsks: true });
    expect(byName.get('complete_task')?.alwaysAsks).toBeUndefined();
    expect(tools.filter((t) => t.changes).map((t) => t.name)).toEqual(expect.arrayContaining(['complete_task', 'archive_list_item', 'create_project']));
  });
});

describe('routines and approvals', () => {
  it('adds, lists, runs now, answers the approval it left waiting, shows the history, edits and removes', async () => {
    const model = new ScriptedModel([calls(toolCall('complete_task', { task_id: 't1' })), say('Completed.')]);
    const h = await withKey(model);
    await h.call('tasks.add', { content: 'Pay rent' });
    const added = await h.call('routines.add', { name: 'Rent', request: 'complete the rent task', schedule: 'every weekday at 8am' });
    expect(added.value).toMatchObject({ name: 'Rent', schedule: 'every weekday at 08:00', enabled: true, lastRun: null });
    expect(added.value.nextRuns).toHaveLength(3);
    expect(h.events.at(-1)?.topics).toContain('routines');
    expect((await refusal(h.call('routines.add', { name: 'Bad', request: 'x', schedule: 'whenever' }))).message).toContain('not a schedule');
    // The edit form's preview: the words and the next three runs, or the same one-line refusal; nothing changes.
    const preview = await h.call('routines.preview', { schedule: 'every friday 4pm' });
    expect(preview.words).toMatch(/friday at 16:00/i);
    expect(preview.nextRuns).toHaveLength(3);
    expect((await refusal(h.call('routines.preview', { schedule: 'whenever' }))).message).toContain('not a schedule');
    expect((await h.call('routines.list', {})).map((r) => r.schedule)).toEqual(['every weekday at 08:00']);

    const ran = await h.call('routines.runNow', { routine: 'rent' });
    expect(ran).toMatchObject({ status: 'waiting', waitingFor: expect.stringMatching(/^w\d+$/) });
    const pending = await h.call('approvals.list', {});
    expect(pending).toMatchObject([{ id: ran.waitingFor, tool: 'complete_task', mode: 'detached', routineId: added.value.id }]);
    const answered = await h.call('approvals.answer', { id: ran.waitingFor!, decision: 'approve' });
    expect(answered).toMatchObject({ continued: true, runId: expect.stringMatching(/^r\d+$/) });
    await h.finished(answered.runId!);
    expect(await h.call('approvals.list', {})).toEqual([]);
    await expect.poll(async () => (await h.call('routines.history', { routine: added.value.id })).map((r) => [r.kind, r.status]), { timeout: 10_000 }).toEqual([
      ['continued', 'done'],
      ['manual', 'waiting'],
    ]);
    expect((await h.call('tasks.list', { status: 'done' })).tasks.map((t) => t.content)).toEqual(['Pay rent']);

    expect((await h.call('routines.edit', { routine: added.value.id, enabled: false })).value).toMatchObject({ enabled: false, nextRuns: [] });
    expect((await h.call('routines.list', {})).map((r) => r.name)).toEqual(['Rent']);
    await h.call('routines.remove', { routine: added.value.id });
    expect(await h.call('routines.list', {})).toEqual([]);
  });
});

describe('provider profiles and keys', () => {
  it('lists, adds, edits, switches, tests and removes profiles', async () => {
    const h = setup();
    const start = await h.call('providers.list', {});
    expect(start.active).toBe('openai');
    expect(start.profiles.map((p) => p.id)).toEqual(['openai', 'ollama', 'lmstudio', 'llamacpp']);
    expect((await h.call('providers.add', { id: 'box', preset: 'ollama' })).baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect((await refusal(h.call('providers.add', { id: 'box', preset: 'ollama' }))).message).toContain('exists already');
    // A port nothing listens on: the test is fast and offline.
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    expect((await h.call('providers.update', { id: 'box', baseUrl: url, model: 'qwen3' })).model).toBe('qwen3');
    expect((await h.call('providers.use', { id: 'box' })).active).toBe('box');
    expect((await h.call('settings.get', {})).baseUrl).toBe(url);
    const report = await h.call('providers.test', {});
    expect(report).toMatchObject({ ok: false, problem: 'refused' });
    expect((await refusal(h.call('providers.remove', { id: 'box' }))).message).toContain('active profile');
    await h.call('providers.use', { id: 'openai' });
    expect((await h.call('providers.remove', { id: 'box' })).id).toBe('box');
  });

  it('first run: finds a local server where OLLAMA_HOST says, and lists the models of a URL not saved yet', async () => {
    const h = setup();
    const fake = await startFakeOpenAI({ models: ['qwen3:8b'] });
    onTestFinished(() => fake.close());
    h.deps.env!['OLLAMA_HOST'] = `127.0.0.1:${fake.port}`;
    const found = await h.call('providers.detect', {});
    expect(found.find((s) => s.preset === 'ollama')).toEqual({ preset: 'ollama', label: 'Ollama', baseUrl: fake.url, models: ['qwen3:8b'], modelCount: 1, profile: 'ollama' });
    expect(await h.call('providers.models', { baseUrl: fake.url })).toMatchObject({ ok: true, models: ['qwen3:8b'], keySource: null });
    expect(await h.call('providers.models', { baseUrl: 'not a url' })).toMatchObject({ ok: false, problem: 'bad_url' });
    // No key goes along, even with one stored for the active profile.
    await h.call('keys.set', { key: KEY });
    await h.call('providers.models', { baseUrl: fake.url, preset: 'custom' });
    expect(fake.requests.map((r) => r.authorization)).toEqual([undefined, undefined, undefined]);
  });

  it('"Open in Tidy" tells the windows which conversation to show; an unknown one is refused', async () => {
    const h = await withKey(new ScriptedModel([say('Noted.')]));
    const opened: unknown[] = [];
    h.api.on('app.open', (e) => opened.push(e));
    const run = await h.call('capture.ask', { text: 'plan the garden' });
    await h.finished(run.runId);
    expect(await h.call('app.open', { conversationId: run.conversationId })).toEqual({ opened: true });
    expect(opened).toEqual([{ conversationId: run.conversationId }]);
    expect((await refusal(h.call('app.open', { conversationId: 'c999' }))).message).toBe('no conversation with id c999');
    expect(opened).toHaveLength(1);
  });

  it('takes a key in and never gives it out: only whether one is set', async () => {
    const h = setup();
    const seen: string[] = [];
    h.api.on('data.changed', (e) => seen.push(JSON.stringify(e)));
    const replies = [
      await h.call('keys.status', {}),
      await h.call('keys.set', { key: KEY }),
      await h.call('keys.status', { profile: 'openai' }),
      await h.call('providers.list', {}),
      await h.call('settings.get', {}),
    ];
    expect(replies[0]).toMatchObject({ profile: 'openai', stored: false, source: null, required: true });
    expect(replies[1]).toMatchObject({ stored: true, source: 'keychain', problem: null });
    for (const r of [...replies, ...seen]) expect(JSON.stringify(r)).not.toContain(KEY);
    expect(await h.deps.secrets.get('openai')).toContain(KEY);
    expect(await h.call('keys.clear', {})).toMatchObject({ stored: false });
    expect((await refusal(h.call('keys.set', { key: 'has spaces in it' }))).message).toContain('spaces');
    expect((await refusal(h.call('keys.status', { profile: 'nope' }))).message).toContain("no provider profile 'nope'");
  });
});

describe('the action log and undo', () => {
  it('pages newest first, grouped by request', async () => {
    const { call } = setup();
    for (const content of ['a', 'b', 'c']) await call('tasks.add', { content });
    const first = await call('actions.list', { limit: 2 });
    expect(first.groups.flatMap((g) => g.actions.map((a) => a.summary))).toEqual(["Added 'c' to Inbox", "Added 'b' to Inbox"]);
    expect(first.groups.every((g) => g.source === 'user' && g.actions.length === 1)).toBe(true);
    expect(first.nextBefore).not.toBeNull();
    const second = await call('actions.list', { limit: 2, before: first.nextBefore! });
    expect(second.groups.flatMap((g) => g.actions.map((a) => a.summary))).toEqual(["Added 'a' to Inbox"]);
    expect(second.nextBefore).toBeNull();
  });

  it('undoes an action, redoes it, undoes a request and the last request', async () => {
    const { call, events } = setup();
    const added = await call('tasks.add', { content: 'Water the plants' });
    const inbox = async () => (await call('tasks.list', { project: 'inbox' })).tasks.map((t) => t.content);

    const undone = await call('actions.undo', { actionId: added.actionId });
    const plants = { verb: 'added', kind: 'task', id: added.value.id, name: 'Water the plants', count: 1 };
    expect(undone.reversed).toEqual([
      { id: added.actionId, summary: "Added 'Water the plants' to Inbox", subject: "Added 'Water the plants' to Inbox", what: { ...plants, reverses: null } },
    ]);
    expect(await inbox()).toEqual([]);

    await call('actions.redo', { actionId: added.actionId });
    expect(await inbox()).toEqual(['Water the plants']);
    const again = await refusal(call('actions.redo', { actionId: added.actionId }));
    expect(again.message).toContain('nothing to redo');

    const requestId = (await call('actions.list', {})).groups.find((g) => g.actions.some((a) => a.id === added.actionId))!.requestId;
    await call('actions.undoRequest', { requestId });
    expect(await inbox()).toEqual([]);
    await call('tasks.add', { content: 'Feed the cat' });
    await call('actions.undoLast', {});
    expect(await inbox()).toEqual([]);
    expect(events.at(-1)).toEqual({ topics: [...DATA_TOPICS] });
  });

  it('redoes a whole request over the contract, the window naming the request it undid', async () => {
    const { call } = setup();
    await call('tasks.add', { content: 'Water the plants' });
    const undone = await call('actions.undoLast', {});
    expect(undone.requestId).toMatch(/^u/);
    const inbox = async () => (await call('tasks.list', { project: 'inbox' })).tasks.map((t) => t.content);
    expect(await inbox()).toEqual([]);
    const redone = await call('actions.redoRequest', { requestId: undone.requestId! });
    expect(redone.reversed).toEqual([
      {
        id: undone.created[0],
        summary: "Undid: Added 'Water the plants' to Inbox",
        subject: "Added 'Water the plants' to Inbox",
        what: { verb: 'undid', kind: 'task', id: expect.stringMatching(/^t\d+$/), name: 'Water the plants', count: 1, reverses: expect.stringMatching(/^a\d+$/) },
      },
    ]);
    expect(await inbox()).toEqual(['Water the plants']);
    expect((await refusal(call('actions.redoRequest', { requestId: undone.requestId! }))).message).toContain('nothing to redo');
  });

  it('archives a conversation out of the list and back', async () => {
    const { call } = setup();
    const c = await call('conversations.create', { title: 'Old plans' });
    expect((await call('conversations.archive', { id: c.id })).archivedAt).not.toBeNull();
    expect((await call('conversations.list', {})).map((x) => x.id)).not.toContain(c.id);
    expect((await call('conversations.list', { archived: true })).map((x) => x.id)).toEqual([c.id]);
    expect((await call('conversations.unarchive', { id: c.id })).archivedAt).toBeNull();
    expect((await call('conversations.list', {})).map((x) => x.id)).toContain(c.id);
    expect((await refusal(call('conversations.archive', { id: 'c999' }))).message).toContain('no conversation with id c999');
  });

  it('keeps memories: add, edit, forget and list them; archiving a conversation may forget the ones it made', async () => {
    const { call, db, events } = setup();
    await call('projects.create', { name: 'Errands' });
    const m = await call('memory.add', { text: 'groceries go to Errands' });
    expect(m.value).toMatchObject({ text: 'groceries go to Errands', projectId: null, conversationId: null });
    expect(events.at(-1)?.topics).toContain('memory');
    await call('memory.update', { memory: m.value.id, text: 'groceries always go to Errands', project: 'Errands' });
    const listed = await call('memory.list', {});
    expect(listed.memories.map((x) => [x.text, x.project])).toEqual([['groceries always go to Errands', 'Errands']]);
    expect(listed).toMatchObject({ enabled: true, budget: { applied: 0, left: 0 } });
    await call('memory.forget', { memory: m.value.id });
    expect((await call('memory.list', {})).memories).toEqual([]);
    expect((await call('memory.list', { includeArchived: true, query: 'groceries' })).memories).toHaveLength(1);
    await expect(call('memory.add', { text: 'x'.repeat(501) })).rejects.toThrow(/501 characters/);

    const c = await call('conversations.create', { title: 'Shopping', incognito: true });
    expect(c.incognito).toBe(true);
    const kept = await call('conversations.create', { title: 'Other' });
    expect(kept.incognito).toBeUndefined();
    okValue(addMemory(db, { requestId: 'r1', source: 'agent' }, { text: 'no meetings before 10', from: { conversationId: kept.id, runId: 'r1' } }));
    okValue(addMemory(db, { requestId: 'r1', source: 'agent' }, { text: 'the dentist is on Fridays', from: { conversationId: kept.id, runId: 'r1' } }));
    expect((await call('memory.list', { conversationId: kept.id })).memories).toHaveLength(2);
    await call('conversations.archive', { id: kept.id, forgetMemories: true });
    expect((await call('memory.list', {})).memories).toEqual([]);
    // One request by hand: one undo brings both back.
    const undo = await call('actions.undoRequest', { requestId: (await call('actions.list', {})).groups[0]!.requestId });
    expect(undo.reversed).toHaveLength(2);
    expect((await call('memory.list', {})).memories).toHaveLength(2);
  });

  it('undo with cascade reverses the later changes first', async () => {
    const { call } = setup();
    const t = await call('tasks.add', { content: 'Plan' });
    await call('tasks.update', { task: t.value.id, content: 'Plan the trip' });
    const blocked = await refusal(call('actions.undo', { actionId: t.actionId }));
    expect(blocked.hint).toContain('cascade');
    const r = await call('actions.undo', { actionId: t.actionId, cascade: true });
    expect(r.reversed).toHaveLength(2);
  });
});

describe('settings', () => {
  it('reads all settings and sets one, validated', async () => {
    const { call, events } = setup();
    const s = await call('settings.get', {});
    expect(s.maxActions).toBe(20);
    expect((await call('settings.set', { key: 'maxActions', value: 5 })).maxActions).toBe(5);
    expect((await call('settings.set', { key: 'approvals.complete_task', value: 'auto' })).approvals['complete_task']).toBe('auto');
    expect(events).toEqual([{ topics: ['settings'] }, { topics: ['settings'] }]);
    const e = await refusal(call('settings.set', { key: 'maxActions', value: 0 }));
    expect(e.code).toBe('failed');
    expect(e.message).toContain('maxActions');
    expect((await refusal(call('settings.set', { key: 'nope', value: 1 }))).message).toContain("unknown setting 'nope'");
  });
});

describe('the dispatcher', () => {
  it('refuses an invalid payload before any handler runs, saying which field is wrong', async () => {
    const { api } = setup();
    const e = await refusal(api.invoke('tasks.add', { content: 42 } as never));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/^invalid input for tasks\.add: content: /);
  });

  it('refuses a channel that is not in the contract', async () => {
    const { transport } = setup();
    const r = await transport.invoke('tasks.drop' as never, {} as never);
    expect(r).toMatchObject({ ok: false, code: 'unknown_channel' });
  });

  it('tells every listener which views a change made stale; reads and refusals tell nothing', async () => {
    const { call, events, api } = setup();
    const seen: string[][] = [];
    const off = api.on('data.changed', (e) => seen.push(e.topics));
    await call('tasks.list', {});
    await refusal(call('tasks.move', { task: 't1', project: 'Nowhere' }));
    expect(events).toEqual([]);
    await call('lists.create', { name: 'Books' });
    expect(events).toEqual([{ topics: ['lists', 'actions'] }]);
    off();
    await call('lists.create', { name: 'Films' });
    expect(seen).toEqual([['lists', 'actions']]);
  });

  it('answers a bug in a handler with an internal error and logs it, without a stack trace in the reply', async () => {
    const { createDispatch } = await import('../../../src-main/host/dispatch');
    const { createEventHub } = await import('../../../src-main/host/hub');
    const logged: unknown[] = [];
    const boom = () => {
      throw new Error('disk on fire');
    };
    const dispatch = createDispatch({ 'tasks.list': boom } as never, createEventHub(), { log: (_m, e) => logged.push(e) });
    const r = await dispatch('tasks.list', {});
    expect(r).toMatchObject({ ok: false, code: 'internal', error: 'tasks.list failed unexpectedly: disk on fire' });
    expect(JSON.stringify(r)).not.toContain('at ');
    expect(logged).toHaveLength(1);
  });
});

describe('MCP servers', () => {
  it('lists the tools a configured server offers, and refuses an unknown or broken one', async () => {
    const { call } = setup();
    const fake = new URL('../../fakes/mcp-server.mjs', import.meta.url).pathname;
    await call('settings.set', { key: 'mcpServers', value: { fake: { command: process.execPath, args: [fake] }, broken: { command: '/nonexistent/server' } } });
    const tools = await call('mcp.tools', { server: 'fake' });
    expect(tools.map((t) => t.name)).toEqual(['fake__echo', 'fake__save_note']);
    expect(tools[0]).toMatchObject({ original: 'echo', readOnly: true });
    expect(await refusal(call('mcp.tools', { server: 'nope' }))).toMatchObject({ message: expect.stringContaining('no MCP server named nope') });
    expect(await refusal(call('mcp.tools', { server: 'broken' }))).toMatchObject({ message: expect.stringContaining('could not list the tools of broken') });
  });
});

/** Sends a file the way the UI does (src-renderer/lib/upload.ts), counting the channels as covered. */
async function uploaded(h: Pick<ReturnType<typeof setup>, 'api'>, name: string, text: string | Uint8Array<ArrayBuffer>): Promise<string> {
  covered.add('uploads.start');
  covered.add('uploads.add');
  return sendFile(h.api, Object.assign(new Blob([text]), { name }));
}

describe('files from the UI, in parts', () => {
  it('imports an .ics file of 1.6 MB, more than one request may hold, as an upload; parts out of order or too long are refused', async () => {
    const h = setup();
    const events = Array.from({ length: 8000 }, (_, i) =>
      ['BEGIN:VEVENT', `UID:big-${i}@example.com`, 'DTSTAMP:20300101T000000Z', `DTSTART:2030${String(1 + (i % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}T090000Z`, 'DURATION:PT30M', `SUMMARY:Meeting ${i} ${'·'.repeat(40)}`, 'END:VEVENT'].join('\r\n'),
    );
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Example//Big//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(1_500_000);
    const upload = await uploaded(h, 'Team.ics', text);
    const imported = await h.call('calendars.importUpload', { upload, person: 'Alice' });
    expect(imported.value).toMatchObject({ added: 8000, calendar: { name: 'Alice', source: 'Team.ics' } });
    expect(h.events.at(-1)).toEqual({ topics: ['events', 'actions'] });
    // The same bytes inline are refused before any schema reads them.
    expect(await refusal(h.call('calendars.import', { fileName: 'Team.ics', text }))).toMatchObject({ code: 'invalid_input' });

    const { upload: other } = await h.call('uploads.start', { name: 'Other.ics', size: 6 });
    expect(await h.call('uploads.add', { upload: other, offset: 0, base64: Buffer.from('abc').toString('base64') })).toEqual({ received: 3 });
    expect((await refusal(h.call('uploads.add', { upload: other, offset: 0, base64: 'YWJj' }))).message).toBe('a part of Other.ics came out of order (at byte 0, expected 3)');
    expect((await refusal(h.call('uploads.add', { upload: other, offset: 3, base64: 'YWJjZA==' }))).message).toBe('Other.ics is longer than the 6 bytes announced');
    expect((await refusal(h.call('calendars.importUpload', { upload: other }))).message).toBe('Other.ics has not fully arrived (3 of 6 bytes)');
    expect((await refusal(h.call('uploads.start', { name: 'x.ics', size: 65 * 1024 * 1024 }))).code).toBe('invalid_input');
  });
});

describe('data channels: Todoist import and backups', () => {
  const csv = async (h: ReturnType<typeof setup>, text: string) => ({ upload: await uploaded(h, 'Home.csv', text) });
  const HEAD = 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE';

  it('previews (writing nothing), imports as one request that tells the views, and refuses a malformed file with the row', async () => {
    const h = setup();
    const upload = await csv(h, `${HEAD}\nsection,Kitchen\ntask,"Paint, then sand",,1,1\nnote,a comment\ntask,Tiles,,4,2`);
    const before = snapshot(h.db);
    const preview = await h.call('data.todoistPreview', upload);
    expect(preview.totals).toMatchObject({ projects: 1, newProjects: 1, tasks: 2, sections: 1, notes: 1, subtasks: 1 });
    expect(preview.projects[0]).toMatchObject({ name: 'Home', isNew: true, tasks: 2, sections: ['Kitchen'], sample: ['Paint, then sand', 'Tiles'] });
    expect(snapshot(h.db)).toEqual(before);
    expect(h.events).toEqual([]);

    const done = await h.call('data.todoistImport', upload);
    expect(done.requestId).toMatch(/^u\d+$/);
    expect(done.backup).toMatch(/backups\/tidy-before-import-.*\.db$/);
    expect(h.events.at(-1)!.topics).toEqual(expect.arrayContaining(['tasks', 'projects', 'actions']));
    expect((await h.call('tasks.list', { project: 'Home' })).tasks.map((t) => t.content)).toEqual(['Paint, then sand', 'Tiles']);

    const bad = await refusal(h.call('data.todoistPreview', await csv(h, `${HEAD}\ntask,x,,9,1`)));
    expect(bad.message).toMatch(/^Home\.csv, line 2: PRIORITY "9"/);
    expect((await refusal(h.call('data.todoistImport', { upload: 'not an upload' }))).code).toBe('invalid_input');
    expect((await refusal(h.call('data.todoistImport', { upload: 'up_AAAAAAAAAAAAAAAAAAAAAA' }))).message).toMatch(/^no upload up_A+ is waiting/);
  });

  it('no backup at first; Back up now makes one, which is then the last one', async () => {
    const h = setup();
    expect(await h.call('data.lastBackup', {})).toBeNull();
    const made = await h.call('data.backupNow', {});
    expect(made.path).toMatch(/backups\/tidy-backup-.*\.db$/);
    expect(made.bytes).toBeGreaterThan(0);
    expect(await h.call('data.lastBackup', {})).toEqual(made);
  });

  it('exports everything as a file to save: JSON that names its format, or Markdown', async () => {
    const h = setup();
    await h.call('tasks.add', { content: 'Exported <b>task</b>' });
    const json = await h.call('data.export', { format: 'json' });
    expect(json).toMatchObject({ filename: expect.stringMatching(/^tidy-export-.*\.json$/), mimeType: 'application/json' });
    expect(JSON.stringify(JSON.parse(json.content))).toContain('Exported <b>task</b>');
    const md = await h.call('data.export', { format: 'markdown' });
    expect(md.filename).toMatch(/\.md$/);
    expect(md.content).toContain('Exported');
    expect((await refusal(h.call('data.export', { format: 'csv' } as never))).code).toBe('invalid_input');
  });
});

describe('restoring from the window', () => {
  it('restores a backup or a JSON export: later changes are gone, the current file is kept aside, every view is told', async () => {
    const h = setup();
    await h.call('tasks.add', { content: 'Before the backup' });
    const backup = await h.call('data.backupNow', {});
    const json = await h.call('data.export', { format: 'json' });
    await h.call('tasks.add', { content: 'After the backup' });
    const open = async () => (await h.call('tasks.list', {})).tasks.map((t) => t.content);
    expect(await open()).toEqual(expect.arrayContaining(['Before the backup', 'After the backup']));

    h.events.length = 0;
    const upload = await uploaded(h, 'tidy-backup.db', new Uint8Array(readFileSync(backup.path)));
    const r = await h.call('data.restore', { upload });
    expect(r).toMatchObject({ from: 'backup', keptAt: expect.stringMatching(/backups\/tidy-before-restore-.*\.db$/) });
    expect(h.events).toEqual([{ topics: [...TOPICS] }]);
    expect(await open()).toContain('Before the backup');
    expect(await open()).not.toContain('After the backup');
    // The host works on the restored file: a change is logged and undoable there.
    const added = await h.call('tasks.add', { content: 'After the restore' });
    await h.call('actions.undoLast', {});
    expect(await open()).not.toContain(added.value.content);

    await h.call('tasks.add', { content: 'Before the JSON restore' });
    const fromExport = await h.call('data.restore', { upload: await uploaded(h, 'tidy-export.json', json.content) });
    expect(fromExport.from).toBe('export');
    expect(await open()).toContain('Before the backup');
    expect(await open()).not.toContain('Before the JSON restore');
  });

  it('refuses a bad file in one line, and a database another Tidy has open, changing nothing', async () => {
    const h = setup();
    await h.call('tasks.add', { content: 'Kept' });
    const before = snapshot(h.host.db);
    const bad = [
      ['notes.txt', 'hello'],
      ['broken.db', 'SQLite format 3\0' + 'x'.repeat(200)],
      ['other.json', JSON.stringify({ format: 'something-else' })],
      ['deep.json', '{"a":' + '['.repeat(100_000)],
    ] as const;
    for (const [name, text] of bad) {
      const e = await refusal(h.call('data.restore', { upload: await uploaded(h, name, text) }));
      expect(e.message).toContain(name);
      expect(e.message).not.toMatch(/\n|tidy-restore-/);
    }
    expect(snapshot(h.host.db)).toEqual(before);

    const good = await uploaded(h, 'tidy-backup.db', new Uint8Array(readFileSync((await h.call('data.backupNow', {})).path)));
    await h.call('tasks.add', { content: 'Not lost' });
    // Another holder of the database's lock (as `tidy serve` or `tidy mcp` would be).
    const other = openDatabase(h.host.db.name);
    const busy = await refusal(h.call('data.restore', { upload: good }));
    expect(busy.message).toMatch(/open in .*nothing was (restored|changed)/);
    other.close();
    expect((await h.call('tasks.list', {})).tasks.map((t) => t.content)).toContain('Not lost');

    // A host that cannot reopen its database points at the CLI.
    const plain = memoryHost(undefined, { reopen: undefined });
    expect((await refusal(plain.call('data.restore', { upload: await uploaded(plain, 'x.db', 'x') }))).message).toMatch(/cannot restore/);
  });
});

describe('sync', () => {
  it('sync.status says how to set up while off; on without a key it says to enter the passphrase; sync.unlock (a wrong one refused in one line) syncs', async () => {
    const h = setup();
    expect(await h.call('sync.status', {})).toMatchObject({ on: false, target: null, devices: [], setup: expect.stringMatching(/^tidy sync setup --folder PATH/) });
    const added = await h.call('tasks.add', { content: 'Call the plumber' });
    expect(await h.call('sync.conflicts', { table: 'tasks', row: added.value.id })).toEqual([]);
    // only the tables with a history in the window, and only a row id: never a table name read into SQL
    for (const bad of [{ table: 'sqlite_master', row: 'x' }, { table: 'tasks', row: 'x'.repeat(65) }, { table: 'tasks; DROP TABLE tasks', row: 't1' }, { task: added.value.id }])
      await expect(h.call('sync.conflicts', bad as never)).rejects.toThrow();
    const folder = tempDir();
    await setupSync(h.db, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Laptop', kdf: FAST_KDF });
    // no key in the keychain: a round cannot run, and the status says what to do
    const locked = await h.call('sync.now', {});
    expect(locked).toMatchObject({ on: true, locked: true, kind: 'folder', target: folder, name: 'Laptop', lastSyncedAt: null, error: null });
    expect(locked.pending).toBeGreaterThan(0);
    expect((await refusal(h.call('sync.unlock', { passphrase: 'wrong' }))).message).toBe('Wrong passphrase for this sync target.');
    h.events.length = 0;
    const synced = await h.call('sync.unlock', { passphrase: 'pass phrase' });
    expect(synced).toMatchObject({ locked: false, pending: 0, error: null, devices: [{ name: 'Laptop', self: true }] });
    expect(Date.parse(synced.lastSyncedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(h.events.some((e) => e.topics.includes('sync'))).toBe(true);
    // focus answers at once with the status (a round ran moments ago: none now)
    expect(await h.call('sync.now', { focus: true })).toMatchObject({ on: true, running: false });
  });
});

afterAll(() => {
  // Every channel of the contract was exercised above, through the transport.
  expect([...covered].sort()).toEqual(Object.keys(channels).sort());
});
