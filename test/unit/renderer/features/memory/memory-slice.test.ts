// The Memory page's store part, in plain Node with a fake bridge: a stale search answer never replaces a
// newer one, forgetting puts Undo (the action's id) on its notice, a refused change is the field's to
// show, and the `memory` topic refetches the page only once it was opened.
import { describe, expect, it } from 'vitest';
import type { Memory } from '../../../../../src-shared/memory';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { memoryInWords, rememberedIn } from '../../../../../src-renderer/features/memory';
import type { ActionEntry } from '../../../../../src-shared/domain';
import { BridgeError } from '../../../../../src-shared/bridge';
import { deferred, fakeApi, flush } from '../../fake-api';

const memory = (id: string, text: string, more: Partial<Memory> = {}): Memory => ({
  id,
  text,
  projectId: null,
  project: null,
  conversationId: null,
  runId: null,
  createdAt: '2020-01-01T00:00:00.000Z',
  updatedAt: '2020-01-01T00:00:00.000Z',
  lastUsedAt: null,
  archivedAt: null,
  ...more,
});
const budget = { applied: 0, included: 0, left: 0, tokens: 0 };
const page = (memories: Memory[]) => ({ memories, enabled: true, budget });

describe('the Memory page store', () => {
  it('keeps the newest search: an older answer arriving late is dropped', async () => {
    const slow = deferred<ReturnType<typeof page>>();
    const fake = fakeApi({ 'memory.list': (i) => (i.query === 'old' ? slow.promise : page([memory('y2', 'new answer')])) });
    const store = createAppStore({ api: fake.api });
    const first = store.getState().loadMemory('old');
    await store.getState().loadMemory('new');
    slow.resolve(page([memory('y1', 'old answer')]));
    await first;
    expect(store.getState().memory.value?.memories.map((m) => m.text)).toEqual(['new answer']);
    expect(store.getState().memoryQuery).toBe('new');
    // An empty or blank search asks for all.
    await store.getState().loadMemory('   ');
    expect(fake.callsTo('memory.list').at(-1)).toEqual({});
  });

  it('forgets with Undo on the notice, which undoes that action', async () => {
    const fake = fakeApi({
      'memory.list': () => page([]),
      'memory.forget': (i) => ({ value: memory(i.memory, 'x', { archivedAt: '2020-01-02T00:00:00.000Z' }), actionId: 'a42' }),
      'actions.undo': () => ({ undone: [], refused: [] }) as never,
    });
    const store = createAppStore({ api: fake.api });
    await store.getState().forgetMemoryWithUndo(memory('y7', 'Groceries go to Errands'));
    const notice = store.getState().notices.find((n) => n.text === 'Forgot: Groceries go to Errands');
    expect(notice?.action?.label).toBe('Undo');
    await notice!.action!.run();
    await flush();
    expect(fake.callsTo('memory.forget')).toEqual([{ memory: 'y7' }]);
    expect(JSON.stringify(fake.callsTo('actions.undo'))).toContain('a42');
    expect(fake.callsTo('memory.list').length).toBeGreaterThan(0);
  });

  it('gives a refused edit back to its field and a refused forget to an error notice', async () => {
    const fake = fakeApi({
      'memory.update': () => {
        throw new BridgeError('failed', 'that is already remembered as y1', 'edit that memory instead');
      },
      'memory.forget': () => {
        throw new BridgeError('failed', 'no memory y9', 'see the list');
      },
    });
    const store = createAppStore({ api: fake.api });
    const problem = await store.getState().editMemory('y2', 'dup');
    expect(problem?.message).toBe('that is already remembered as y1');
    await store.getState().forgetMemoryWithUndo(memory('y9', 'gone'));
    expect(store.getState().notices.some((n) => n.tone === 'error' && n.text.includes('no memory y9'))).toBe(true);
    expect(store.getState().notices.some((n) => n.text.startsWith('Forgot'))).toBe(false);
  });

  it('refetches on the memory topic only once the page was opened', async () => {
    const fake = fakeApi({ 'memory.list': () => page([]) });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    fake.emit('data.changed', { topics: ['memory'] });
    await flush();
    expect(fake.callsTo('memory.list')).toEqual([]);
    await store.getState().loadMemory('milk');
    fake.emit('data.changed', { topics: ['memory'] });
    await flush();
    expect(fake.callsTo('memory.list')).toEqual([{ query: 'milk' }, { query: 'milk' }]);
  });

  it('shortens a long or multi-line memory for a notice', () => {
    expect(memoryInWords('a\n\nb')).toBe('a b');
    const long = memoryInWords('x'.repeat(500));
    expect(long).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe("the chat's Remembered lines", () => {
  const entry = (id: string, verb: string, kind: string | null, name: string | null, undoes: string | null = null) =>
    ({
      id,
      requestId: 'r1',
      source: 'agent',
      tool: 'x',
      args: {},
      summary: `summary of ${id}`,
      what: { verb, kind, id: null, name, count: 1, reverses: undoes },
      createdAt: '2020-01-01T00:00:00.000Z',
      undoneAt: null,
      undoes,
    }) as unknown as ActionEntry;

  it('are the request’s remembered facts only, oldest first, never an undo or another change', () => {
    const newestFirst = [
      entry('a4', 'undid', 'memory', 'Bread', 'a3'),
      entry('a3', 'remembered', 'memory', 'Bread comes from the bakery'),
      entry('a2', 'created', 'task', 'Buy milk'),
      entry('a1', 'remembered', 'memory', 'Groceries go to Errands'),
      entry('a0', 'forgot', 'memory', 'Old fact'),
    ];
    expect(rememberedIn(newestFirst).map((e) => e.id)).toEqual(['a1', 'a3']);
    expect(rememberedIn(undefined)).toEqual([]);
  });
});

describe('archiving a conversation that made memories', () => {
  it('counts the live memories it made, and archives with forgetMemories only when asked to', async () => {
    const fake = fakeApi({
      'memory.list': (i) => page(i.conversationId === 'c1' ? [memory('y1', 'a', { conversationId: 'c1' }), memory('y2', 'b', { conversationId: 'c1' })] : []),
      'conversations.archive': (i) => ({ id: i.id, title: 't', createdAt: 'x', updatedAt: 'x', archivedAt: 'x' }) as never,
      'conversations.list': () => [],
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().memoriesMadeIn('c1')).toBe(2);
    expect(await store.getState().memoriesMadeIn('c2')).toBe(0);
    expect(fake.callsTo('memory.list')).toEqual([{ conversationId: 'c1' }, { conversationId: 'c2' }]);
    await store.getState().archiveConversation('c1', true, true);
    await store.getState().archiveConversation('c2', true);
    expect(fake.callsTo('conversations.archive')).toEqual([{ id: 'c1', forgetMemories: true }, { id: 'c2' }]);
    expect(store.getState().notices.map((n) => n.text)).toContain('Archived the conversation and forgot its memories');
  });

  it('does not ask when the list cannot be read', async () => {
    const store = createAppStore({ api: fakeApi({}).api });
    expect(await store.getState().memoriesMadeIn('c1')).toBe(0);
  });
});
