// Inputs whose shape alone is an attack (nested thousands deep, cyclic, sparse, huge) and handlers that
// fail in odd ways: the dispatcher answers each with a reply, never a rejection, and changes nothing.
import { describe, expect, it } from 'vitest';
import type { IpcMainInvokeEvent, WebFrameMain } from 'electron';
import { electronInvokeName } from '../../../src-shared/ipc';
import { createHost } from '../../../src-main/host';
import { createDispatch, INPUT_LIMITS, inputShapeProblem, type Handlers } from '../../../src-main/host/dispatch';
import { registerIpc } from '../../../src-main/host/electron-ipc';
import { createEventHub } from '../../../src-main/host/hub';
import { snapshot, tempDb } from '../../support/db';
import { testDeps } from '../../support/host';

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** An object nested `depth` levels deep: {a: {a: … }}. */
function nestedObject(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const NOTHING_CHANGED = 'nothing was changed; send the input the contract describes';

function host() {
  const { db } = tempDb();
  const h = createHost(testDeps(db), { watchMs: 0 });
  return { db, host: h };
}

describe('input bounds in the dispatcher', () => {
  it('answers a value nested 1,500 levels deep with invalid_input, and the next request works', async () => {
    const { db, host: h } = host();
    const before = snapshot(db);
    // settings.set's value is z.json(), which zod checks recursively: this depth overflowed its stack.
    const reply = await h.dispatch('settings.set', { key: 'protocol', value: nested(1_500) });
    expect(reply).toEqual({ ok: false, code: 'invalid_input', error: 'invalid input for settings.set: it is nested more than 32 levels deep', hint: NOTHING_CHANGED });
    expect(await h.dispatch('tasks.add', { content: 'after the attack' })).toMatchObject({ ok: true });
    expect(snapshot(db).settings).toEqual(before.settings);
    await h.close();
  });

  it('refuses deep values at every depth the stack could not take, objects and arrays alike', async () => {
    const { host: h } = host();
    for (const value of [nested(33), nested(10_000), nested(1_000_000), nestedObject(1_500), nestedObject(200_000)]) {
      expect(await h.dispatch('settings.set', { key: 'protocol', value })).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringContaining('levels deep') });
    }
    await h.close();
  });

  it('lets through values up to the limit, to be judged by their schema', async () => {
    const { host: h } = host();
    // 32 levels in all: the input object, then 31 arrays. The schema refuses it for what it is, not for its depth.
    const reply = await h.dispatch('settings.set', { key: 'protocol', value: nested(31) });
    expect(reply).toMatchObject({ ok: false, code: 'failed' });
    expect(reply.ok === false && reply.error).not.toContain('levels deep');
    expect(inputShapeProblem({ a: nested(31) })).toBeNull();
    expect(inputShapeProblem({ a: nested(32) })).toBe('it is nested more than 32 levels deep');
    await h.close();
  });

  it('refuses cyclic values, sparse arrays of huge length, too many values and too much text', async () => {
    const { host: h } = host();
    const cyclic: Record<string, unknown> = { key: 'protocol' };
    cyclic['value'] = cyclic;
    const sparse: unknown[] = [];
    sparse[2 ** 32 - 2] = 1;
    const wide = { key: 'protocol', value: Array.from({ length: INPUT_LIMITS.maxNodes }, () => 0) };
    const manyKeys = { key: 'protocol', value: Object.fromEntries(Array.from({ length: INPUT_LIMITS.maxNodes }, (_, i) => [`k${i}`, i])) };
    const text = { content: 'x'.repeat(INPUT_LIMITS.maxChars + 1) };
    const keyText = { key: 'protocol', value: { ['k'.repeat(INPUT_LIMITS.maxChars + 1)]: 1 } };
    const cases: [string, unknown, string][] = [
      ['settings.set', cyclic, 'levels deep'],
      ['settings.set', { key: 'protocol', value: sparse }, 'values'],
      ['settings.set', wide, 'values'],
      ['settings.set', manyKeys, 'values'],
      ['tasks.add', text, 'characters'],
      ['settings.set', keyText, 'characters'],
    ];
    // The check stops at the first excess: walking the sparse array would take minutes.
    for (const [channel, input, what] of cases) {
      expect(await h.dispatch(channel, input), channel).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringContaining(what), hint: NOTHING_CHANGED });
    }
    await h.close();
  });

  it('counts only arrays and plain objects as containers: a Map or a Date is one value the schema refuses', () => {
    expect(inputShapeProblem({ a: new Map([[1, nested(100)]]), b: new Date(), c: new Uint8Array(1e6) })).toBeNull();
    expect(inputShapeProblem(Object.assign(Object.create(null) as object, { a: nested(40) }))).toBe('it is nested more than 32 levels deep');
  });

  it('protects the Electron transport too: a deep or cyclic structured clone gets invalid_input', async () => {
    const { host: h } = host();
    const handlers = new Map<string, (event: IpcMainInvokeEvent, input: unknown) => Promise<unknown>>();
    registerIpc({ handle: (c: string, l: never) => handlers.set(c, l), removeHandler: () => {} } as never, h.dispatch, (u) => u.protocol === 'app:');
    const event = { senderFrame: { url: 'app://tidy/index.html', parent: null } as unknown as WebFrameMain } as IpcMainInvokeEvent;
    const set = handlers.get(electronInvokeName('settings.set'))!;
    expect(await set(event, { key: 'protocol', value: nested(1_500) })).toMatchObject({ ok: false, code: 'invalid_input' });
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(await set(event, { key: 'protocol', value: cyclic })).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await set(event, { key: 'protocol', value: 'json' })).toMatchObject({ ok: true });
    await h.close();
  });
});

describe('the dispatcher never rejects', () => {
  const broken = (fail: () => never) => {
    const logged: string[] = [];
    const handlers = new Proxy({}, { get: () => fail }) as Handlers;
    const dispatch = createDispatch(handlers, createEventHub(), { log: (m) => logged.push(m) });
    return { dispatch, logged };
  };

  it('turns a stack overflow, a thrown non-Error and an unprintable throw into an internal reply', async () => {
    const overflow = broken(() => {
      const f = (n: number): number => f(n + 1) + 1;
      f(0);
      throw new Error('unreachable');
    });
    expect(await overflow.dispatch('tasks.list', {})).toMatchObject({ ok: false, code: 'internal', error: 'tasks.list failed unexpectedly: Maximum call stack size exceeded' });
    expect(overflow.logged).toEqual(['tasks.list failed unexpectedly']);

    const text = broken(() => {
      throw 'plain text';
    });
    expect(await text.dispatch('tasks.list', {})).toMatchObject({ code: 'internal', error: 'tasks.list failed unexpectedly: plain text' });

    const unprintable = broken(() => {
      throw {
        toString() {
          throw new Error('no');
        },
      };
    });
    expect(await unprintable.dispatch('tasks.list', {})).toMatchObject({ code: 'internal', error: 'tasks.list failed unexpectedly: an error that cannot be shown' });
  });

  it('answers even when its log throws', async () => {
    const dispatch = createDispatch(
      new Proxy({}, { get: () => () => Promise.reject(new Error('boom')) }) as Handlers,
      createEventHub(),
      {
        log: () => {
          throw new Error('log is broken');
        },
      },
    );
    expect(await dispatch('tasks.list', {})).toMatchObject({ ok: false, code: 'internal', error: 'tasks.list failed unexpectedly: boom' });
  });
});
