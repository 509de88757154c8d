// Malformed and hostile payloads at every channel: nothing crashes, nothing changes in the database.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channels, type ChannelName } from '../../../src-shared/ipc';
import { addTask, createProject, makeList, addListItem, type Db } from '../../../src-main/core';
import { createHost } from '../../../src-main/host';
import { snapshot, tempDb, userCtx } from '../../support/db';
import { testDeps } from '../../support/host';
import { say, ScriptedModel } from '../../fakes/scripted-model';

const NAMES = Object.keys(channels) as ChannelName[];

/** A database with something in every table, so that a wrong write would show. */
function seeded(): Db {
  const { db } = tempDb();
  addTask(db, userCtx(db), { content: 'Buy milk' });
  createProject(db, userCtx(db), { name: 'Garden' });
  makeList(db, userCtx(db), { name: 'Books' });
  addListItem(db, userCtx(db), { list: 'Books', text: 'Dune' });
  return db;
}

const everything = (db: Db) => ({ ...snapshot(db), actions: db.prepare('SELECT * FROM actions ORDER BY seq').all() });

/** Values of every kind, including the ones JSON cannot carry and prototype-pollution keys. */
const hostile = fc.oneof(
  fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withSparseArray: true }),
  fc.constantFrom(undefined, null, NaN, Infinity, -0, '', ' ', '\u0000', 'a'.repeat(100_000), [], () => 1, Symbol('x')),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), fc.anything()),
);

/** Objects with the channel's own field names but random values: the likeliest near-misses. */
const nearMiss = (name: ChannelName) => {
  const schema = channels[name].input;
  const keys = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.string()), fc.object());
  return keys.length ? fc.dictionary(fc.constantFrom(...keys), value) : fc.object();
};

describe('fuzzing the contract', () => {
  it('refuses every payload its channel’s schema rejects, with invalid_input, and changes nothing', async () => {
    const db = seeded();
    const host = createHost(testDeps(db), { watchMs: 0 });
    const events: unknown[] = [];
    host.hub.subscribe((m) => events.push(m));
    const before = everything(db);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...NAMES), fc.oneof(hostile, fc.constantFrom(...NAMES).chain(nearMiss)), async (name, payload) => {
        fc.pre(!channels[name].input.safeParse(payload).success);
        const reply = await host.dispatch(name, payload);
        expect(reply).toMatchObject({ ok: false, code: 'invalid_input' });
      }),
      { numRuns: 1500 },
    );
    expect(everything(db)).toEqual(before);
    expect(events).toEqual([]);
    await host.close();
  });

  it('answers any payload at any channel without an internal error (bugs show as internal)', async () => {
    const db = seeded();
    // Runs that start get a model that answers at once; providers.test would reach the network, so it is left out.
    const host = createHost(testDeps(db, new ScriptedModel([say('ok')], 'fuzz', 'repeat')), { watchMs: 0 });
    const local = NAMES.filter((n) => n !== 'providers.test');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...local).chain((name) => fc.tuple(fc.constant(name), nearMiss(name))), async ([name, payload]) => {
        const reply = await host.dispatch(name, payload);
        if (!reply.ok) expect(['invalid_input', 'failed']).toContain(reply.code);
      }),
      { numRuns: 1500 },
    );
    await host.close();
  });

  it('refuses channel names outside the contract, whatever they are', async () => {
    const db = seeded();
    const host = createHost(testDeps(db), { watchMs: 0 });
    const before = everything(db);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString'), fc.anything()), async (name) => {
        fc.pre(!(typeof name === 'string' && Object.hasOwn(channels, name)));
        expect(await host.dispatch(name, {})).toMatchObject({ ok: false, code: 'unknown_channel' });
      }),
      { numRuns: 300 },
    );
    expect(everything(db)).toEqual(before);
    await host.close();
  });
});
