// A hybrid logical clock (Kulkarni et al. 2014, as Actual Budget's `@actual-app/crdt` uses it): wall time
// in milliseconds, a counter for changes within one millisecond (or while the wall clock stands still or
// goes back), and the device's node id. Its string sorts in the clock's order, so "later" is a string
// comparison, and it is unique per device, so two devices never stamp two changes alike.
//
//   2026-11-28T10:02:00.000Z-0000-3f9a0c1d2e4b5a69
//
// Written here rather than taken from `@actual-app/crdt`: that package keeps one mutable clock and its drift
// setting in module globals and reads Date.now() itself, where Tidy injects the clock (tests run at any
// hour with a fixed `now`) and holds no module singletons; it also brings protobuf, murmurhash and uuid
// for its server protocol and merkle tree, which a per-device-cursor design over dumb storage does not need.
import { fail } from '../fail';

export interface Hlc {
  millis: number;
  counter: number;
  node: string;
}

export const NODE_ID = /^[0-9a-f]{16}$/;
const MAX_COUNTER = 0xffff;
/** 9999-12-31T23:59:59.999Z: beyond it an ISO string no longer has four year digits and would not sort. */
const MAX_MILLIS = 253_402_300_799_999;
/** Changes stamped further ahead than this of the local clock are refused: one device's wrong clock must not win every edit for days. */
export const DEFAULT_MAX_DRIFT_MS = 5 * 60_000;
const HLC_TEXT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)-([0-9A-F]{4})-([0-9a-f]{16})$/;

export function formatHlc(h: Hlc): string {
  return `${new Date(h.millis).toISOString()}-${h.counter.toString(16).toUpperCase().padStart(4, '0')}-${h.node}`;
}

/** The clock value of a stamp, or null when the text is not one (hostile input is common here: it comes from other devices' files). */
export function parseHlc(text: string): Hlc | null {
  if (typeof text !== 'string' || text.length !== 46) return null;
  const m = HLC_TEXT.exec(text);
  if (!m) return null;
  const millis = Date.parse(m[1]!);
  if (!Number.isFinite(millis) || millis < 0 || millis > MAX_MILLIS || new Date(millis).toISOString() !== m[1]) return null;
  return { millis, counter: parseInt(m[2]!, 16), node: m[3]! };
}

export function newNodeId(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(8)).toString('hex');
}

function checkDrift(millis: number, phys: number, maxDriftMs: number, node: string): void {
  if (millis - phys > maxDriftMs) {
    const minutes = Math.round((millis - phys) / 60_000);
    fail(
      `A change from device ${node} is stamped ${minutes} minute(s) ahead of this device's clock.`,
      "Set both devices' clocks to the correct time (automatic time), then sync again.",
    );
  }
}

/** The stamp for a local change after `last`, at wall time `phys`. Pure. */
export function tick(last: Hlc, phys: number, maxDriftMs = DEFAULT_MAX_DRIFT_MS): Hlc {
  let millis = Math.max(last.millis, phys);
  let counter = millis === last.millis ? last.counter + 1 : 0;
  // more than 65,536 stamps in one millisecond: borrow the next millisecond (still within the drift bound)
  if (counter > MAX_COUNTER) [millis, counter] = [millis + 1, 0];
  checkDrift(millis, phys, maxDriftMs, last.node);
  return { millis, counter, node: last.node };
}

/** The local clock after receiving a remote stamp, at wall time `phys`: later than both. Pure. */
export function receive(last: Hlc, remote: Hlc, phys: number, maxDriftMs = DEFAULT_MAX_DRIFT_MS): Hlc {
  checkDrift(remote.millis, phys, maxDriftMs, remote.node);
  let millis = Math.max(last.millis, phys, remote.millis);
  let counter =
    millis === last.millis && millis === remote.millis
      ? Math.max(last.counter, remote.counter) + 1
      : millis === last.millis
        ? last.counter + 1
        : millis === remote.millis
          ? remote.counter + 1
          : 0;
  if (counter > MAX_COUNTER) [millis, counter] = [millis + 1, 0];
  return { millis, counter, node: last.node };
}

/** A device's clock: the pure functions above over its last stamp, with the wall clock injected. */
export class HlcClock {
  private last: Hlc;
  constructor(
    node: string,
    private readonly now: () => number = Date.now,
    private readonly maxDriftMs = DEFAULT_MAX_DRIFT_MS,
    last?: string,
  ) {
    if (!NODE_ID.test(node)) throw new Error(`HLC node id must be 16 lowercase hex digits, not ${JSON.stringify(node)}`);
    const restored = last ? parseHlc(last) : null;
    this.last = { millis: restored?.millis ?? 0, counter: restored?.counter ?? 0, node };
  }

  /** A new stamp for a local change. */
  send(): string {
    this.last = tick(this.last, this.now(), this.maxDriftMs);
    return formatHlc(this.last);
  }

  /**
   * A stamp for a local change captured at wall time `at` (ms) and stamped later: later than every stamp
   * this clock gave or received, and at `at` when the clock is behind it. No drift check: `at` is this
   * device's own clock.
   */
  stampAt(at: number): string {
    this.last = tick(this.last, Math.min(Math.max(0, Math.floor(at)), this.now() + this.maxDriftMs), Number.POSITIVE_INFINITY);
    return formatHlc(this.last);
  }

  /** Moves the clock past a received stamp (refusing one too far ahead). */
  recv(stamp: string): void {
    const remote = parseHlc(stamp);
    if (!remote) fail('A sync message carries a malformed clock stamp.', 'Update Tidy on every device; if it persists, that batch file is damaged.');
    this.last = receive(this.last, remote, this.now(), this.maxDriftMs);
  }

  /** The last stamp, to persist and restore the clock across restarts. */
  get current(): string {
    return formatHlc(this.last);
  }
}
