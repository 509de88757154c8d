import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { ActionEntry } from '../../../../../src-shared/domain';
import type { Input } from '../../../../../src-shared/ipc';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { actionKey, canRedo, canUndo, FIRST_PAGE, logRows, mergeGroups, requestKey, requestTitle, undoWords } from '../../../../../src-renderer/features/actions/slice';
import { fakeApi, flush } from '../../fake-api';
import { entry, group, reversed } from '../../fixtures';

/** A log of `n` entries, newest first, in requests of 7, paged like the contract. */
function pagedLog(n: number) {
  const all: ActionEntry[] = Array.from({ length: n }, (_, i) => {
    const k = n - i;
    return entry(`a${k}`, `r${Math.ceil(k / 7)}`, `change ${k}`);
  });
  return ({ limit = 100, before }: Input<'actions.list'>) => {
    const start = before ? all.findIndex((e) => e.id === before) + 1 : 0;
    const page = all.slice(start, start + limit);
    const groups = page.reduce<ReturnType<typeof group>[]>((gs, e) => {
      const last = gs.at(-1);
      if (last?.requestId === e.requestId) last.actions.push(e);
      else gs.push(group(e.requestId, e));
      return gs;
    }, []);
    return { groups, nextBefore: start + limit < all.length ? page.at(-1)!.id : null };
  };
}

