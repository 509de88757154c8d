import { describe, expect, it } from 'vitest';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { fakeApi, flush } from '../../fake-api';
import { reversed, task } from '../../fixtures';

const CAKE = task('t1', 'Bake the cake');

describe('editing tasks by hand', () => {
  it('sends only what changed: one update, then a move when the project changed', async () => {
    const fake = fakeApi({
      'tasks.update': (input) => ({ value: { ...CAKE, ...input, id: CAKE.id }, actionId: 'a1' }) as never,
      'tasks.move': () => ({ value: { ...CAKE, projectId: 'p2', project: 'Party' }, actionId: 'a2' }),
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().editTask(CAKE, { content: 'Bake the cake', priority: 1, due: '2026-03-02', project: 'p2' })).toBeNull();
    expect(fake.calls.map((c) => [c.channel, c.input])).toEqual([
      ['tasks.update', { task: 't1', priority: 1, due: '2026-03-02' }],
      ['tasks.move', { task: 't1', project: 'p2' }],
    ]);
    fake.calls.length = 0;
    expect(await store.getState().editTask(CAKE, { content: 'Bake the cake', priority: 4, due: null, project: 'inbox' })).toBeNull();
    expect(fake.calls).toEqual([]);
  });

  it('a refused update is the form’s problem, and no move follows it', async () => {
    const fake = fakeApi({
      'tasks.update': () => {
        throw new Error('no task with id t1');
      },
    });
    const store = createAppStore({ api: fake.api });
    const problem = await store.getState().editTask(CAKE, { content: 'x', project: 'p2' });
    expect(problem?.message).toBe('no task with id t1');
    expect(fake.calls.map((c) => c.channel)).toEqual(['tasks.update']);
  });

  it('completing puts Undo on the notice, which undoes that very action', async () => {
    const fake = fakeApi({
      'tasks.complete': () => ({ value: { ...CAKE, status: 'done' }, actionId: 'a7' }),
      'actions.undo': () => ({ reversed: [reversed('a7', "Completed 'Bake the cake'", 'completed')], created: ['a8'] }),
      'tasks.list': () => ({ tasks: [CAKE], total: 1 }),
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadInbox();
    await store.getState().setTaskDone('t1', true);
    const notice = store.getState().notices.at(-1)!;
    expect(notice.text).toBe('Completed: Bake the cake');
    expect(notice.action?.label).toBe('Undo');
    await notice.action!.run();
    expect(fake.callsTo('actions.undo')).toEqual([{ actionId: 'a7' }]);
  });

  it('a reminder from the main side becomes a card; Snooze moves it on and takes the card away', async () => {
    const fake = fakeApi({ 'tasks.snooze': (input) => ({ value: { ...CAKE, due: '2026-03-01T10:10' }, actionId: `s-${input.minutes}` }) });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    const due = { ...CAKE, due: '2026-03-01T10:00' };
    fake.emit('reminder.due', { task: due });
    fake.emit('reminder.due', { task: due });
    await flush();
    expect(store.getState().reminders).toEqual([due]);
    await store.getState().snoozeReminder(due);
    expect(fake.callsTo('tasks.snooze')).toEqual([{ task: 't1', minutes: 10 }]);
    expect(store.getState().reminders).toEqual([]);
  });

  it('shows only the answer to the latest search words', async () => {
    const answers: Record<string, (v: unknown) => void> = {};
    const fake = fakeApi({ 'search.query': ({ query }) => new Promise((r) => (answers[query] = r as (v: unknown) => void)) as never });
    const store = createAppStore({ api: fake.api });
    const first = store.getState().runSearch('ca');
    const second = store.getState().runSearch('cake');
    answers['cake']!({ groups: [{ kind: 'task', hits: [] }], total: 1 });
    await second;
    answers['ca']!({ groups: [], total: 0 });
    await first;
    expect(store.getState().search).toMatchObject({ query: 'cake', loading: false, value: { total: 1 } });
  });
});
