// Rich tasks in the window, without a page: the subtask tree of a task list (src-renderer/features/tasks/tree.ts)
// and the store's rich slice (sections, progress, comments, labels, the filter box, saved filters) over a fake bridge.
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { Task } from '../../../../../src-shared/domain';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { durationText, progressText, readLabels, sameLabels, taskTree } from '../../../../../src-renderer/features/tasks/tree';
import { deadlinePreview } from '../../../../../src-renderer/features/tasks/TaskList';
import { quickAddSummary } from '../../../../../src-renderer/features/tasks/QuickAdd';
import { parseQuickAdd } from '../../../../../src-shared/quickadd';
import { fakeApi, flush } from '../../fake-api';
import { task } from '../../fixtures';

const sub = (id: string, parentId: string | null, more: Partial<Task> = {}): Task => ({ ...task(id, `task ${id}`), parentId, ...more });
const shape = (rows: ReturnType<typeof taskTree>) => rows.map((r) => `${'  '.repeat(r.depth)}${r.task.id}`);

describe('the subtask tree of a task list', () => {
  it('puts subtasks under their parents, in the list order among siblings, at any depth', () => {
    const tasks = [sub('t1', null), sub('t4', 't2'), sub('t2', 't1'), sub('t3', 't1'), sub('t5', null), sub('t6', 't4')];
    expect(shape(taskTree(tasks))).toEqual(['t1', '  t2', '    t4', '      t6', '  t3', 't5']);
    const rows = taskTree(tasks);
    expect(rows.find((r) => r.task.id === 't1')).toMatchObject({ children: 2, openBelow: 4 });
    expect(rows.find((r) => r.task.id === 't6')).toMatchObject({ children: 0, openBelow: 0 });
  });

  it('shows a task whose parent is not in the list on top, and counts only open subtasks below', () => {
    const rows = taskTree([sub('t2', 't9'), sub('t3', 't2', { status: 'done' }), sub('t4', 't2')]);
    expect(shape(rows)).toEqual(['t2', '  t3', '  t4']);
    expect(rows[0]).toMatchObject({ children: 2, openBelow: 1 });
  });

  it('hides what is under a collapsed task, and shows it nowhere else', () => {
    const tasks = [sub('t1', null), sub('t2', 't1'), sub('t3', 't2'), sub('t4', null)];
    expect(shape(taskTree(tasks, new Set(['t1'])))).toEqual(['t1', 't4']);
    expect(shape(taskTree(tasks, new Set(['t2'])))).toEqual(['t1', '  t2', 't4']);
    // Its open subtasks still count (the completion question needs them).
    expect(taskTree(tasks, new Set(['t1']))[0]).toMatchObject({ children: 1, openBelow: 2 });
  });

  it('a chain 5,000 deep, a cycle of parents and a task that is its own parent: every task shown once, no recursion', () => {
    const chain = Array.from({ length: 5_000 }, (_, i) => sub(`t${i}`, i === 0 ? null : `t${i - 1}`));
    const rows = taskTree(chain);
    expect(rows).toHaveLength(5_000);
    expect(rows.at(-1)).toMatchObject({ depth: 4_999 });
    expect(rows[0]!.openBelow).toBe(4_999);
    const cycle = [sub('a', 'b'), sub('b', 'a'), sub('c', 'c'), sub('d', null)];
    const out = taskTree(cycle);
    expect(out.map((r) => r.task.id).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(out.find((r) => r.task.id === 'c')).toMatchObject({ depth: 0 });
  });

  it('says progress, durations and labels as people write them', () => {
    expect(progressText({ done: 2, total: 5 })).toBe('2/5');
    expect(progressText({ done: 0, total: 0 })).toBeNull();
    expect(progressText(undefined)).toBeNull();
    expect([45, 60, 90, 0, null].map(durationText)).toEqual(['45m', '1h', '1h30m', '', '']);
    expect(readLabels('@home  errands,@Home,, @@work')).toEqual(['home', 'errands', 'work']);
    expect(sameLabels(['Home', 'errands'], ['errands', 'home'])).toBe(true);
    expect(sameLabels(['home'], ['home', 'x'])).toBe(false);
  });

  it('the quick-add line says the labels, the deadline and the duration it will store', () => {
    const now = new Date(2035, 0, 10, 12, 0);
    const q = parseQuickAdd('Call Sam @phone @Work {2035-01-20} for 1h30m', { projects: [], now });
    expect(quickAddSummary(q, now).filter((x) => ['label', 'deadline', 'duration'].includes(x.kind))).toEqual([
      { kind: 'label', label: 'Labels', text: '@phone @Work' },
      { kind: 'deadline', label: 'Deadline', text: expect.stringContaining('Jan 20') },
      { kind: 'duration', label: 'Takes', text: '1h30m' },
    ]);
  });

  it('reads a deadline in quick-add words as a date, and refuses what is no date', () => {
    const now = new Date(2035, 0, 10, 12, 0);
    expect(deadlinePreview('', now)).toEqual({ date: null, words: 'no deadline', ok: true });
    expect(deadlinePreview('2035-01-20', now)).toMatchObject({ date: '2035-01-20', ok: true });
    expect(deadlinePreview('tomorrow 3pm', now)).toMatchObject({ date: '2035-01-11', ok: true });
    expect(deadlinePreview('someday maybe', now)).toMatchObject({ date: null, ok: false });
  });
});

describe('the rich slice', () => {
  it('runs the filter box: matches shown, a bad query keeps its one line, only the latest answer counts', async () => {
    const found = { tasks: [task('t1', 'Call mum')], total: 1 };
    const fake = fakeApi({
      'tasks.find': (i) => {
        if (i.filter.includes('(')) throw new BridgeError('failed', 'filter: expected & or | or a closing ) at position 4 (at the end)', 'write terms like today…');
        return found;
      },
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().runFilter('p1 | @phone');
    expect(store.getState().filter).toMatchObject({ query: 'p1 | @phone', value: found, problem: null, loading: false });
    expect(fake.callsTo('tasks.find')[0]).toMatchObject({ filter: 'p1 | @phone', today: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    await store.getState().runFilter('(p1');
    expect(store.getState().filter.value).toBeNull();
    expect(store.getState().filter.problem?.message).toMatch(/at position 4/);
    // An empty query asks nothing.
    fake.calls.length = 0;
    await store.getState().runFilter('   ');
    expect(fake.calls).toEqual([]);
    expect(store.getState().filter.problem).toBeNull();
  });

  it('saves, opens and deletes saved filters; a delete has Undo on its notice', async () => {
    const saved = { id: 'f1', name: 'Calls', query: '@phone' };
    const fake = fakeApi({
      'filters.save': () => ({ value: saved, actionId: 'a1' }),
      'filters.delete': () => ({ value: saved, actionId: 'a2' }),
      'filters.list': () => [saved],
      'tasks.find': () => ({ tasks: [], total: 0 }),
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().saveFilter('Calls', '@phone')).toBeNull();
    await store.getState().openSavedFilter(saved);
    expect(store.getState().view).toBe('filters');
    expect(store.getState().filter.query).toBe('@phone');
    await store.getState().deleteFilter(saved);
    expect(fake.callsTo('filters.delete')).toEqual([{ filter: 'f1' }]);
    const notice = store.getState().notices.at(-1)!;
    expect(notice.text).toBe('Deleted the filter Calls');
    expect(notice.action?.label).toBe('Undo');
  });

  it('sends the editor’s rich fields with the update, and quick add’s @labels, {deadline} and duration', async () => {
    const CAKE = task('t1', 'Bake the cake');
    const fake = fakeApi({
      'tasks.update': () => ({ value: CAKE, actionId: 'a1' }),
      'capture.add': () => ({ value: { ...CAKE, projectId: 'p2', project: 'Baking' }, actionId: 'a2', note: null, unread: { project: null, repeat: null }, createdProject: null }),
    });
    const store = createAppStore({ api: fake.api });
    expect(
      await store.getState().editTask(CAKE, { content: 'Bake the cake', description: '**soon**', deadline: '2035-01-02', durationMin: '1h30m', labels: ['home'], section: 's1' }),
    ).toBeNull();
    expect(fake.callsTo('tasks.update')).toEqual([{ task: 't1', description: '**soon**', deadline: '2035-01-02', durationMin: '1h30m', labels: ['home'], section: 's1' }]);
    // Quick add's line goes as typed, with the box's project and section; the main side reads it
    // (test/unit/domain/quickadd-project.test.ts: its @labels, {deadline} and duration stored).
    await store.getState().addTask('project.add', 'Bake @home {2035-01-05} for 45m', { project: 'p2', section: 's1' });
    expect(fake.callsTo('capture.add')).toEqual([{ text: 'Bake @home {2035-01-05} for 45m', project: 'p2', section: 's1' }]);
  });

  it('refetches on data.changed only what it has loaded: sections, comments, labels, the label, saved filters and the query', async () => {
    const fake = fakeApi({
      'sections.list': () => [{ id: 's1', projectId: 'p2', name: 'Now', position: 1, archivedAt: null }],
      'tasks.comments': () => [{ id: 'n1', taskId: 't1', text: 'hi', createdAt: '2035-01-01T10:00:00.000Z' }],
      'labels.list': () => [{ id: 'g1', name: 'home', colour: null, openTasks: 2 }],
      'filters.list': () => [],
      'tasks.find': () => ({ tasks: [], total: 0 }),
      'tasks.progress': (i) => i.tasks.map((id) => ({ id, done: 1, total: 2 })),
    });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    fake.emit('data.changed', { topics: ['tasks'] });
    await flush();
    expect(fake.calls).toEqual([]);

    const s = store.getState();
    await Promise.all([s.loadSections('p2'), s.loadComments('t1'), s.loadLabels(), s.openLabel('home'), s.loadSavedFilters(), s.runFilter('p1'), s.loadProgress(['t1', 't1', 't2'])]);
    expect(store.getState().sections['p2']?.map((x) => x.name)).toEqual(['Now']);
    expect(store.getState().comments['t1']?.value?.map((c) => c.text)).toEqual(['hi']);
    expect(store.getState().progress).toEqual({ t1: { done: 1, total: 2 }, t2: { done: 1, total: 2 } });
    expect(fake.callsTo('tasks.progress')).toEqual([{ tasks: ['t1', 't2'] }]);
    // A label name travels escaped in the filter language.
    expect(fake.callsTo('tasks.find')).toContainEqual(expect.objectContaining({ filter: '@home' }));
    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['lists'] });
    await flush();
    expect(fake.calls).toEqual([]);
    fake.emit('data.changed', { topics: ['tasks', 'actions'] });
    await flush();
    await flush();
    expect(fake.calls.map((c) => c.channel).sort()).toEqual(
      expect.arrayContaining(['filters.list', 'labels.list', 'sections.list', 'tasks.comments', 'tasks.find', 'tasks.find']),
    );
  });

  it('a burst of progress requests for one list costs at most two', async () => {
    let answered = 0;
    const fake = fakeApi({
      'tasks.progress': async (i) => {
        await flush();
        answered++;
        return i.tasks.map((id) => ({ id, done: 0, total: 1 }));
      },
    });
    const store = createAppStore({ api: fake.api });
    await Promise.all(Array.from({ length: 20 }, () => store.getState().loadProgress(['t1', 't2'])));
    expect(fake.callsTo('tasks.progress').length).toBeLessThanOrEqual(2);
    expect(answered).toBeGreaterThan(0);
    expect(store.getState().progress['t2']).toEqual({ done: 0, total: 1 });
  });

  it('a hostile label name cannot change the query it is put in', async () => {
    const fake = fakeApi({ 'tasks.find': () => ({ tasks: [], total: 0 }) });
    const store = createAppStore({ api: fake.api });
    await store.getState().openLabel('a|b&(c)!\\');
    expect(fake.callsTo('tasks.find')).toEqual([expect.objectContaining({ filter: '@a\\|b\\&\\(c\\)\\!\\\\' })]);
  });
});
