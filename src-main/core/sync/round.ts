// One sync round of a device over its in-memory state (the store comes later: see docs/ARCHITECTURE.md,
// "Sync (in progress)"). Send: this device's new messages, encrypted, as new batch files under its own
// prefix. Receive: every other device's batches past this device's cursor for it, in order, stopping at a
// gap (a file a synced folder has not delivered yet). Merge: last writer wins per cell. Advance cursors.
//
// Each step changes the device's state only after the step's effect on the target is done, and each
// step can be repeated: a round killed anywhere leaves the target with whole files only and the device
// with a state the next round completes from. A batch written whose sending was not recorded is found
// again at the start of the next round (its messages leave the outbox); a batch merged whose cursor was
// not advanced is merged again, which changes nothing.
import { DomainError, fail } from '../fail';
import { decodeBatch, encodeBatch, BATCH_MESSAGES } from './batch';
import { checkKey, parseHeader } from './crypto';
import { HlcClock } from './hlc';
import { batchPath, DEVICE_ID, HEADER_FILE, parseBatchName } from './layout';
import { mergeInto, type Applied, type Cell, type Message, type Value } from './messages';
import type { SyncTarget } from './targets/target';
import { coverage, decodeSnapshot, encodeSnapshot, parseSnapshotName, snapshotPath, type Snapshot } from './snapshot';

/**
 * What a round needs of a device: its outbox, its next batch number and its cursors, kept in memory
 * (SyncDevice, below) or in the database (store-device.ts). Each method is one step's effect on the device.
 */
export interface RoundDevice {
  readonly id: string;
  readonly key: Uint8Array;
  /** The sequence number of this device's next batch. */
  nextSeq(): number;
  /** Up to `max` local messages not yet sent, oldest first, stamped. */
  unsent(max: number): Message[];
  /** Batch `seq` of this device holds these messages (sent now, or found on the target after a kill): they leave the outbox. */
  markSent(seq: number, hlcs: ReadonlySet<string>): void;
  /** The last batch of `other` merged here (0: none). */
  cursor(other: string): number;
  /** Merges batch `seq` of `other`: what changed here. */
  mergeBatch(other: string, seq: number, messages: Message[]): Applied[];
  /** Records batch `seq` of `other` as merged, or a snapshot file of `other` passed over (never moves a cursor back). */
  advance(other: string, seq: number): void;
  /** Snapshots and pruning (the store's device; a device without them passes over snapshot files). */
  readonly snapshots?: SnapshotSupport;
}

/** What a device does with snapshots (store-device.ts). */
export interface SnapshotSupport {
  /** Nothing merged here yet: a new device starts from the newest snapshot. */
  fresh(): boolean;
  /** Merges a snapshot and moves the cursors it covers: what changed here. */
  apply(snap: Snapshot): Applied[];
  /** Whether this device writes a snapshot now (`force`: asked for). */
  due(force: boolean): boolean;
  /** This device's state as snapshot `seq`. */
  take(seq: number): Snapshot;
  /** Snapshot `seq` of this device is on the target (written now, or found after a kill). */
  written(seq: number): void;
  /** Queues how far this device has read the others (their pruning waits for it). */
  report(): void;
  /** How far every device still syncing has read this one, and this device's newest snapshot. */
  readBy(): { read: number; snapshot: number };
}

/** What a device keeps between rounds, in memory (tests, benches; the store's device is store-device.ts). */
export class SyncDevice implements RoundDevice {
  readonly clock: HlcClock;
  cells = new Map<string, Cell>();
  /** Local messages not yet in a batch on the target, oldest first. */
  outbox: Message[] = [];
  /** The sequence number of this device's next batch. */
  next = 1;
  /** Per other device: the last of its batches merged here. */
  cursors = new Map<string, number>();

  constructor(
    readonly id: string,
    readonly key: Uint8Array,
    now: () => number = Date.now,
  ) {
    if (!DEVICE_ID.test(id)) throw new Error(`sync: a device id is 16 lowercase hex digits, not ${JSON.stringify(id)}`);
    this.clock = new HlcClock(id, now);
  }

  /** A local change: stamped, applied here, and queued to send. */
  change(table: string, row: string, column: string, value: Value): Message {
    const m: Message = { hlc: this.clock.send(), table, row, column, value };
    mergeInto(this.cells, [m]);
    this.outbox.push(m);
    return m;
  }

  nextSeq(): number {
    return this.next;
  }

  unsent(max: number): Message[] {
    return this.outbox.slice(0, max);
  }

  markSent(seq: number, hlcs: ReadonlySet<string>): void {
    this.outbox = this.outbox.filter((m) => !hlcs.has(m.hlc));
    this.next = Math.max(this.next, seq + 1);
  }

  cursor(other: string): number {
    return this.cursors.get(other) ?? 0;
  }

  mergeBatch(_other: string, _seq: number, messages: Message[]): Applied[] {
    for (const m of messages) this.clock.recv(m.hlc);
    return mergeInto(this.cells, messages);
  }

