// A snapshot: one device's whole synced state at one point, enough for a new device to start from (and for a
// device that stayed away until the batches it missed were pruned). It takes the next number of the writer's
// batch sequence, `<device>/<10-digit seq>.snapshot`, immutable like a batch, and records how far it covers:
// the writer's own batches before its number and, per other device, the batches the writer had merged.
//
// Plaintext is compact JSON, deflated, then sealed like a batch under its own associated data
// (`tidy-sync/snapshot/v1/<device>/<seq>`). Rows, not cells: a table's column names once, then per row its
// id, its values and its cells' stamps. A stamp is the full text, or (the usual case: a row's columns made
// together) a number of clock ticks after the row's first full stamp of the same device, or null for a cell
// that has no stamp of its own (it is written with the lowest stamp, so any message for it wins). Cells of
// rows that are gone (`_exists` = 0), values waiting to be written and sync's own small tables travel as
// messages. Decoding checks everything a batch's decoding checks.
import { deflateSync, inflateSync } from 'fflate';
import { z } from 'zod';
import { fail } from '../fail';
import { decryptBatch, encryptBatch, type BatchPlace } from './crypto';
import { formatHlc, parseHlc, type Hlc } from './hlc';
import { DEVICE_ID } from './layout';
import { parseMessage, type Message, type Value } from './messages';

export const SNAPSHOT_FORMAT = 1;
const SNAPSHOT_NAME = /^(\d{10})\.snapshot$/;

export const snapshotName = (seq: number): string => `${String(seq).padStart(10, '0')}.snapshot`;
export const snapshotPath = (device: string, seq: number): string => `${device}/${snapshotName(seq)}`;

/** The sequence number a snapshot file's name holds, or null for any other name. */
export function parseSnapshotName(name: string): number | null {
  const m = SNAPSHOT_NAME.exec(name);
  if (!m) return null;
  const seq = Number(m[1]);
  return seq >= 1 ? seq : null;
}

/** A stamp in a row: full text, ticks after the row's first full stamp (same device), or none. */
export type Stamp = string | number | null;

export interface SnapshotTable {
  table: string;
  /** `_exists` first, then the synced columns as the writer's schema has them. */
  columns: string[];
  /** [id, values (one per column), stamps (one per column)]. */
  rows: [string, Value[], Stamp[]][];
}

export interface Snapshot {
  device: string;
  seq: number;
  /** Per other device: the last of its batches this snapshot holds. */
  cursors: Record<string, number>;
  tables: SnapshotTable[];
  messages: Message[];
}

const TICKS = 0x10000;

/** A row's stamps, compact: the first stamp in full, the others of the same device as ticks after it. */
export function packStamps(stamps: readonly (string | null)[]): Stamp[] {
  let ref: Hlc | null = null;
  let refText = '';
  return stamps.map((s) => {
    if (s === null) return null;
    if (!ref) {
      ref = parseHlc(s);
      refText = s;
      return s;
    }
    if (s.slice(-16) !== ref.node) return s;
    // the usual case, a row's columns stamped in one millisecond: only the counters differ
    const millis = s.slice(0, 24) === refText.slice(0, 24) ? ref.millis : parseHlc(s)?.millis;
    if (millis === undefined) return s;
    const d = (millis - ref.millis) * TICKS + (parseInt(s.slice(25, 29), 16) - ref.counter);
    return d >= 0 && Number.isSafeInteger(d) ? d : s;
  });
}

/** The stamp every cell without one is written with: below any real stamp, so any message for that cell wins. */
export const floorStamp = (device: string): string => `1970-01-01T00:00:00.000Z-0000-${device}`;

const IDENT = /^[a-z_][a-z0-9_]{0,63}$/;
const SnapshotSchema = z.object({
  format: z.number().int(),
  kind: z.literal('snapshot'),
  device: z.string(),
  seq: z.number().int(),
  cursors: z.record(z.string().regex(DEVICE_ID), z.number().int().min(0)),
  tables: z.array(z.object({ table: z.string().regex(IDENT), columns: z.array(z.string().regex(IDENT)).min(1).max(500), rows: z.array(z.unknown()) })).max(200),
  messages: z.array(z.unknown()),
});

export function encodeSnapshot(key: Uint8Array, snap: Snapshot): Uint8Array {
  const body = {
    format: SNAPSHOT_FORMAT,
    kind: 'snapshot',
    device: snap.device,
    seq: snap.seq,
    cursors: snap.cursors,
    tables: snap.tables,
    messages: snap.messages.map((m) => [m.hlc, m.table, m.row, m.column, m.value]),
  };
  return encryptBatch(key, placeOf(snap.device, snap.seq), deflateSync(new TextEncoder().encode(JSON.stringify(body)), { level: 1 }));
}

