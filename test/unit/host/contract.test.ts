// The IPC contract over the in-memory transport (STYLE 5): the real handlers, dispatcher and event hub
// on a real database; every value is checked against the contract's output schema.
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../../../src-shared/bridge';
import { channels, type ChannelName, type DataChanged } from '../../../src-shared/ipc';
import { memoryHost } from '../../support/host';
import { snapshot } from '../../support/db';

/** Every channel a test below calls; the last test checks that none was forgotten. */
const covered = new Set<ChannelName>();
function setup() {
  const h = memoryHost();
  const call: typeof h.call = (channel, input) => {
    covered.add(channel);
    return h.call(channel, input);
  };
  const events: DataChanged[] = [];
  h.api.on('data.changed', (e) => events.push(e));
  return { ...h, call, events };
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

describe('quick capture', () => {
  it('adds the text to the inbox at once', async () => {
    const { call } = setup();
    const r = await call('capture.add', { text: '  Call the plumber ' });
    expect(r.value).toMatchObject({ content: 'Call the plumber', projectId: 'inbox' });
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
    expect(undone.reversed).toEqual([{ id: added.actionId, summary: "Added 'Water the plants' to Inbox" }]);
    expect(await inbox()).toEqual([]);

    await call('actions.redo', { actionId: added.actionId });
    expect(await inbox()).toEqual(['Water the plants']);
    const again = await refusal(call('actions.redo', { actionId: added.actionId }));
    expect(again.message).toContain('nothing to redo');

    const runId = (await call('actions.list', {})).groups.find((g) => g.actions.some((a) => a.id === added.actionId))!.runId;
    await call('actions.undoRequest', { runId });
    expect(await inbox()).toEqual([]);
    await call('tasks.add', { content: 'Feed the cat' });
    await call('actions.undoLast', {});
    expect(await inbox()).toEqual([]);
    expect(events.at(-1)).toEqual({ topics: ['tasks', 'projects', 'lists', 'actions'] });
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

afterAll(() => {
  // Every channel of the contract was exercised above, through the transport.
  expect([...covered].sort()).toEqual(Object.keys(channels).sort());
});
