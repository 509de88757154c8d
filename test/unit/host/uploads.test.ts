// Files from the UI in parts: the main side's store (src-main/host/uploads.ts) and the UI's sender
// (src-renderer/lib/upload.ts), through the contract's schemas.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../src-shared/bridge';
import { MAX_UPLOAD_BYTES, UPLOAD_PART_BYTES } from '../../../src-shared/bounds';
import { channels } from '../../../src-shared/ipc';
import { DomainError } from '../../../src-main/core';
import { createUploads } from '../../../src-main/host/uploads';
import { sendFile } from '../../../src-renderer/lib/upload';
import { fakeApi } from '../renderer/fake-api';

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return `${e.error} — ${e.hint}`;
    throw e;
  }
  throw new Error('expected a refusal');
};

const fileOf = (name: string, bytes: Uint8Array) => Object.assign(new Blob([bytes]), { name });

/** A fake API whose upload channels are a real store behind the contract's input schemas. */
function uiAndStore(clock = () => 0) {
  const uploads = createUploads(undefined, clock);
  const fake = fakeApi({
    'uploads.start': (i) => {
      const { name, size } = channels['uploads.start'].input.parse(i);
      return { upload: uploads.start(name, size) };
    },
    'uploads.add': (i) => {
      const { upload, offset, base64 } = channels['uploads.add'].input.parse(i);
      return { received: uploads.add(upload, offset, Buffer.from(base64, 'base64')) };
    },
  });
  return { uploads, fake };
}

describe('uploads', () => {
  it('any file arrives whole, in parts that each fit one request', async () => {
    await fc.assert(
      // Lengths around the part boundaries as often as anywhere (fast-check's arrays alone stay small).
      fc.asyncProperty(fc.oneof(fc.nat({ max: 3 * UPLOAD_PART_BYTES + 7 }), fc.constantFrom(0, 1, UPLOAD_PART_BYTES - 1, UPLOAD_PART_BYTES, UPLOAD_PART_BYTES + 1, 2 * UPLOAD_PART_BYTES)), fc.nat(255), async (length, seed) => {
        const bytes = new Uint8Array(length);
        for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 255;
        const { uploads, fake } = uiAndStore();
        const id = await sendFile(fake.api, fileOf('notes.csv', bytes));
        const got = uploads.read(id);
        expect(got.name).toBe('notes.csv');
        expect(got.bytes.equals(bytes)).toBe(true); // toEqual walks byte by byte, far slower
        const parts = fake.callsTo('uploads.add') as { base64: string; offset: number }[];
        expect(parts).toHaveLength(Math.ceil(bytes.length / UPLOAD_PART_BYTES));
        expect(parts.map((p) => p.offset)).toEqual(parts.map((_, i) => i * UPLOAD_PART_BYTES));
      }),
      { numRuns: 40 },
    );
  });

  it('an upload can be read more than once (a preview, then the import)', () => {
    const uploads = createUploads();
    const id = uploads.start('a.csv', 3);
    uploads.add(id, 0, Buffer.from('abc'));
    expect(uploads.read(id).bytes.toString()).toBe('abc');
    expect(uploads.read(id).bytes.toString()).toBe('abc');
  });

  it('refuses parts out of order, past the announced size, an unfinished file and an unknown id, each in one line', () => {
    const uploads = createUploads();
    const id = uploads.start('cal.ics', 10);
    expect(id).toMatch(/^up_[A-Za-z0-9_-]{22}$/);
    expect(uploads.start('cal.ics', 10)).not.toBe(id);
    uploads.add(id, 0, Buffer.from('12345'));
    expect(refusal(() => uploads.add(id, 0, Buffer.from('12345')))).toBe('a part of cal.ics came out of order (at byte 0, expected 5) — choose the file again');
    expect(refusal(() => uploads.add(id, 5, Buffer.from('123456')))).toBe('cal.ics is longer than the 10 bytes announced — choose the file again');
    expect(refusal(() => uploads.read(id))).toBe('cal.ics has not fully arrived (5 of 10 bytes) — choose the file again');
    expect(refusal(() => uploads.read('up_AAAAAAAAAAAAAAAAAAAAAA'))).toMatch(/^no upload up_A+ is waiting .* — choose the file again$/);
    expect(refusal(() => uploads.start('huge.zip', MAX_UPLOAD_BYTES + 1))).toBe('huge.zip is 65 MB, more than the 64 MB Tidy takes — split the file, or import it with the tidy command');
  });

  it('holds at most four files (the least recently used goes) and forgets one idle for 15 minutes', () => {
    let t = 0;
    const uploads = createUploads(undefined, () => t);
    const ids = ['a', 'b', 'c', 'd'].map((n) => uploads.start(n, 0));
    uploads.read(ids[0]!); // a is used again: b is now the oldest
    const e = uploads.start('e', 0);
    expect(refusal(() => uploads.read(ids[1]!))).toMatch(/^no upload/);
    for (const id of [ids[0]!, ids[2]!, ids[3]!, e]) expect(uploads.read(id).bytes.length).toBe(0);
    t += 15 * 60_000;
    expect(uploads.read(e).name).toBe('e'); // still within the limit
    t += 15 * 60_000 + 1;
    expect(refusal(() => uploads.read(e))).toMatch(/^no upload .* 15 idle minutes/);
  });

  it('the contract refuses a part larger than one request may carry, or that is not base64', () => {
    const upload = 'up_AAAAAAAAAAAAAAAAAAAAAA';
    const big = 'A'.repeat((UPLOAD_PART_BYTES / 3) * 4 + 4);
    expect(channels['uploads.add'].input.safeParse({ upload, offset: 0, base64: big }).success).toBe(false);
    expect(channels['uploads.add'].input.safeParse({ upload, offset: 0, base64: '<script>' }).success).toBe(false);
    expect(channels['uploads.add'].input.safeParse({ upload: '../../etc/passwd', offset: 0, base64: '' }).success).toBe(false);
    expect(channels['uploads.start'].input.safeParse({ name: 'x', size: -1 }).success).toBe(false);
  });

  it('the UI refuses a file over 64 MB before sending anything, and says so in words', async () => {
    const { fake } = uiAndStore();
    const huge = { name: 'Everything.zip', size: MAX_UPLOAD_BYTES + 1, slice: () => ({ arrayBuffer: () => Promise.reject(new Error('not read')) }) };
    const e = await sendFile(fake.api, huge).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BridgeError);
    expect(e).toMatchObject({ message: 'Everything.zip is 65 MB, more than the 64 MB the app imports', hint: 'split the file, or import it with the tidy command' });
    expect(fake.calls).toEqual([]);
  });

  it('a file that cannot be read midway is one line, not a crash', async () => {
    const { fake } = uiAndStore();
    let reads = 0;
    const vanishing = {
      name: 'cal.ics',
      size: 2 * UPLOAD_PART_BYTES,
      slice: () => ({ arrayBuffer: () => (reads++ === 0 ? Promise.resolve(new ArrayBuffer(UPLOAD_PART_BYTES)) : Promise.reject(new Error('NotFoundError'))) }),
    };
    await expect(sendFile(fake.api, vanishing)).rejects.toMatchObject({ message: 'cal.ics could not be read', hint: 'check that the file is still there, then choose it again' });
  });
});