const placeOf = (device: string, seq: number): BatchPlace => ({ device, seq, kind: 'snapshot' });

function damaged(device: string, seq: number, why: string): never {
  fail(`The sync snapshot ${device}/${seq} cannot be read: ${why}.`, 'Tidy reads the batches instead; if it persists, remove that file and sync again from the device that wrote it.');
}

const valueOk = (v: unknown): v is Value =>
  v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 1_000_000);

/** A snapshot's content, checked field by field; refuses a newer format ("update Tidy"), a damaged file, one that claims another place. */
export function decodeSnapshot(key: Uint8Array, device: string, seq: number, file: Uint8Array): Snapshot {
  const plain = decryptBatch(key, placeOf(device, seq), file);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(inflateSync(plain)));
  } catch {
    damaged(device, seq, 'its content is not a snapshot');
  }
  const peek = json as { format?: unknown } | null;
  if (typeof peek?.format === 'number' && peek.format > SNAPSHOT_FORMAT) fail(`The sync snapshot ${device}/${seq} was written by a newer Tidy.`, 'Update Tidy on this device, then sync again; nothing is lost meanwhile.');
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) damaged(device, seq, 'its content is not a snapshot');
  const d = parsed.data;
  if (d.format !== SNAPSHOT_FORMAT || d.device !== device || d.seq !== seq) damaged(device, seq, 'it claims another place');
  const tables: SnapshotTable[] = [];
  for (const t of d.tables) {
    const width = t.columns.length;
    const rows: SnapshotTable['rows'] = [];
    for (const r of t.rows) {
      if (!Array.isArray(r) || r.length !== 3) damaged(device, seq, 'a row in it is malformed');
      const [id, values, stamps] = r as unknown[];
      if (typeof id !== 'string' || id.length < 1 || id.length > 128 || !Array.isArray(values) || !Array.isArray(stamps) || values.length !== width || stamps.length !== width)
        damaged(device, seq, 'a row in it is malformed');
      if (!values.every(valueOk)) damaged(device, seq, 'a value in it is malformed');
      let ref = false;
      for (const s of stamps) {
        if (s === null) continue;
        if (typeof s === 'string') {
          if (parseHlc(s) === null) damaged(device, seq, 'a stamp in it is malformed');
          ref = true;
        } else if (!(typeof s === 'number' && ref && Number.isSafeInteger(s) && s >= 0)) damaged(device, seq, 'a stamp in it is malformed');
      }
      rows.push([id, values as Value[], stamps as Stamp[]]);
    }
    tables.push({ table: t.table, columns: t.columns, rows });
  }
  const messages: Message[] = [];
  for (const tuple of d.messages) {
    const m = parseMessage(tuple);
    if (!m) damaged(device, seq, 'a message in it is malformed');
    messages.push(m);
  }
  return { device, seq, cursors: d.cursors, tables, messages };
}

/** How much a snapshot holds: the writer's batches and every other device's it merged (to pick the newest). */
export const coverage = (s: Snapshot): number => Object.values(s.cursors).reduce((a, b) => a + b, s.seq);

/**
 * A snapshot as messages, `rows` rows at a time (a 100k-task snapshot is over a million cells: never all at
 * once), then its loose messages. Also gives the latest stamp, for the clock.
 */
export function* snapshotMessages(s: Snapshot, rows = 2_000): Generator<Message[]> {
  const floor = floorStamp(s.device);
  const iso = new Map<number, string>();
  let out: Message[] = [];
  let n = 0;
  for (const t of s.tables) {
    for (const [id, values, stamps] of t.rows) {
      let ref: Hlc | null = null;
      for (let i = 0; i < t.columns.length; i++) {
        const st = stamps[i];
        let hlc: string;
        if (st === null || st === undefined) hlc = floor;
        else if (typeof st === 'string') {
          hlc = st;
          ref ??= parseHlc(st);
        } else {
          const total = ref!.counter + st;
          const millis = ref!.millis + Math.floor(total / TICKS);
          let text = iso.get(millis);
          if (text === undefined) {
            if (iso.size > 10_000) iso.clear();
            iso.set(millis, (text = formatHlc({ millis, counter: 0, node: ref!.node }).slice(0, 24)));
          }
          hlc = `${text}-${(total % TICKS).toString(16).toUpperCase().padStart(4, '0')}-${ref!.node}`;
        }
        out.push({ hlc, table: t.table, row: id, column: t.columns[i]!, value: values[i]! });
      }
      if (++n % rows === 0) {
        yield out;
        out = [];
      }
    }
  }
  out.push(...s.messages);
  if (out.length > 0) yield out;
}
