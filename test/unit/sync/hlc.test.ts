// The hybrid logical clock: sortable stamps, monotonic under a clock that stands still or goes back,
// past every received stamp, a drift bound, and hostile stamps refused. The wall clock is injected.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import { formatHlc, HlcClock, parseHlc, receive, tick } from '../../../src-main/core/sync/hlc';

const A = '000000000000000a';
const B = '000000000000000b';
const T0 = Date.UTC(2035, 0, 1, 12, 0, 0);

describe('hybrid logical clock', () => {
  it('formats a 46-character stamp that parses back and sorts by time, then counter, then node', () => {
    const s = formatHlc({ millis: T0, counter: 10, node: A });
    expect(s).toBe('2035-01-01T12:00:00.000Z-000A-000000000000000a');
    expect(parseHlc(s)).toEqual({ millis: T0, counter: 10, node: A });
    const sorted = [
      formatHlc({ millis: T0 + 1, counter: 0, node: A }),
      formatHlc({ millis: T0, counter: 2, node: A }),
      formatHlc({ millis: T0, counter: 1, node: B }),
      formatHlc({ millis: T0, counter: 1, node: A }),
    ].sort();
    expect(sorted.map((x) => parseHlc(x))).toEqual([
      { millis: T0, counter: 1, node: A },
      { millis: T0, counter: 1, node: B },
      { millis: T0, counter: 2, node: A },
      { millis: T0 + 1, counter: 0, node: A },
    ]);
  });

  it('stays monotonic when the wall clock stands still or goes back', () => {
    let now = T0;
    const clock = new HlcClock(A, () => now);
    const stamps = [clock.send(), clock.send()];
    now = T0 - 60_000; // the user set the clock back
    stamps.push(clock.send());
    now = T0 + 5;
    stamps.push(clock.send());
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps).size).toBe(4);
  });

  it('moves past a received stamp, so the next local change is later than what it saw', () => {
    const clock = new HlcClock(A, () => T0);
    const remote = formatHlc({ millis: T0 + 60_000, counter: 7, node: B });
    clock.recv(remote);
    expect(clock.send() > remote).toBe(true);
    expect(receive({ millis: T0, counter: 3, node: A }, { millis: T0, counter: 9, node: B }, T0)).toEqual({ millis: T0, counter: 10, node: A });
  });

  it('borrows the next millisecond when one millisecond has more than 65,536 stamps', () => {
    expect(tick({ millis: T0, counter: 0xffff, node: A }, T0)).toEqual({ millis: T0 + 1, counter: 0, node: A });
  });

  it('refuses a stamp too far ahead of the local clock, saying what to do', () => {
    const clock = new HlcClock(A, () => T0, 5 * 60_000);
    let err: unknown;
    try {
      clock.recv(formatHlc({ millis: T0 + 3_600_000, counter: 0, node: B }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).error).toMatch(/60 minute\(s\) ahead/);
    expect((err as DomainError).hint).toMatch(/clock/);
    expect(() => clock.send()).not.toThrow(); // the clock was not moved by the refused stamp
    expect(clock.current < formatHlc({ millis: T0 + 1, counter: 0, node: A })).toBe(true);
  });

  it('refuses hostile stamps', () => {
    for (const bad of ['', 'x'.repeat(46), '2035-01-01T12:00:00.000Z-000A-000000000000000', '2035-02-30T12:00:00.000Z-0000-000000000000000a', '+20000-01-01T00:00:00.000Z-0000-0000000000000a', '2035-01-01T12:00:00.000Z-000a-000000000000000a', `2035-01-01T12:00:00.000Z-0000-../../etc/pass`, 'a'.repeat(1_000_000)]) {
      expect(parseHlc(bad)).toBeNull();
    }
    expect(parseHlc(42 as unknown as string)).toBeNull();
    const clock = new HlcClock(A, () => T0);
    expect(() => clock.recv('garbage')).toThrow(DomainError);
    expect(() => new HlcClock('../x', () => T0)).toThrow(/16 lowercase hex/);
  });

  it('restores from its last stamp after a restart', () => {
    const first = new HlcClock(A, () => T0);
    first.send();
    const last = first.send();
    const again = new HlcClock(A, () => T0 - 1000, undefined, last);
    expect(again.send() > last).toBe(true);
  });
});
