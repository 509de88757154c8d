// A batch: the messages one device sends in one file. Plaintext is compact JSON (a message is a tuple),
// deflated, then sealed by crypto.ts with the batch's place as associated data. Decoding checks everything:
// the format version (a newer one says "update Tidy on this device"), that the batch claims the place it
// was read from, that every message is well formed and stamped by the device that wrote the batch.
import { deflateSync, inflateSync } from 'fflate';
import { z } from 'zod';
import { fail } from '../fail';
import { decryptBatch, encryptBatch, type BatchPlace } from './crypto';
import { parseMessage, type Message } from './messages';

export const BATCH_FORMAT = 1;
/** Messages a device puts in one batch file (10,000 changes are two files). */
export const BATCH_MESSAGES = 5_000;
/** What a reader accepts in one batch: a margin over BATCH_MESSAGES for later versions. */
const MAX_BATCH_MESSAGES = 50_000;

const BatchSchema = z.object({
  format: z.number().int(),
  device: z.string(),
  seq: z.number().int(),
  messages: z.array(z.unknown()).max(MAX_BATCH_MESSAGES),
});

export function encodeBatch(key: Uint8Array, place: BatchPlace, messages: readonly Message[]): Uint8Array {
  const body = { format: BATCH_FORMAT, device: place.device, seq: place.seq, messages: messages.map((m) => [m.hlc, m.table, m.row, m.column, m.value]) };
  return encryptBatch(key, place, deflateSync(new TextEncoder().encode(JSON.stringify(body))));
}

function damaged(place: BatchPlace, why: string): never {
  fail(`The sync file ${place.device}/${place.seq} cannot be read: ${why}.`, 'Update Tidy on every device; if it persists, remove that file and sync again from the device that wrote it.');
}

export function decodeBatch(key: Uint8Array, place: BatchPlace, file: Uint8Array): Message[] {
  const compressed = decryptBatch(key, place, file);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(inflateSync(compressed)));
  } catch {
    damaged(place, 'its content is not a batch');
  }
  const peek = json as { format?: unknown } | null;
  if (typeof peek?.format === 'number' && peek.format > BATCH_FORMAT) fail(`The sync file ${place.device}/${place.seq} was written by a newer Tidy.`, 'Update Tidy on this device, then sync again; nothing is lost meanwhile.');
  const parsed = BatchSchema.safeParse(json);
  if (!parsed.success) damaged(place, 'its content is not a batch');
  if (parsed.data.format !== BATCH_FORMAT || parsed.data.device !== place.device || parsed.data.seq !== place.seq) damaged(place, 'it claims another place');
  const messages: Message[] = [];
  for (const tuple of parsed.data.messages) {
    const m = parseMessage(tuple);
    if (!m) damaged(place, Array.isArray(tuple) && tuple.length === 5 ? 'a message in it is malformed' : 'its content is not a batch');
    if (m.hlc.slice(-16) !== place.device) damaged(place, 'a message in it is stamped by another device');
    messages.push(m);
  }
  return messages;
}
