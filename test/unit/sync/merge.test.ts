// Last-writer-wins per (table, row, column): examples, hostile messages, and a property test with three
// devices whose messages arrive in random orders, with duplicates and partitions: all end identical.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHlc, HlcClock } from '../../../src-main/core/sync/hlc';
import { cellKey, merge, MessageSchema, parseMessage, type Message, type Value } from '../../../src-main/core/sync/messages';

const T0 = Date.UTC(2035, 0, 1, 12, 0, 0);
const A = '000000000000000a';
const B = '000000000000000b';
const msg = (millis: number, node: string, column: string, value: Value): Message => ({ hlc: formatHlc({ millis, counter: 0, node }), table: 'tasks', row: 't1', column, value });

describe('merge', () => {
  it('keeps the later write per column and leaves other columns alone', () => {
    const { state, applied } = merge(new Map(), [msg(T0, A, 'content', 'Milk'), msg(T0 + 1, B, 'content', 'Oat milk'), msg(T0, B, 'priority', 1), msg(T0 - 5, A, 'content', 'stale')]);
    expect(state.get(cellKey({ table: 'tasks', row: 't1', column: 'content' }))?.value).toBe('Oat milk');
    expect(state.get(cellKey({ table: 'tasks', row: 't1', column: 'priority' }))?.value).toBe(1);
    expect(applied.map((a) => a.message.value)).toEqual(['Milk', 'Oat milk', 1]);
    expect(applied[1]!.previous).toEqual({ hlc: msg(T0, A, 'content', 'Milk').hlc, value: 'Milk' }); // for "overwritten by"
  });

  it('is pure, idempotent, and breaks a tie of equal stamps by value, whatever the order', () => {
    const input = new Map();
    const x = msg(T0, A, 'content', 'x');
    const y = { ...x, value: 'y' };
    const one = merge(input, [x, y]).state;
    const two = merge(input, [y, x, y]).state;
    expect(input.size).toBe(0);
    expect([...one]).toEqual([...two]);
    expect(merge(one, [x, y]).applied).toEqual([]);
  });

  it('refuses hostile messages at the schema', () => {
    const good = msg(T0, A, 'content', 'ok');
    expect(MessageSchema.safeParse(good).success).toBe(true);
    for (const bad of [
      { ...good, hlc: 'soon' },
      { ...good, table: 'tasks; DROP TABLE tasks' },
      { ...good, column: '__proto__x"' },
      { ...good, column: 'Content' },
      { ...good, row: '' },
      { ...good, row: 'r'.repeat(129) },
      { ...good, value: 'v'.repeat(1_000_001) },
      { ...good, value: Number.NaN },
      { ...good, value: { nested: true } },
      { ...good, value: undefined },
    ]) {
      expect(MessageSchema.safeParse(bad).success).toBe(false);
      expect(parseMessage([bad.hlc, bad.table, bad.row, bad.column, bad.value])).toBeNull(); // the fast path batches use
    }
    expect(parseMessage([good.hlc, good.table, good.row, good.column, good.value])).toEqual(good);
    for (const bad of [null, 'x', [], [good.hlc, good.table, good.row, good.column], { 0: good.hlc, length: 5 }]) expect(parseMessage(bad)).toBeNull();
  });
});

type Step = { kind: 'change'; dev: number; row: number; column: number; value: Value; advance: number } | { kind: 'deliver'; from: number; to: number; upTo: number; dup: boolean };

const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('change' as const), dev: fc.nat(2), row: fc.nat(3), column: fc.nat(2), value, advance: fc.integer({ min: -1000, max: 1000 }) }),
  fc.record({ kind: fc.constant('deliver' as const), from: fc.nat(2), to: fc.nat(2), upTo: fc.nat(40), dup: fc.boolean() }),
);

describe('three devices, random changes and deliveries', () => {
  it('converge to the same state, and each cell holds its latest-stamped write', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.infiniteStream(fc.nat()), (steps, shuffle) => {
        const nodes = ['00000000000000a1', '00000000000000b2', '00000000000000c3'];
        // each device's own wall clock, which may run ahead, behind, or backwards (at most 120 steps of ±1 s:
        // the clocks stay within 3 minutes of each other, inside the 5-minute drift bound)
        const walls = [T0, T0 + 1000, T0 - 1000];
        const clocks = nodes.map((n, i) => new HlcClock(n, () => walls[i]!));
        const states = nodes.map(() => new Map() as ReturnType<typeof merge>['state']);
        const sent: Message[][] = nodes.map(() => []);
        const delivered = nodes.map(() => nodes.map(() => 0)); // delivered[to][from]: how many of from's messages `to` has
        const deliver = (from: number, to: number, upTo: number, dup: boolean): void => {
          const start = dup ? 0 : delivered[to]![from]!;
          const end = Math.min(sent[from]!.length, Math.max(start, upTo));
          const batch = sent[from]!.slice(start, end);
          for (const m of batch) clocks[to]!.recv(m.hlc);
          states[to] = merge(states[to]!, batch).state;
          delivered[to]![from] = Math.max(delivered[to]![from]!, end);
        };
        for (const s of steps) {
          if (s.kind === 'change') {
            walls[s.dev] = Math.max(T0 - 60_000, walls[s.dev]! + s.advance);
            const m: Message = { hlc: clocks[s.dev]!.send(), table: 'tasks', row: `t${s.row}`, column: ['content', 'priority', 'due'][s.column]!, value: s.value };
            sent[s.dev]!.push(m);
            states[s.dev] = merge(states[s.dev]!, [m]).state;
          } else if (s.from !== s.to) deliver(s.from, s.to, s.upTo, s.dup);
        }
        // the partition heals: every device receives everything, in a random interleaving, with duplicates
        const all = sent.flatMap((ms, from) => ms.map((m) => ({ m, from })));
        const it = shuffle[Symbol.iterator]();
        for (let to = 0; to < 3; to++) {
          const order = [...all, ...all.slice(0, all.length / 2)].filter((x) => x.from !== to);
          for (let i = order.length - 1; i > 0; i--) {
            const j = it.next().value! % (i + 1);
            [order[i], order[j]] = [order[j]!, order[i]!];
          }
          for (const { m } of order) clocks[to]!.recv(m.hlc);
          states[to] = merge(states[to]!, order.map((x) => x.m)).state;
        }
        const norm = (s: Map<string, unknown>): unknown[] => [...s].sort(([a], [b]) => (a < b ? -1 : 1));
        expect(norm(states[1]!)).toEqual(norm(states[0]!));
        expect(norm(states[2]!)).toEqual(norm(states[0]!));
        // nothing lost but what the rule overwrites: each cell holds the write with the greatest stamp
        const latest = new Map<string, Message>();
        for (const m of all.map((x) => x.m)) if ((latest.get(cellKey(m))?.hlc ?? '') < m.hlc) latest.set(cellKey(m), m);
        expect(states[0]!.size).toBe(latest.size);
        for (const [k, m] of latest) expect(states[0]!.get(k)).toEqual({ hlc: m.hlc, value: m.value });
        // every stamp is unique across devices
        expect(new Set(all.map((x) => x.m.hlc)).size).toBe(all.length);
      }),
      { numRuns: 200 },
    );
  });
});