describe('actions slice', () => {
  it('loads the first page, then older pages, joining a request cut by the page boundary', async () => {
    const fake = fakeApi({ 'actions.list': pagedLog(1000) });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadActions();
    let { log } = store.getState();
    expect(log.count).toBe(FIRST_PAGE);
    expect(log.groups[0]!.actions[0]!.id).toBe('a1000');

    await store.getState().loadMoreActions();
    log = store.getState().log;
    expect(log.count).toBe(700);
    const ids = log.groups.flatMap((g) => g.actions.map((a) => a.id));
    expect(new Set(ids).size).toBe(700);
    // Every request is one group, even the one the first page cut in two.
    const runIds = log.groups.map((g) => g.requestId);
    expect(new Set(runIds).size).toBe(runIds.length);

    await store.getState().loadMoreActions();
    expect(store.getState().log.count).toBe(1000);
    expect(store.getState().log.nextBefore).toBeNull();
    await store.getState().loadMoreActions();
    expect(fake.callsTo('actions.list')).toHaveLength(3);
  });

  it('refreshes as many entries as were loaded when the log changes', async () => {
    const fake = fakeApi({ 'actions.list': pagedLog(3000) });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().loadActions();
    await store.getState().loadMoreActions();
    await store.getState().loadMoreActions();
    expect(store.getState().log.count).toBe(1200);
    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['actions'] });
    await flush();
    await flush();
    expect(fake.callsTo('actions.list')).toEqual([{ limit: 1000 }, { limit: 200, before: 'a2001' }]);
    expect(store.getState().log.count).toBe(1200);
  });

  it('keeps a conflict next to the entry, in UI words, and retries with cascade', async () => {
    const fake = fakeApi({
      'actions.undo': ({ cascade }) => {
        if (!cascade)
          throw new BridgeError(
            'failed',
            "can't undo a3 (Moved 'Bake the birthday cake' to Birthday Celebration): later changes touched the same data: a7 (Completed 'Bake the birthday cake')",
            'undo a7 first, or undo a3 with --cascade to undo them too',
            'undo_blocked',
            { blockers: [{ id: 'a7', summary: "Completed 'Bake the birthday cake'" }], more: 0 },
          );
        return { reversed: [reversed('a7', ''), reversed('a3', '')], created: ['a8', 'a9'] };
      },
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().undoAction('a3')).toBe(false);
    const problem = store.getState().undoProblems[actionKey('a3')];
    expect(problem?.message).toBe("Later changes touched the same data: Completed 'Bake the birthday cake'.");
    expect(problem?.canCascade).toBe(true);
    expect(problem?.hint).toBe('undo those later changes first, or choose "Undo with later changes" to undo them too');
    expect(store.getState().undoPending).toEqual({});

    expect(await store.getState().undoAction('a3', true)).toBe(true);
    expect(fake.callsTo('actions.undo')).toEqual([{ actionId: 'a3' }, { actionId: 'a3', cascade: true }]);
    expect(store.getState().undoProblems).toEqual({});
  });

  it('undoes a whole request and redoes an undone entry through their channels', async () => {
    const fake = fakeApi({
      'actions.undoRequest': () => ({ reversed: [], created: [] }),
      'actions.redo': () => {
        throw new BridgeError('failed', 'action a2 cannot be redone', 'undo its undo in the action log instead');
      },
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().undoRequest('r1')).toBe(true);
    expect(fake.callsTo('actions.undoRequest')).toEqual([{ requestId: 'r1' }]);
    expect(await store.getState().redoAction('a2')).toBe(false);
    expect(store.getState().undoProblems[actionKey('a2')]).toMatchObject({ canCascade: false });
    store.getState().dismissUndoProblem(actionKey('a2'));
    expect(store.getState().undoProblems).toEqual({});
    expect(requestKey('r1')).not.toBe(actionKey('r1'));
  });

  it('undoes the last request (Ctrl+Z) and says what it undid, or why not', async () => {
    const fake = fakeApi({ 'actions.undoLast': () => ({ reversed: [reversed('a4', "Moved 'Bake the birthday cake' to Birthday Celebration")], created: ['a5'] }) });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().undoLastRequest()).toBe(true);
    expect(store.getState().notices.map((n) => [n.tone, n.text])).toEqual([['info', "Undid: Moved 'Bake the birthday cake' to Birthday Celebration"]]);
    fake.handlers['actions.undoLast'] = () => {
      throw new BridgeError('failed', 'there is nothing to undo', 'every change in the log is already undone');
    };
    expect(await store.getState().undoLastRequest()).toBe(false);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: 'there is nothing to undo — every change in the log is already undone' });
  });

  it('says which entries can be undone or redone', () => {
    const live = entry('a1', 'r1', 'Moved it');
    const undone = entry('a2', 'r1', 'Moved it', { undoneAt: '2026-03-01T10:00:05.000Z' });
    const reversal = entry('a3', 'u1', 'Undid: Moved it', { undoes: 'a2', tool: 'undo' });
    const revertedReversal = entry('a4', 'u1', 'Undid: Moved it', { undoes: 'a2', tool: 'undo', undoneAt: '2026-03-01T10:00:09.000Z' });
    expect([live, undone, reversal, revertedReversal].map(canUndo)).toEqual([true, false, false, false]);
    expect([live, undone, reversal, revertedReversal].map(canRedo)).toEqual([false, true, false, false]);
  });

  it('flattens groups into header and entry rows for the virtual list', () => {
    const groups = mergeGroups([group('r2', entry('a5', 'r2', 'x'))], [group('r2', entry('a4', 'r2', 'y')), group('u1', entry('a3', 'u1', 'z'))]);
    expect(logRows(groups).map((r) => (r.kind === 'group' ? `[${r.group.requestId}]` : r.entry.id))).toEqual(['[r2]', 'a5', 'a4', '[u1]', 'a3']);
  });

  it('names the blocking changes by what they did, not by id', () => {
    const blocked = (blockers: { id: string; summary: string }[], more: number) =>
      undoWords({ code: 'failed', reason: 'undo_blocked', message: "can't undo a11 (…)", hint: 'undo a19 first', details: { blockers, more } }).message;
    expect(
      blocked(
        [
          { id: 'a19', summary: "Moved 'Buy sugar (fine)' to X" },
          { id: 'a18', summary: "Moved 'b' to X" },
        ],
        4,
      ),
    ).toBe("Later changes touched the same data: Moved 'Buy sugar (fine)' to X; Moved 'b' to X and 4 more.");
    const taken = { code: 'failed' as const, reason: 'refused' as const, message: "can't undo a3 (Renamed project 'A' to 'B'): its old name is taken now", hint: '' };
    expect(undoWords({ ...taken, details: { why: 'its old name is taken now' } }).message).toBe('Its old name is taken now');
    expect(undoWords({ code: 'failed', reason: 'refused', message: 'no action with id a99', hint: '' }).message).toBe('no action with id a99');
  });

  it('turns CLI advice into UI advice, from the refusal’s code', () => {
    const blocked = { code: 'failed' as const, reason: 'undo_blocked' as const, message: '', hint: 'undo the later changes first, or undo a4 with --cascade', details: { blockers: [], more: 0, why: 'x' } };
    expect(undoWords(blocked).hint).toBe('undo those later changes first, or choose "Undo with later changes" to undo them too');
    expect(undoWords({ code: 'failed', reason: 'already_undone', message: '', hint: 'to redo it, undo a9', details: { undoneBy: 'a9' } }).hint).toBe('choose "Redo" to bring it back');
  });

  it('heads each request in words: an import is "Imported from a file", never "Agent request u33"', () => {
    const a = entry('a1', 'u33', 'Imported project “Home”');
    expect(requestTitle({ requestId: 'u33', source: 'import', request: null, actions: [a] })).toBe('Imported from a file');
    expect(requestTitle({ requestId: 'r1', source: 'agent', request: 'tidy my inbox', actions: [a] })).toBe('“tidy my inbox”');
    expect(requestTitle({ requestId: 'u1', source: 'user', request: null, actions: [a, a] })).toBe('Your changes');
  });
});
