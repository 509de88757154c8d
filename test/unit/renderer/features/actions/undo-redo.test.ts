import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { actionKey, logRows, reportWords, requestKey, undoWords } from '../../../../../src-renderer/features/actions/slice';
import { traceVisible } from '../../../../../src-renderer/store/nav';
import { setDisplayLocale } from '../../../../../src-renderer/lib/when';
import { argsInWords, asWritten, changesInWords, collectNames, resultInWords, valueInWords } from '../../../../../src-renderer/lib/words';
import { fakeApi, flush } from '../../fake-api';
import { entry, group, reversed, what } from '../../fixtures';
import type { ActionVerb } from '../../../../../src-shared/actions';
import type { EntityKind } from '../../../../../src-shared/entities';

const blocked = () =>
  new BridgeError('failed', "can't undo a7 (…)", 'undo a9 first, or undo a7 with --cascade', 'undo_blocked', { blockers: [{ id: 'a9', summary: "Updated 'a': content" }], more: 0 });

describe('the redo stack of a window', () => {
  it('Ctrl+Shift+Z redoes what Ctrl+Z undid, and Ctrl+Z then undoes that same request again', async () => {
    const fake = fakeApi({
      'actions.undoLast': () => ({ reversed: [reversed('a2', "Moved 'a' to P"), reversed('a1', "Created project 'P'", 'created')], created: ['a3', 'a4'], requestId: 'r1' }),
      'actions.redoRequest': ({ requestId }) => ({
        reversed: [reversed('a4', "Created project 'P'", 'undid'), reversed('a3', "Moved 'a' to P", 'undid')],
        created: ['a5', 'a6'],
        requestId,
      }),
      'actions.undoRequest': ({ requestId }) => ({ reversed: [reversed('a6', "Moved 'a' to P", 'redid')], created: ['a7'], requestId, renamed: ['Project “P” is back as “P 2”: its name is taken now'] }),
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().undoLastRequest()).toBe(true);
    expect(store.getState().redoStack).toEqual(['r1']);
    expect(store.getState().notices.at(-1)!.text).toBe('Undid 2 changes');

    expect(await store.getState().redoLastRequest()).toBe(true);
    expect(fake.callsTo('actions.redoRequest')).toEqual([{ requestId: 'r1' }]);
    expect(store.getState().notices.at(-1)!.text).toBe('Redid 2 changes');
    expect(store.getState().redoStack).toEqual([]);

    // Like an editor: the redone request is what the next Ctrl+Z takes back, not an older one.
    expect(await store.getState().undoLastRequest()).toBe(true);
    expect(fake.callsTo('actions.undoRequest')).toEqual([{ requestId: 'r1' }]);
    expect(fake.callsTo('actions.undoLast')).toHaveLength(1);
    expect(store.getState().redoStack).toEqual(['r1']);
    // a row that came back under another name is said with it
    expect(store.getState().notices.at(-1)!.text).toMatch(/ · Project “P” is back as “P 2”: its name is taken now$/);
  });

  it('says there is nothing to redo when this window undid nothing, without asking the host', async () => {
    const fake = fakeApi({});
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().redoLastRequest()).toBe(false);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: expect.stringMatching(/^There is nothing to redo/) });
    expect(fake.calls).toEqual([]);
  });

  it('drops a request redone elsewhere from the stack, and keeps a blocked one to try again', async () => {
    const fake = fakeApi({
      'actions.undoRequest': ({ requestId }) => ({ reversed: [reversed('a1', 'x')], created: ['a2'], requestId }),
      'actions.redoRequest': () => {
        throw blocked();
      },
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().undoRequest('r1');
    await store.getState().undoRequest('r2');
    expect(store.getState().redoStack).toEqual(['r1', 'r2']);
    expect(await store.getState().redoLastRequest()).toBe(false);
    expect(store.getState().redoStack).toEqual(['r1', 'r2']);
    expect(store.getState().notices.at(-1)!.text).toContain('"Redo, undoing later changes"');
    fake.handlers['actions.redoRequest'] = () => {
      throw new BridgeError('failed', 'everything request r2 changed is in effect; there is nothing to redo', 'redo applies to an undone request', 'refused');
    };
    expect(await store.getState().redoLastRequest()).toBe(false);
    expect(store.getState().redoStack).toEqual(['r1']);
  });
});

