// Where sync keeps things on a target. Every device writes only under its own prefix, and only new files,
// so dumb storage (a synced folder, WebDAV) needs no locks and no two devices ever write one file:
//
//   tidy-sync.json                  the plaintext header: format version, KDF parameters, salt, key check
//   <device-id>/0000000001.batch    that device's batches, numbered from 1, each immutable once written
//
// Which batches of each other device a device has read is kept locally (a cursor per device), never on
// the target.
import { NODE_ID } from './hlc';

export const HEADER_FILE = 'tidy-sync.json';
/** A device's id is its clock's node id: 16 lowercase hex digits. */
export const DEVICE_ID = NODE_ID;
const BATCH_NAME = /^(\d{10})\.batch$/;
export const MAX_SEQ = 9_999_999_999;

export const batchName = (seq: number): string => `${String(seq).padStart(10, '0')}.batch`;
export const batchPath = (device: string, seq: number): string => `${device}/${batchName(seq)}`;

/** The sequence number a batch file's name holds, or null for any other name. */
export function parseBatchName(name: string): number | null {
  const m = BATCH_NAME.exec(name);
  if (!m) return null;
  const seq = Number(m[1]);
  return seq >= 1 ? seq : null;
}
