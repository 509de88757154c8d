import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { deferred, fakeApi, flush } from '../../fake-api';
import { task } from '../../fixtures';

const page = (...contents: string[]) => ({ tasks: contents.map((c, i) => task(`t${i + 1}`, c)), total: contents.length });

describe('data slice', () => {
  it('loads the inbox and keeps the last good value when a refetch fails', async () => {
    const fake = fakeApi({ 'tasks.list': () => page('Buy milk birthday cake', 'Bake the birthday cake') });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadInbox();
    expect(store.getState().inbox.value?.tasks.map((t) => t.content)).toEqual(['Buy milk birthday cake', 'Bake the birthday cake']);
    expect(fake.callsTo('tasks.list')).toEqual([{ project: 'inbox', limit: 1000 }]);

    fake.handlers['tasks.list'] = () => {
      throw new BridgeError('disconnected', 'the connection is closed', 'is tidy serve running?');
    };
    await store.getState().loadInbox();
    const { inbox } = store.getState();
    expect(inbox.value?.total).toBe(2);
    expect(inbox.problem).toMatchObject({ message: 'the connection is closed', hint: 'is tidy serve running?', code: 'disconnected' });
    expect(inbox.loading).toBe(false);
  });

  it('refetches only the views that are shown, for the topics that changed', async () => {
    const fake = fakeApi({ 'tasks.list': () => page('a'), 'projects.list': () => [], 'lists.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().loadInbox();
    fake.calls.length = 0;

    fake.emit('data.changed', { topics: ['lists'] });
    await flush();
    expect(fake.calls).toEqual([]);

    fake.emit('data.changed', { topics: ['tasks', 'actions'] });
    await flush();
    expect(fake.calls.map((c) => c.channel)).toEqual(['tasks.list']);
  });

  it('coalesces a burst of change events into at most two fetches, the last one seeing the last change', async () => {
    let version = 0;
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const fake = fakeApi({
      'tasks.list': async () => {
        const seen = version;
        const gate = deferred<void>();
        gates.push(gate);
        await gate.promise;
        return page(`v${seen}`);
      },
    });
    const store = createAppStore({ api: fake.api });
    const first = store.getState().loadInbox();
    for (let i = 1; i <= 5; i++) {
      version = i;
      void store.getState().refreshData(['tasks']);
    }
    gates[0]!.resolve();
    await flush();
    expect(gates).toHaveLength(2);
    gates[1]!.resolve();
    await first;
    expect(fake.callsTo('tasks.list')).toHaveLength(2);
    expect(store.getState().inbox.value?.tasks[0]?.content).toBe('v5');
  });

  it('shows a refused edit next to its form and clears it after a successful one', async () => {
    const fake = fakeApi({
      'projects.create': () => {
        throw new BridgeError('failed', "a project named 'Birthday Celebration' exists", 'pick another name');
      },
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().createProject('Birthday Celebration')).toBe(false);
    expect(store.getState().formProblems['projects.create']).toMatchObject({ message: "a project named 'Birthday Celebration' exists", hint: 'pick another name' });

    fake.handlers['projects.create'] = ({ name }) => ({ value: { id: 'p2', name }, actionId: 'a9' });
    expect(await store.getState().createProject('Party')).toBe(true);
    expect(store.getState().formProblems['projects.create']).toBeUndefined();
  });

  it('ticks a box at once, and takes the tick back when the change is refused', async () => {
    const fake = fakeApi({
      'tasks.list': () => page('Bake the birthday cake'),
      'tasks.complete': () => {
        throw new BridgeError('failed', 'no task with id t1', 'it may have been archived');
      },
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadInbox();
    const done = store.getState().setTaskDone('t1', true);
    expect(store.getState().inbox.value?.tasks[0]?.status).toBe('done');
    await done;
    expect(store.getState().inbox.value?.tasks[0]?.status).toBe('open');
    expect(store.getState().notices.at(-1)?.text).toBe('no task with id t1 — it may have been archived');
  });

  it('completing a repeating task whose rule gives no later date says why it will not come back', async () => {
    const repeating = (recurrence: string) => ({ ...task('t1', 'Pay rent'), due: '2020-01-06', recurrence });
    let rule = 'FREQ=WEEKLY;COUNT=3';
    const fake = fakeApi({
      'tasks.list': () => ({ tasks: [repeating(rule)], total: 1 }),
      'tasks.complete': () => ({ value: { ...repeating(rule), status: 'done' as const }, actionId: 'a1' }),
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadInbox();
    await store.getState().setTaskDone('t1', true);
    expect(store.getState().notices.at(-1)).toMatchObject({
      text: 'Completed: Pay rent · its rule gives no later date (COUNT=3: all 3 of its dates are used up), so it will not come back',
      action: { label: 'Undo' },
    });
    // A date in the reason reads as the window's other dates do, not as ISO.
    rule = 'FREQ=DAILY;UNTIL=20200110';
    await store.getState().setTaskDone('t1', true);
    const text = store.getState().notices.at(-1)?.text ?? '';
    expect(text).toMatch(/^Completed: Pay rent · its rule gives no later date \(it ends on .*10.*\), so it will not come back$/);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('drops the answer for a project that is no longer open', async () => {
    const slow = deferred<{ tasks: ReturnType<typeof task>[]; total: number }>();
    const fake = fakeApi({ 'tasks.list': ({ project }) => (project === 'p1' ? slow.promise : page('in p2')) });
    const store = createAppStore({ api: fake.api });
    const opening = store.getState().openProject('p1');
    const second = store.getState().openProject('p2');
    slow.resolve(page('in p1'));
    await Promise.all([opening, second]);
    expect(store.getState().project.id).toBe('p2');
    expect(store.getState().project.value?.tasks[0]?.content).toBe('in p2');
  });

  it('quick capture adds to the inbox or asks the agent, and reports a refusal', async () => {
    const fake = fakeApi({
      'capture.add': ({ text }) => ({ value: task('t1', text), actionId: 'a1', note: null, unread: { project: null, repeat: null }, createdProject: null }),
      'capture.ask': () => {
        throw new BridgeError('failed', 'no API key is set for openai', 'set one in Settings');
      },
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().addTask('capture', 'Buy balloons')).toEqual({ ok: true, words: 'Added to the inbox: Buy balloons' });
    expect(fake.callsTo('capture.add')).toEqual([{ text: 'Buy balloons' }]);
    expect(await store.getState().askFromCapture('Sort my inbox')).toMatchObject({ message: 'no API key is set for openai' });
  });
});

describe('the one route to add a task', () => {
  const added = (value: ReturnType<typeof task>, more: Record<string, unknown> = {}) => ({ value, actionId: 'a1', note: null, unread: { project: null, repeat: null }, createdProject: null, ...more });

  it('sends every box’s line as typed with its defaults, and words what stayed in the text on every route', async () => {
    const answers = [
      added(task('t1', 'Call grandma #Famly'), { unread: { project: { name: 'Famly', suggestion: 'Family' }, repeat: null } }),
      added(task('t2', 'Buy a card', 'Family')),
      added(task('t3', 'Book the hall', 'Reunion'), { createdProject: 'Reunion', requestId: 'u7' }),
      added(task('t4', 'Call grandma #Famly'), { unread: { project: { name: 'Famly', suggestion: 'Family' }, repeat: 'every 12 hours' } }),
    ];
    const fake = fakeApi({
      'capture.add': () => {
        const next = answers.shift();
        if (!next) throw new BridgeError('invalid_input', 'text: say what to add', 'type a task');
        return next;
      },
      'projects.list': () => [],
    });
    const store = createAppStore({ api: fake.api });
    const s = () => store.getState();
    expect(await s().addTask('inbox.add', 'Call grandma #Famly', { project: 'inbox' })).toMatchObject({ ok: true });
    expect(s().notices.at(-1)?.text).toBe('Added to Inbox: there is no project “Famly”, so it stays in the text · Did you mean Family?');
    await s().addTask('today.add', 'Buy a card #Family', { due: '2035-01-10' });
    expect(s().notices.at(-1)).toMatchObject({ text: 'Added to Family', action: { label: 'Open' } });
    await s().addTask('project.add', 'Book the hall #Reunion', { project: 'p2', createProject: true });
    expect(s().notices.at(-1)).toMatchObject({ text: 'Created project Reunion and added “Book the hall” to it', action: { label: 'Undo' } });
    // The capture window says it under its box instead of in a notice.
    const count = s().notices.length;
    expect(await s().addTask('capture', 'Call grandma every 12 hours #Famly')).toEqual({
      ok: true,
      words: 'Added to Inbox: there is no project “Famly”, so it stays in the text · Did you mean Family?; “every 12 hours” is not a repeat Tidy reads, so it stays in the text',
    });
    expect(s().notices).toHaveLength(count);
    // A refusal is the form's.
    expect(await s().addTask('upcoming.add', ' ')).toMatchObject({ ok: false, problem: { code: 'invalid_input' } });
    expect(s().formProblems['upcoming.add']).toMatchObject({ message: 'text: say what to add' });
    expect(fake.callsTo('capture.add')).toEqual([
      { text: 'Call grandma #Famly', project: 'inbox' },
      { text: 'Buy a card #Family', due: '2035-01-10' },
      { text: 'Book the hall #Reunion', project: 'p2', createProject: true },
      { text: 'Call grandma every 12 hours #Famly' },
      { text: ' ' },
    ]);
  });
});
