// Sync's end-to-end encryption: the target sees only ciphertext, file sizes and device ids.
//
// A key is derived from the user's passphrase with Argon2id and a random salt. The salt, the KDF's
// parameters and a key check (a known constant encrypted under the key) sit in a small plaintext header
// file on the target, so a second device can derive the same key and a wrong passphrase is refused in one
// line. Each batch is sealed with XChaCha20-Poly1305 under a random 24-byte nonce, with the batch's
// place (device id + sequence number) as associated data: a file moved, renamed or swapped for another
// device's is refused like a tampered one. A lost passphrase cannot be recovered: nothing else holds the key.
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { argon2id } from 'hash-wasm';
import { z } from 'zod';
import { fail } from '../fail';

export const KEY_BYTES = 32;
const NONCE_BYTES = 24;
const TAG_BYTES = 16;
const SALT_BYTES = 16;
/** The first bytes of every batch file: "TSB" + format version 1. Not secret; lets a reader refuse a file that is not ours early. */
const MAGIC = new Uint8Array([0x54, 0x53, 0x42, 0x01]);
const KEY_CHECK = new TextEncoder().encode('tidy-sync key check v1');
const KEY_CHECK_AD = new TextEncoder().encode('tidy-sync/key-check/v1');

export interface KdfParams {
  name: 'argon2id';
  /** Memory in KiB. */
  memoryKiB: number;
  iterations: number;
  parallelism: number;
}

/**
 * Realistic defaults (OWASP's first Argon2id choice: 64 MiB, 3 passes, 1 lane). Derivation runs once per
 * setup or join on a device (the key is then kept in the OS keychain); `npm run bench sync` prints its time.
 */
export const DEFAULT_KDF: KdfParams = { name: 'argon2id', memoryKiB: 64 * 1024, iterations: 3, parallelism: 1 };
/** Bounds a header may ask for: a hostile header must not make a device allocate gigabytes or spin for hours. */
const KDF_LIMITS = { memoryKiB: [8, 1024 * 1024], iterations: [1, 20], parallelism: [1, 16] } as const;

const base64 = z.string().max(200).regex(/^[A-Za-z0-9+/]*={0,2}$/);
export const HeaderSchema = z.object({
  format: z.literal('tidy-sync'),
  version: z.number().int().min(1),
  kdf: z.object({
    name: z.literal('argon2id'),
    memoryKiB: z.number().int().min(KDF_LIMITS.memoryKiB[0]).max(KDF_LIMITS.memoryKiB[1]),
    iterations: z.number().int().min(KDF_LIMITS.iterations[0]).max(KDF_LIMITS.iterations[1]),
    parallelism: z.number().int().min(KDF_LIMITS.parallelism[0]).max(KDF_LIMITS.parallelism[1]),
  }),
  salt: base64,
  check: base64,
});
/** The plaintext header file at the target's root. */
export type SyncHeader = z.infer<typeof HeaderSchema>;
export const HEADER_VERSION = 1;

const toB64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const fromB64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

export async function deriveKey(passphrase: string, salt: Uint8Array, kdf: KdfParams): Promise<Uint8Array> {
  if (passphrase.length === 0) fail('The passphrase is empty.', 'Choose a passphrase: it encrypts everything Tidy syncs.');
  const out = await argon2id({
    password: passphrase.normalize('NFC'),
    salt,
    iterations: kdf.iterations,
    parallelism: kdf.parallelism,
    memorySize: kdf.memoryKiB,
    hashLength: KEY_BYTES,
    outputType: 'binary',
  });
  return new Uint8Array(out);
}

function seal(key: Uint8Array, plaintext: Uint8Array, ad: Uint8Array): Uint8Array {
  const nonce = randomBytes(NONCE_BYTES);
  const ct = xchacha20poly1305(key, nonce, ad).encrypt(plaintext);
  const out = new Uint8Array(NONCE_BYTES + ct.length);
  out.set(nonce, 0);
  out.set(ct, NONCE_BYTES);
  return out;
}