  advance(other: string, seq: number): void {
    this.cursors.set(other, Math.max(this.cursor(other), seq));
  }
}

/** Where a round may be interrupted, for tests of a kill mid-round: each is after a step's effect and before the next. */
export type RoundStep = 'checked' | 'recovered' | 'wrote' | 'sent' | 'merged' | 'advanced' | 'snapshot' | 'pruned';

export interface RoundOptions {
  /** Called after each step; a throw here simulates a kill at that point. */
  onStep?: (step: RoundStep) => void;
  batchMessages?: number;
  /** Write a snapshot in this round whatever the threshold (`tidy sync --snapshot`). */
  snapshot?: boolean;
}

export interface RoundResult {
  /** Messages sent, and in how many batch files. */
  sent: number;
  batches: number;
  /** Messages received from other devices, and those that changed a cell here. */
  received: number;
  applied: Applied[];
  /** Other devices seen on the target. */
  devices: string[];
  /** One line per device whose batches could not be read this round (the others were synced). */
  problems: string[];
  /** The snapshot this round started from (`<device>/<seq>`), the one it wrote, and the files it pruned. */
  startedFrom?: string;
  wroteSnapshot?: number;
  pruned: number;
}

async function checkTarget(device: RoundDevice, target: SyncTarget): Promise<void> {
  const text = await target.read(HEADER_FILE, 64 * 1024);
  if (text === null) fail(`${target.label} is not set up for sync (no ${HEADER_FILE}).`, 'Run `tidy sync setup` again to point sync at it.');
  const header = parseHeader(new TextDecoder().decode(text));
  if (!checkKey(header, device.key)) fail(`${target.label} was set up again with another passphrase.`, 'Run `tidy sync setup` on this device with the new passphrase.');
}

interface Files {
  batches: Set<number>;
  snapshots: number[];
}

/** A device's files on the target: batch numbers, and snapshot numbers in order. */
async function filesOf(target: SyncTarget, device: string): Promise<Files> {
  const entries = (await target.list(device)).filter((e) => !e.dir);
  const batches = new Set<number>();
  const snapshots: number[] = [];
  for (const e of entries) {
    const b = parseBatchName(e.name);
    if (b !== null) batches.add(b);
    const s = parseSnapshotName(e.name);
    if (s !== null) snapshots.push(s);
  }
  snapshots.sort((a, b) => a - b);
  return { batches, snapshots };
}

/** Batches (and snapshots) of this device on the target that its state does not record (a kill after the write): their messages leave the outbox. */
async function recover(device: RoundDevice, target: SyncTarget): Promise<Files> {
  const files = await filesOf(target, device.id);
  const next = device.nextSeq();
  for (const seq of [...files.batches, ...files.snapshots].filter((s) => s >= next).sort((a, b) => a - b)) {
    if (!files.batches.has(seq)) {
      if (device.snapshots) device.snapshots.written(seq);
      else device.markSent(seq, new Set());
      continue;
    }
    const file = await target.read(batchPath(device.id, seq));
    if (!file) continue;
    device.markSent(seq, new Set(decodeBatch(device.key, { device: device.id, seq }, file).map((m) => m.hlc)));
  }
  return files;
}

async function readSnapshot(device: RoundDevice, target: SyncTarget, other: string, seq: number): Promise<Snapshot | null> {
  const file = await target.read(snapshotPath(other, seq));
  return file ? decodeSnapshot(device.key, other, seq, file) : null;
}

/** Appends without spreading (a snapshot applies over a million changes: too many arguments for one call). */
function append<T>(to: T[], items: readonly T[]): void {
  for (const x of items) to.push(x);
}

const problem = (e: unknown): string => {
  if (!(e instanceof DomainError)) throw e;
  return `${e.error} ${e.hint}`;
};

/**
 * Where a device starts again from a snapshot: a new one (nothing merged yet) from the newest it can read of
 * any device; any other when a device's batch after its cursor is gone (pruned while it was away) and that
 * device's newest snapshot covers it. A snapshot that cannot be read is a problem line; the device then reads
 * batches (or waits at the gap).
 */
async function startFromSnapshot(device: RoundDevice, support: SnapshotSupport, target: SyncTarget, files: Map<string, Files>, result: RoundResult): Promise<void> {
  if (support.fresh()) {
    let best: Snapshot | null = null;
    for (const [other, f] of files) {
      const seq = f.snapshots[f.snapshots.length - 1];
      if (seq === undefined) continue;
      try {
        const snap = await readSnapshot(device, target, other, seq);
        if (snap && (!best || coverage(snap) > coverage(best))) best = snap;
      } catch (e) {
        result.problems.push(problem(e));
      }
    }
    if (best) {
      append(result.applied, support.apply(best));
      result.startedFrom = `${best.device}/${best.seq}`;
    }
    return;
  }
  for (const [other, f] of files) {
    const cursor = device.cursor(other);
    const newest = f.snapshots[f.snapshots.length - 1];
    if (newest === undefined || newest <= cursor + 1 || f.batches.has(cursor + 1) || f.snapshots.includes(cursor + 1)) continue;
    try {
      const snap = await readSnapshot(device, target, other, newest);
      if (snap) {
        append(result.applied, support.apply(snap));
        result.startedFrom = `${snap.device}/${snap.seq}`;
      }
    } catch (e) {
      result.problems.push(problem(e));
    }
  }
}

