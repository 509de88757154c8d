// Sync's encryption: round trip, a changed byte / moved file / wrong key refused, a wrong passphrase in one
// line, hostile headers, and no plaintext in anything the target stores.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import { checkKey, createHeader, decryptBatch, encryptBatch, parseHeader, unlock, type KdfParams } from '../../../src-main/core/sync/crypto';

/** Small Argon2 parameters keep the tests fast; the defaults are measured by `npm run bench sync`. */
const FAST: KdfParams = { name: 'argon2id', memoryKiB: 64, iterations: 1, parallelism: 1 };
const SECRET = 'Buy a ring for Alice, secret surprise';
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

async function message(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return (e as DomainError).message;
  }
  throw new Error('expected a refusal');
}

describe('sync crypto', () => {
  it('round-trips a batch, and the header + batch hold no plaintext', async () => {
    const { header, key } = await createHeader('correct horse battery', FAST);
    const file = encryptBatch(key, { device: 'aaaa', seq: 1 }, enc(SECRET));
    expect(dec(decryptBatch(key, { device: 'aaaa', seq: 1 }, file))).toBe(SECRET);
    const stored = Buffer.concat([Buffer.from(JSON.stringify(header)), Buffer.from(file)]).toString('latin1');
    for (const word of ['ring', 'Alice', 'secret', 'correct horse']) expect(stored).not.toContain(word);
    // a second device derives the same key from the header and the passphrase
    const again = await unlock(parseHeader(JSON.stringify(header)), 'correct horse battery');
    expect(Buffer.from(again).equals(Buffer.from(key))).toBe(true);
    expect(checkKey(header, again)).toBe(true);
  });

  it('uses a fresh nonce: the same batch encrypts to different bytes', async () => {
    const { key } = await createHeader('pw', FAST);
    const a = encryptBatch(key, { device: 'd', seq: 1 }, enc(SECRET));
    const b = encryptBatch(key, { device: 'd', seq: 1 }, enc(SECRET));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('refuses a batch with any one byte changed', async () => {
    const { key } = await createHeader('pw', FAST);
    const file = encryptBatch(key, { device: 'd', seq: 7 }, enc(SECRET));
    for (const at of [4, 10, 30, file.length - 1]) {
      const bad = file.slice();
      bad[at]! ^= 0x01;
      expect(await message(() => decryptBatch(key, { device: 'd', seq: 7 }, bad))).toMatch(/failed its integrity check/);
    }
    expect(await message(() => decryptBatch(key, { device: 'd', seq: 7 }, file.subarray(0, 20)))).toMatch(/integrity/);
  });

  it('refuses a batch moved to another sequence number or another device', async () => {
    const { key } = await createHeader('pw', FAST);
    const file = encryptBatch(key, { device: 'd1', seq: 2 }, enc(SECRET));
    expect(await message(() => decryptBatch(key, { device: 'd1', seq: 3 }, file))).toMatch(/changed, damaged or moved/);
    expect(await message(() => decryptBatch(key, { device: 'd2', seq: 2 }, file))).toMatch(/changed, damaged or moved/);
  });

  it('refuses a file that is not a Tidy batch, and a batch under another key', async () => {
    const { key } = await createHeader('pw', FAST);
    const other = await createHeader('pw', FAST); // same passphrase, other salt: another target
    expect(await message(() => decryptBatch(key, { device: 'd', seq: 1 }, enc('hello, not ours')))).toMatch(/not a Tidy batch/);
    expect(await message(() => decryptBatch(key, { device: 'd', seq: 1 }, new Uint8Array(0)))).toMatch(/not a Tidy batch/);
    const file = encryptBatch(other.key, { device: 'd', seq: 1 }, enc(SECRET));
    expect(await message(() => decryptBatch(key, { device: 'd', seq: 1 }, file))).toMatch(/integrity/);
  });

  it('refuses a wrong passphrase in one line that says a lost one cannot be recovered', async () => {
    const { header } = await createHeader('right one', FAST);
    let err: unknown;
    try {
      await unlock(header, 'wrong one');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    const e = err as DomainError;
    expect(e.error).toBe('Wrong passphrase for this sync target.');
    expect(e.error).not.toContain('\n');
    expect(e.hint).toMatch(/cannot be recovered/);
    expect(await message(unlock(header, ''))).toMatch(/empty/);
  });

  it('refuses hostile headers: garbage, huge KDF costs, a newer version, injected fields', async () => {
    const { header } = await createHeader('pw', FAST);
    expect(await message(() => parseHeader('<html>not json'))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader('null'))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader('['.repeat(100_000)))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader(JSON.stringify({ ...header, kdf: { ...header.kdf, memoryKiB: 64 * 1024 * 1024 } })))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader(JSON.stringify({ ...header, kdf: { ...header.kdf, iterations: 1e9 } })))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader(JSON.stringify({ ...header, salt: 'x'.repeat(10_000) })))).toMatch(/not a Tidy sync header/);
    expect(await message(() => parseHeader(JSON.stringify({ ...header, version: 99 })))).toMatch(/newer Tidy/);
    const parsed = parseHeader(JSON.stringify(header).replace('{', '{"__proto__":{"polluted":true},"extra":"<script>",'));
    expect(parsed).not.toHaveProperty('extra');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
