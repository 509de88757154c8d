// Sync's unit of change: one column of one row, stamped by a hybrid logical clock, and the merge that
// every device runs — last writer wins per (table, row, column). The merge is a pure function: the same
// set of messages, delivered in any order and any number of times, gives the same state on every device.
import { z } from 'zod';
import { MAX_VALUE_CHARS } from '../store/sync-capture';
import { parseHlc } from './hlc';

export type Value = string | number | boolean | null;

export interface Message {
  hlc: string;
  table: string;
  row: string;
  column: string;
  value: Value;
}

/** What a cell holds: the winning value and the stamp it won with. */
export interface Cell {
  hlc: string;
  value: Value;
}

export type SyncState = ReadonlyMap<string, Cell>;

/** One applied message, and the value it overwrote (when a cell had one): for the task's history ("overwritten by Desktop at 10:03"). */
export interface Applied {
  message: Message;
  previous?: Cell;
}

export { MAX_VALUE_CHARS };
const IDENT = /^[a-z_][a-z0-9_]{0,63}$/;

/** A received message, checked: every field of it comes from a file another device (or an attacker with the key) wrote. */
export const MessageSchema = z.object({
  hlc: z.string().refine((s) => parseHlc(s) !== null, 'not a clock stamp'),
  table: z.string().regex(IDENT),
  row: z.string().min(1).max(128),
  column: z.string().regex(IDENT),
  value: z.union([z.string().max(MAX_VALUE_CHARS), z.number().refine(Number.isFinite, 'not finite'), z.boolean(), z.null()]),
});

/**
 * A received message from its tuple [hlc, table, row, column, value], or null when any field is not what
 * MessageSchema allows. The same rules, written out: a batch holds thousands, and this runs per message.
 */
export function parseMessage(t: unknown): Message | null {
  if (!Array.isArray(t) || t.length !== 5) return null;
  const [hlc, table, row, column, value] = t as unknown[];
  if (typeof hlc !== 'string' || parseHlc(hlc) === null) return null;
  if (typeof table !== 'string' || !IDENT.test(table) || typeof column !== 'string' || !IDENT.test(column)) return null;
  if (typeof row !== 'string' || row.length < 1 || row.length > 128) return null;
  const okValue = value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= MAX_VALUE_CHARS);
  return okValue ? { hlc, table, row, column, value: value as Value } : null;
}

export const cellKey = (m: { table: string; row: string; column: string }): string => `${m.table}\u0000${m.row}\u0000${m.column}`;

/** Values as a total order, for the one case two messages carry the same stamp (only a buggy or hostile device sends that). */
const valueRank = (v: Value): string => (v === null ? '0' : `${typeof v === 'boolean' ? '1' : typeof v === 'number' ? '2' : '3'}${JSON.stringify(v)}`);

/** Whether `m` wins over what the cell holds: the later stamp; equal stamps by value, so the order of delivery never matters. */
export function wins(m: Cell, current: Cell | undefined): boolean {
  if (!current) return true;
  if (m.hlc !== current.hlc) return m.hlc > current.hlc;
  const a = valueRank(m.value);
  const b = valueRank(current.value);
  return a > b;
}

/**
 * Merges messages into a state, last writer wins per cell. Returns a new state (the input is not changed)
 * and the messages that changed a cell, in order. Duplicates and stale messages change nothing.
 */
export function merge(state: SyncState, messages: Iterable<Message>): { state: Map<string, Cell>; applied: Applied[] } {
  const next = new Map(state);
  return { state: next, applied: mergeInto(next, messages) };
}

/** `merge` in place, for a device that owns its state (no copy of a large map per round). */
export function mergeInto(state: Map<string, Cell>, messages: Iterable<Message>): Applied[] {
  const applied: Applied[] = [];
  for (const m of messages) {
    const key = cellKey(m);
    const current = state.get(key);
    if (!wins(m, current)) continue;
    state.set(key, { hlc: m.hlc, value: m.value });
    applied.push(current ? { message: m, previous: current } : { message: m });
  }
  return applied;
}