describe('refusals of a redo', () => {
  it('say redo, and offer the cascade under the name their hint gives', async () => {
    const fake = fakeApi({
      'actions.redo': ({ cascade }) => {
        if (!cascade) throw blocked();
        return { reversed: [reversed('a8', "Completed 'a'", 'undid')], created: ['a10'] };
      },
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().redoAction('a7')).toBe(false);
    const problem = store.getState().undoProblems[actionKey('a7')]!;
    expect(problem).toMatchObject({ verb: 'redo', canCascade: true });
    expect(problem.hint).toBe('undo those later changes first, or choose "Redo, undoing later changes" to undo them too');
    expect(await store.getState().redoAction('a7', true)).toBe(true);
    expect(fake.callsTo('actions.redo')).toEqual([{ actionId: 'a7' }, { actionId: 'a7', cascade: true }]);
    expect(store.getState().notices.at(-1)!.text).toBe("Redid: Completed 'a'");
  });

  it('a refused request redo is kept by the request, and an archived parent is offered back by name', () => {
    expect(requestKey('r1')).toBe('r:r1');
    const parent = undoWords({ code: 'failed', reason: 'parent_archived', message: '', hint: '', details: { parent: { kind: 'project', id: 'p2', name: 'Home' } } }, 'redo');
    expect(parent).toEqual({ message: "The project 'Home' is archived now.", hint: 'choose "Unarchive the project and redo" to bring it back first' });
  });
});

describe('undo reports in words', () => {
  it('tell a redo from an undo by the entry they reversed (its verb, not its words)', () => {
    expect(reportWords({ reversed: [reversed('a2', "Moved 'a' to P", 'undid')] })).toBe("Redid: Moved 'a' to P");
    expect(reportWords({ reversed: [reversed('a3', "Moved 'a' to P", 'redid')] })).toBe("Undid: Moved 'a' to P");
    expect(reportWords({ reversed: [reversed('a1', "Moved 'a' to P")] })).toBe("Undid: Moved 'a' to P");
    // a change whose own words look like an undo is still a change
    expect(reportWords({ reversed: [reversed('a1', "Moved 'Undid: x' to P")] })).toBe("Undid: Moved 'Undid: x' to P");
    expect(reportWords({ reversed: [reversed('a2', 'x', 'undid'), reversed('a1', 'y')] })).toBe('Undid 1 change and redid 1 change');
    expect(reportWords({ reversed: [reversed('a1', 'x'), reversed('a3', 'y', 'redid')] })).toBe('Undid 2 changes');
  });
});

describe('the action log does not move under the pointer', () => {
  it('folds undo and redo entries into the entry they reversed: undoing adds no row', () => {
    const before = [group('r1', entry('a2', 'r1', 'Moved b'), entry('a1', 'r1', 'Moved a'))];
    const after = [
      group('u3', entry('a3', 'u3', 'Undid: Moved a', { undoes: 'a1', tool: 'undo' })),
      group('r1', entry('a2', 'r1', 'Moved b'), entry('a1', 'r1', 'Moved a', { undoneAt: '2026-03-01T10:00:05.000Z' })),
    ];
    const keys = (rows: ReturnType<typeof logRows>) => rows.map((r) => (r.kind === 'entry' ? r.entry.id : r.group.requestId));
    expect(keys(logRows(after))).toEqual(keys(logRows(before)));
    expect(keys(logRows(after))).toEqual(['r1', 'a2', 'a1']);
  });
});

describe('the changes under an answer', () => {
  it('are loaded for a run and follow every undo through data.changed', async () => {
    let undone: string | null = null;
    const fake = fakeApi({
      'actions.list': ({ requestId }) => ({ groups: [group(requestId!, entry('a2', requestId!, 'Moved a to P', { undoneAt: undone }), entry('a1', requestId!, 'Created project P', { tool: 'create_project' }))], nextBefore: null }),
      'runs.list': () => [],
      'conversations.list': () => [],
    });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    store.setState({ conversationId: 'c1', thread: { value: ['r1'], loading: false, problem: null } as never });
    await store.getState().loadRunChanges('r1');
    expect(store.getState().runChanges['r1']!.map((e) => e.undoneAt)).toEqual([null, null]);
    undone = '2026-03-01T10:00:09.000Z';
    fake.emit('data.changed', { topics: ['actions'] });
    await flush();
    await flush();
    expect(store.getState().runChanges['r1']![0]!.undoneAt).toBe(undone);
    expect(fake.callsTo('actions.list')).toEqual([
      { requestId: 'r1', limit: 1000 },
      { requestId: 'r1', limit: 1000 },
    ]);
  });

  it('say what was done to what, in the order first done', () => {
    const e = (verb: ActionVerb, kind: EntityKind | null, count = 1) => ({ what: what(verb, { kind, count }) });
    expect(
      changesInWords([
        e('created', 'project'),
        e('created', 'project'),
        e('moved', 'task'),
        e('created', 'project'),
        ...Array.from({ length: 8 }, () => e('moved', 'task')),
      ]),
    ).toBe('Created 3 projects · moved 9 tasks');
    expect(changesInWords([e('added', 'item')])).toBe('Added 1 item');
    expect(changesInWords([e('completed', 'task')])).toBe('Completed 1 task');
    // the words come from the data, never from the summary; counts add up, an import says its events
    expect(changesInWords([e('imported', 'task', 40), e('reimported', 'calendar'), e('ran', null), e('ran', null)])).toBe('Imported 40 tasks · re-imported 1 calendar · ran 2 changes');
  });
});

describe('the trace and approvals in words', () => {
  const names = collectNames([
    { tasks: [{ id: 't9', content: 'Bake the birthday cake', project: 'Inbox' }], total: 1 },
    { id: 'p2', name: 'Birthday Celebration' },
  ]);

  it('name ids by what the run read and made', () => {
    expect(argsInWords({ task_id: 't9', project_id: 'p2' }, names)).toEqual([
      ['task', 'Bake the birthday cake'],
      ['project', 'Birthday Celebration'],
    ]);
    expect(argsInWords({ task_ids: ['t9', 't404'] }, names)).toEqual([['task ids', 'Bake the birthday cake; t404']]);
    expect(resultInWords('move_task', { ok: true, id: 't9', content: 'Bake the birthday cake', project: 'Birthday Celebration' }, names)).toBe(
      'Done: Bake the birthday cake in Birthday Celebration',
    );
    expect(resultInWords('get_inbox_tasks', { tasks: [{ id: 't9', content: 'Bake the birthday cake' }], total: 9 }, names)).toBe('9 tasks: Bake the birthday cake and 8 more');
    expect(resultInWords('get_all_projects', { projects: [], total: 0 }, names)).toBe('no projects');
  });

  it('show names a model wrote like identifiers as the user would write them', () => {
    expect(asWritten('birthday_celebration')).toBe('Birthday celebration');
    expect(asWritten('personal_website_2')).toBe('Personal website 2');
    for (const kept of ['PyData Amsterdam', 'e-mail', 'Q3', 'to-do list', 'v2_API', 'snake_', '_x']) expect(asWritten(kept)).toBe(kept);
  });

  it('show dates and times in the display locale, never ISO (the start and end of a booking card, a due)', () => {
    setDisplayLocale('en-GB');
    try {
      const [[, start], [, due], [, text], [, bad]] = argsInWords({ start: '2035-11-30T14:00:00+00:00', due: '2035-12-01T10:00', title: 'Pay 2035-12-01 invoice', odd: '2035-13-45' }, new Map());
      expect(start).not.toMatch(/\d{4}-\d{2}-\d{2}/);
      expect(start).toContain('2035');
      expect(due).toBe('Sat, 1 Dec 2035, 10:00');
      // Words of the user's own that hold a date stay as written; what is not a date stays as it was.
      expect(text).toBe('Pay 2035-12-01 invoice');
      expect(bad).toBe('2035-13-45');
    } finally {
      setDisplayLocale(undefined);
    }
  });

  it('survive hostile values: deep, huge, cyclic-looking and odd', () => {
    let deep: unknown = { id: 'deep', name: 'bottom' };
    for (let i = 0; i < 10_000; i++) deep = { next: deep };
    expect(() => collectNames([deep])).not.toThrow();
    const huge = Array.from({ length: 200_000 }, (_, i) => ({ id: `t${i}`, content: `task ${i}` }));
    const many = collectNames([huge]);
    expect(many.size).toBeGreaterThan(1000);
    expect(many.size).toBeLessThan(200_000);
    expect(valueInWords(deep, new Map()).length).toBeLessThan(200);
    expect(valueInWords('x'.repeat(100_000), new Map()).length).toBeLessThanOrEqual(120);
    expect(argsInWords(null, new Map())).toEqual([['value', '—']]);
    expect(argsInWords('<img src=x onerror=alert(1)>', new Map())).toEqual([['value', '<img src=x onerror=alert(1)>']]);
  });
});

describe('the trace belongs to the chat', () => {
  it('shows on other views only when pinned; asking for it there pins it', () => {
    const store = createAppStore({ api: fakeApi({}).api });
    expect(traceVisible(store.getState())).toBe(true);
    store.getState().show('inbox');
    expect(traceVisible(store.getState())).toBe(false);
    store.getState().toggleTraceHere();
    expect(store.getState()).toMatchObject({ tracePinned: true, traceOpen: true });
    expect(traceVisible(store.getState())).toBe(true);
    store.getState().pinTrace(false);
    expect(traceVisible(store.getState())).toBe(false);
    store.getState().show('chat');
    expect(traceVisible(store.getState())).toBe(true);
  });
});

describe('tool results in the trace', () => {
  it('say a batch by its verb and the kind from the entity registry: "Moved 3 tasks", not "3 moveds"', () => {
    const rows = [
      { id: 't1', content: 'A' },
      { id: 't2', content: 'B' },
      { id: 't3', content: 'C' },
    ];
    const known = collectNames([rows]);
    expect(resultInWords('move_tasks', { moved: rows, failed: [] }, known)).toBe('Moved 3 tasks: A; B; C');
    expect(resultInWords('complete_tasks', { completed: rows.slice(0, 1), failed: [] }, known)).toBe('Completed 1 task: A');
    expect(resultInWords('add_list_items', { added: [], failed: [] }, known)).toBe('Added 0 items');
    expect(resultInWords('list_tasks', { tasks: rows, total: 3 }, known)).toBe('3 tasks: A; B; C');
    expect(resultInWords('find_free_time', { slots: [] }, known)).toBe('no slots');
  });
});
