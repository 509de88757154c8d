// Setting a target up and joining one: the first device writes the header (salt, KDF parameters, key
// check) as a new file; every other device reads it and derives the key from the same passphrase. The key,
// not the passphrase, is what a device keeps (in the OS keychain, once wired in).
import { fail } from '../fail';
import { createHeader, DEFAULT_KDF, parseHeader, unlock, type KdfParams } from './crypto';
import { HEADER_FILE } from './layout';
import type { SyncTarget } from './targets/target';

const HEADER_MAX_BYTES = 64 * 1024;

/** Sets up a target that has no header yet; the key. Refuses one already set up (join it instead). */
export async function setupTarget(target: SyncTarget, passphrase: string, kdf: KdfParams = DEFAULT_KDF): Promise<Uint8Array> {
  if ((await target.read(HEADER_FILE, HEADER_MAX_BYTES)) !== null) fail(`${target.label} is already set up for sync.`, 'Join it with its passphrase instead.');
  const { header, key } = await createHeader(passphrase, kdf);
  const written = await target.writeNew(HEADER_FILE, new TextEncoder().encode(`${JSON.stringify(header, null, 2)}\n`));
  if (written === 'exists') fail(`${target.label} was just set up for sync by another device.`, 'Join it with its passphrase instead.');
  return key;
}

/** Joins a target set up by another device: the key, or one line when the passphrase is wrong. */
export async function joinTarget(target: SyncTarget, passphrase: string): Promise<Uint8Array> {
  const text = await target.read(HEADER_FILE, HEADER_MAX_BYTES);
  if (text === null) fail(`${target.label} is not set up for sync yet.`, 'Set it up (`tidy sync setup`) on your first device, then join it here.');
  return unlock(parseHeader(new TextDecoder().decode(text)), passphrase);
}