async function writeSnapshot(device: RoundDevice, support: SnapshotSupport, target: SyncTarget, result: RoundResult, step: (s: RoundStep) => void): Promise<void> {
  const seq = device.nextSeq();
  const written = await target.writeNew(snapshotPath(device.id, seq), encodeSnapshot(device.key, support.take(seq)));
  if (written === 'exists') fail(`Another Tidy wrote file ${seq} as this device (${device.id}) on ${target.label}.`, 'Two installs share one device id (a copied database?): run `tidy sync setup` on one of them to give it its own.');
  support.written(seq);
  result.wroteSnapshot = seq;
  step('snapshot');
}

/** Writes this device's snapshot when due, then deletes its own batches every device still syncing has read and a snapshot covers. */
async function snapshotAndPrune(device: RoundDevice, support: SnapshotSupport, target: SyncTarget, options: RoundOptions, result: RoundResult, step: (s: RoundStep) => void): Promise<void> {
  if (support.due(options.snapshot === true)) await writeSnapshot(device, support, target, result, step);
  const { read, snapshot } = support.readBy();
  if (snapshot === 0) return;
  const own = await filesOf(target, device.id);
  // batches before the newest snapshot that every device still syncing has read; snapshots but the newest two
  for (const seq of own.batches)
    if (seq < snapshot && seq <= read) {
      await target.remove(batchPath(device.id, seq));
      result.pruned++;
    }
  for (const seq of own.snapshots.slice(0, -2)) {
    await target.remove(snapshotPath(device.id, seq));
    result.pruned++;
  }
  if (result.pruned > 0) step('pruned');
}

export async function syncRound(device: RoundDevice, target: SyncTarget, options: RoundOptions = {}): Promise<RoundResult> {
  const step = options.onStep ?? (() => undefined);
  const per = options.batchMessages ?? BATCH_MESSAGES;
  const result: RoundResult = { sent: 0, batches: 0, received: 0, applied: [], devices: [], problems: [], pruned: 0 };

  await checkTarget(device, target);
  step('checked');
  await recover(device, target);
  step('recovered');

  // a device that set a target up with data sends it first, as its first file: a snapshot of its rows
  if (device.snapshots && device.nextSeq() === 1 && device.snapshots.due(false)) await writeSnapshot(device, device.snapshots, target, result, step);
  for (let chunk = device.unsent(per); chunk.length > 0; chunk = device.unsent(per)) {
    const seq = device.nextSeq();
    const written = await target.writeNew(batchPath(device.id, seq), encodeBatch(device.key, { device: device.id, seq }, chunk));
    if (written === 'exists') fail(`Another Tidy wrote batch ${seq} as this device (${device.id}) on ${target.label}.`, 'Two installs share one device id (a copied database?): run `tidy sync setup` on one of them to give it its own.');
    step('wrote');
    device.markSent(seq, new Set(chunk.map((m) => m.hlc)));
    result.sent += chunk.length;
    result.batches += 1;
    step('sent');
  }

  const others = (await target.list('')).filter((e) => e.dir && DEVICE_ID.test(e.name) && e.name !== device.id).map((e) => e.name);
  result.devices = others;
  const files = new Map<string, Files>();
  for (const other of others) files.set(other, await filesOf(target, other));
  if (device.snapshots) await startFromSnapshot(device, device.snapshots, target, files, result);
  for (const other of others) {
    try {
      const f = files.get(other)!;
      // in order, and only up to a gap: a later file must not be merged before an earlier one has arrived
      for (let seq = device.cursor(other) + 1; f.batches.has(seq) || f.snapshots.includes(seq); seq++) {
        if (!f.batches.has(seq)) {
          // a device's first file is the snapshot of the rows it had when it set the target up (they are in no
          // batch); any later snapshot holds nothing this device has not merged from the batches before it
          const snap = seq === 1 && device.snapshots ? await readSnapshot(device, target, other, seq) : null;
          if (snap) append(result.applied, device.snapshots!.apply(snap));
          else device.advance(other, seq);
          continue;
        }
        const file = await target.read(batchPath(other, seq));
        if (!file) break;
        const messages = decodeBatch(device.key, { device: other, seq }, file);
        append(result.applied, device.mergeBatch(other, seq, messages));
        result.received += messages.length;
        step('merged');
        device.advance(other, seq);
        step('advanced');
      }
    } catch (e) {
      result.problems.push(problem(e));
    }
  }
  if (device.snapshots) {
    await snapshotAndPrune(device, device.snapshots, target, options, result, step);
    device.snapshots.report();
  }
  return result;
}