/** The plaintext, or null when the key, the associated data or any byte is not the one sealed. */
function open(key: Uint8Array, sealed: Uint8Array, ad: Uint8Array): Uint8Array | null {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) return null;
  try {
    return xchacha20poly1305(key, sealed.subarray(0, NONCE_BYTES), ad).decrypt(sealed.subarray(NONCE_BYTES));
  } catch {
    return null;
  }
}

/** A new target's header and its key, from the passphrase the user chose. */
export async function createHeader(passphrase: string, kdf: KdfParams = DEFAULT_KDF): Promise<{ header: SyncHeader; key: Uint8Array }> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(passphrase, salt, kdf);
  const header: SyncHeader = { format: 'tidy-sync', version: HEADER_VERSION, kdf: { ...kdf }, salt: toB64(salt), check: toB64(seal(key, KEY_CHECK, KEY_CHECK_AD)) };
  return { header, key };
}

/** Parses a header file's text, refusing anything that is not a Tidy sync header this version can read. */
export function parseHeader(text: string): SyncHeader {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail('The sync target holds a header file that is not a Tidy sync header.', 'Point sync at an empty folder or one another Tidy set up.');
  }
  const parsed = HeaderSchema.safeParse(json);
  if (!parsed.success) {
    const version = (json as { version?: unknown } | null)?.version;
    if ((json as { format?: unknown } | null)?.format === 'tidy-sync' && typeof version === 'number' && version > HEADER_VERSION) {
      fail('This sync target was set up by a newer Tidy.', 'Update Tidy on this device.');
    }
    fail('The sync target holds a header file that is not a Tidy sync header.', 'Point sync at an empty folder or one another Tidy set up.');
  }
  if (parsed.data.version > HEADER_VERSION) fail('This sync target was set up by a newer Tidy.', 'Update Tidy on this device.');
  return parsed.data;
}

/** The key for an existing target, or one clear line when the passphrase is not the target's. */
export async function unlock(header: SyncHeader, passphrase: string): Promise<Uint8Array> {
  const key = await deriveKey(passphrase, fromB64(header.salt), header.kdf);
  if (!checkKey(header, key)) fail('Wrong passphrase for this sync target.', 'Type the passphrase you chose when you set up sync on your first device; a lost passphrase cannot be recovered.');
  return key;
}

/** Whether a key (e.g. one kept in the keychain) is this target's. */
export function checkKey(header: SyncHeader, key: Uint8Array): boolean {
  const check = open(key, fromB64(header.check), KEY_CHECK_AD);
  return check !== null && Buffer.from(check).equals(Buffer.from(KEY_CHECK));
}

/** Where a batch belongs: its associated data. */
export interface BatchPlace {
  device: string;
  seq: number;
  /** A snapshot is sealed under its own associated data: a batch renamed into a snapshot's place (or back) fails the tag. */
  kind?: 'snapshot';
}

const placeAd = (p: BatchPlace): Uint8Array => new TextEncoder().encode(`tidy-sync/${p.kind ?? 'batch'}/v1/${p.device}/${p.seq}`);

/** A batch file's bytes: magic, nonce, ciphertext + tag. */
export function encryptBatch(key: Uint8Array, place: BatchPlace, plaintext: Uint8Array): Uint8Array {
  const sealed = seal(key, plaintext, placeAd(place));
  const out = new Uint8Array(MAGIC.length + sealed.length);
  out.set(MAGIC, 0);
  out.set(sealed, MAGIC.length);
  return out;
}

/** A batch's plaintext; refuses a file that is not ours, was changed, or sits at another place than it was written to. */
export function decryptBatch(key: Uint8Array, place: BatchPlace, file: Uint8Array): Uint8Array {
  const magicOk = file.length >= MAGIC.length && MAGIC.every((b, i) => file[i] === b);
  if (!magicOk) fail(`The sync file ${place.device}/${place.seq} is not a Tidy batch.`, 'Something other than Tidy wrote into the sync target; remove that file.');
  const plain = open(key, file.subarray(MAGIC.length), placeAd(place));
  if (!plain) {
    fail(
      `The sync file ${place.device}/${place.seq} failed its integrity check (changed, damaged or moved).`,
      'Tidy will not read it. If another program touched the sync target, restore the file; otherwise remove it and sync again from that device.',
    );
  }
  return plain;
}
