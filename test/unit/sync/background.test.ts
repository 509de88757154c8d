import { describe, expect, it } from 'vitest';
import { startBackgroundSync, type RoundOutcome, type Timers } from '../../../src-main/core/sync/background';

/** A clock and timers the test moves by hand. */
function fakeTimers() {
  let now = 1_000_000;
  let next = 1;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  /** Moves the clock by `ms`, firing what falls due, in order. */
  const advance = async (ms: number): Promise<void> => {
    const end = now + ms;
    for (;;) {
      const due = [...pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
      await flush();
    }
    now = end;
    await flush();
  };
  return { timers, advance, pending };
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** A round the test ends by hand: records when each started, and whether two ever ran at once. */
function rounds(t: Timers) {
  const started: number[] = [];
  let open: { resolve: (o: RoundOutcome) => void; reject: (e: Error) => void } | null = null;
  let overlap = false;
  let auto: RoundOutcome | 'fail' | null = 'done';
  const round = () => {
    if (open) overlap = true;
    started.push(t.now());
    if (auto === 'fail') return Promise.reject(new Error('the target is not there'));
    if (auto) return Promise.resolve(auto);
    return new Promise<RoundOutcome>((resolve, reject) => {
      open = {
        resolve: (o) => {
          open = null;
          resolve(o);
        },
        reject: (e) => {
          open = null;
          reject(e);
        },
      };
    });
  };
  return {
    round,
    started,
    get overlap() {
      return overlap;
    },
    set mode(m: RoundOutcome | 'fail' | null) {
      auto = m;
    },
    end: async (o: RoundOutcome = 'done') => {
      open!.resolve(o);
      await flush();
    },
  };
}

describe('background sync scheduler', () => {
  it('runs once soon after start, 2 s after the LAST of several changes, and then every 5 minutes', async () => {
    const { timers, advance } = fakeTimers();
    const r = rounds(timers);
    const t0 = timers.now();
    const bg = startBackgroundSync({ round: r.round, timers });
    await advance(2_000);
    expect(r.started).toEqual([t0 + 2_000]);
    bg.changed();
    await advance(1_500);
    bg.changed(); // a later change pushes the round back
    await advance(1_999);
    expect(r.started).toHaveLength(1);
    await advance(1);
    expect(r.started).toEqual([t0 + 2_000, t0 + 5_500]);
    await advance(300_000);
    expect(r.started).toEqual([t0 + 2_000, t0 + 5_500, t0 + 305_500]);
    await bg.stop();
  });

  it('never runs two rounds at once: a change or Sync now during a round asks for one more after it', async () => {
    const { timers, advance } = fakeTimers();
    const r = rounds(timers);
    r.mode = null;
    const bg = startBackgroundSync({ round: r.round, timers });
    const first = bg.now();
    expect(bg.state().running).toBe(true);
    bg.changed();
    bg.focus();
    const second = bg.now();
    await advance(10_000);
    expect(r.started).toHaveLength(1);
    await r.end();
    expect(await first).toBe('done');
    // the one asked for during the round, at once (Sync now waits for it)
    expect(r.started).toHaveLength(2);
    await r.end();
    expect(await second).toBe('done');
    expect(r.overlap).toBe(false);
    await bg.stop();
  });

  it('backs off after failures (30 s, 1 min, …), ignores changes and focus meanwhile, and Sync now still runs at once', async () => {
    const { timers, advance } = fakeTimers();
    const r = rounds(timers);
    r.mode = 'fail';
    const t0 = timers.now();
    const bg = startBackgroundSync({ round: r.round, timers });
    await advance(2_000);
    expect(bg.state()).toMatchObject({ failures: 1, lastOutcome: 'failed', nextAt: t0 + 32_000 });
    bg.changed();
    bg.focus();
    await advance(29_999);
    expect(r.started).toHaveLength(1);
    await advance(1);
    expect(r.started).toHaveLength(2);
    expect(bg.state()).toMatchObject({ failures: 2, nextAt: t0 + 92_000 });
    expect(await bg.now()).toBe('failed');
    expect(r.started).toHaveLength(3);
    r.mode = 'done';
    await advance(120_000);
    expect(bg.state()).toMatchObject({ failures: 0, lastOutcome: 'done' });
    await bg.stop();
  });

  it('focus starts a round only when none ran for 30 s; sync off stops the timer until the next change', async () => {
    const { timers, advance, pending } = fakeTimers();
    const r = rounds(timers);
    const bg = startBackgroundSync({ round: r.round, timers });
    await advance(2_000);
    bg.focus();
    expect(r.started).toHaveLength(1);
    await advance(30_000);
    bg.focus();
    await flush();
    expect(r.started).toHaveLength(2);
    r.mode = 'off';
    expect(await bg.now()).toBe('off');
    expect(pending.size).toBe(0);
    bg.changed();
    expect(pending.size).toBe(1);
    await bg.stop();
    expect(pending.size).toBe(0);
    bg.changed();
    expect(pending.size).toBe(0);
  });

  it('with auto off only Sync now runs a round', async () => {
    const { timers, advance, pending } = fakeTimers();
    const r = rounds(timers);
    const bg = startBackgroundSync({ round: r.round, timers, auto: false });
    bg.changed();
    bg.focus();
    await advance(600_000);
    expect(r.started).toHaveLength(0);
    expect(await bg.now()).toBe('done');
    expect(pending.size).toBe(0);
    await bg.stop();
  });
});
