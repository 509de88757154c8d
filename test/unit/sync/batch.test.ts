// A batch's content, checked after decryption: a newer format says "update Tidy", a batch that claims
// another place, a message stamped by another device, malformed or oversized content are refused.
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import { decodeBatch, encodeBatch } from '../../../src-main/core/sync/batch';
import { createHeader, encryptBatch } from '../../../src-main/core/sync/crypto';
import { formatHlc } from '../../../src-main/core/sync/hlc';
import type { Message } from '../../../src-main/core/sync/messages';
import { FAST_KDF, IDS, T0 } from './scenario';

const place = { device: IDS[0], seq: 3 };
const m = (i: number, value: Message['value'] = `Dentist ${i}`): Message => ({ hlc: formatHlc({ millis: T0 + i, counter: 0, node: IDS[0] }), table: 'tasks', row: `t${i}`, column: 'content', value });
/** A batch sealed with the right key around any content: what a buggy or hostile key holder could write. */
const forge = (key: Uint8Array, body: unknown): Uint8Array => encryptBatch(key, place, deflateSync(new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body))));

function refused(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('batches', () => {
  it('round-trip messages of every value type, and hold no plaintext', async () => {
    const { key } = await createHeader('pw', FAST_KDF);
    const messages = [m(1), m(2, 42), m(3, true), m(4, null), m(5, 'ünïcödé ✓ "quoted" \n newline')];
    const file = encodeBatch(key, place, messages);
    expect(decodeBatch(key, place, file)).toEqual(messages);
    expect(Buffer.from(file).toString('latin1')).not.toMatch(/Dentist|tasks|content/);
  });

  it('refuse a batch of a newer format with "update Tidy on this device"', async () => {
    const { key } = await createHeader('pw', FAST_KDF);
    const e = refused(() => decodeBatch(key, place, forge(key, { format: 2, device: place.device, seq: place.seq, messages: [] })));
    expect(e.error).toMatch(/newer Tidy/);
    expect(e.hint).toMatch(/Update Tidy on this device/);
  });

  it('refuse hostile content sealed with the right key', async () => {
    const { key } = await createHeader('pw', FAST_KDF);
    const ok = { format: 1, device: place.device, seq: place.seq };
    const tuple = (x: Message): unknown[] => [x.hlc, x.table, x.row, x.column, x.value];
    const cases: [unknown, RegExp][] = [
      ['not json {', /not a batch/],
      ['"a string"', /not a batch/],
      ['['.repeat(50_000), /not a batch/],
      [{ ...ok, seq: 4, messages: [] }, /claims another place/],
      [{ ...ok, device: IDS[1], messages: [] }, /claims another place/],
      [{ ...ok, messages: [tuple({ ...m(1), hlc: formatHlc({ millis: T0, counter: 0, node: IDS[1] }) })] }, /stamped by another device/],
      [{ ...ok, messages: [[...tuple(m(1)).slice(0, 4), { $gt: '' }]] }, /malformed/],
      [{ ...ok, messages: [tuple({ ...m(1), table: 'tasks"; DROP TABLE tasks; --' })] }, /malformed/],
      [{ ...ok, messages: [tuple({ ...m(1), column: '__proto__' }).map((v, i) => (i === 3 ? 'constructor.prototype' : v))] }, /malformed/],
      [{ ...ok, messages: [tuple(m(1)).slice(0, 3)] }, /not a batch/],
      [{ ...ok, messages: Array.from({ length: 50_001 }, () => [0, 0, 0, 0, 0]) }, /not a batch/],
    ];
    for (const [body, why] of cases) expect(refused(() => decodeBatch(key, place, forge(key, body))).error).toMatch(why);
    // not deflated at all
    expect(refused(() => decodeBatch(key, place, encryptBatch(key, place, new TextEncoder().encode('{"format":1}')))).error).toMatch(/not a batch/);
  });
});
