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
  /** Records batch `seq` of `other` as merged (a device that merges and records in one transaction does nothing here). */
  advance(other: string, seq: number): void;
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
    this.cursors.set(other, seq);
  }
}

/** Where a round may be interrupted, for tests of a kill mid-round: each is after a step's effect and before the next. */
export type RoundStep = 'checked' | 'recovered' | 'wrote' | 'sent' | 'merged' | 'advanced';

export interface RoundOptions {
  /** Called after each step; a throw here simulates a kill at that point. */
  onStep?: (step: RoundStep) => void;
  batchMessages?: number;
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
}

async function checkTarget(device: RoundDevice, target: SyncTarget): Promise<void> {
  const text = await target.read(HEADER_FILE, 64 * 1024);
  if (text === null) fail(`${target.label} is not set up for sync (no ${HEADER_FILE}).`, 'Run `tidy sync setup` again to point sync at it.');
  const header = parseHeader(new TextDecoder().decode(text));
  if (!checkKey(header, device.key)) fail(`${target.label} was set up again with another passphrase.`, 'Run `tidy sync setup` on this device with the new passphrase.');
}

async function seqsOf(target: SyncTarget, device: string): Promise<number[]> {
  const entries = await target.list(device);
  return entries
    .filter((e) => !e.dir)
    .map((e) => parseBatchName(e.name))
    .filter((s): s is number => s !== null)
    .sort((a, b) => a - b);
}

/** Batches of this device on the target that its state does not record as sent (a kill after the write): their messages leave the outbox. */
async function recover(device: RoundDevice, target: SyncTarget): Promise<void> {
  for (const seq of (await seqsOf(target, device.id)).filter((s) => s >= device.nextSeq())) {
    const file = await target.read(batchPath(device.id, seq));
    if (!file) continue;
    device.markSent(seq, new Set(decodeBatch(device.key, { device: device.id, seq }, file).map((m) => m.hlc)));
  }
}

export async function syncRound(device: RoundDevice, target: SyncTarget, options: RoundOptions = {}): Promise<RoundResult> {
  const step = options.onStep ?? (() => undefined);
  const per = options.batchMessages ?? BATCH_MESSAGES;
  const result: RoundResult = { sent: 0, batches: 0, received: 0, applied: [], devices: [], problems: [] };

  await checkTarget(device, target);
  step('checked');
  await recover(device, target);
  step('recovered');

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
  for (const other of others) {
    try {
      const cursor = device.cursor(other);
      const available = new Set(await seqsOf(target, other));
      // in order, and only up to a gap: a later file must not be merged before an earlier one has arrived
      for (let seq = cursor + 1; available.has(seq); seq++) {
        const file = await target.read(batchPath(other, seq));
        if (!file) break;
        const messages = decodeBatch(device.key, { device: other, seq }, file);
        result.applied.push(...device.mergeBatch(other, seq, messages));
        result.received += messages.length;
        step('merged');
        device.advance(other, seq);
        step('advanced');
      }
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      result.problems.push(`${e.error} ${e.hint}`);
    }
  }
  return result;
}
