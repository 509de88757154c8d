import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecret } from '../../../src-main/core/secrets/api-key';
import { MIN_RUN, redactSecrets } from '../../../src-main/core/secrets/redact';

const KEY = 'sk-proj-4fQ9zLm2Xw7Rt1Vb8Nc6Hy3Jk5Gd0Ps';

describe('redactSecrets', () => {
  it('hides the whole key and every piece of 8 characters or more; 7 are left', () => {
    expect(redactSecrets(`key ${KEY} end`, [KEY])).toBe('key *** end');
    expect(redactSecrets(`a ${KEY.slice(10, 18)} b`, [KEY])).toBe('a *** b');
    expect(redactSecrets(`a ${KEY.slice(10, 17)} b`, [KEY])).toBe(`a ${KEY.slice(10, 17)} b`);
    expect(redactSecrets(`cut at the end: ${KEY.slice(0, 20)}`, [KEY])).toBe('cut at the end: sk-proj-***');
    expect(redactSecrets(`${KEY.slice(-12)}!`, [KEY])).toBe('***!');
  });

  it('leaves a vendor prefix quoted alone, as providers do to identify a key', () => {
    expect(redactSecrets('Incorrect API key provided: sk-proj-****Ps.', [KEY])).toBe('Incorrect API key provided: sk-proj-****Ps.');
    expect(redactSecrets('sk-svcacct-… and sk-or-v1-…', ['sk-svcacct-AbCdEfGhIjKl0123', 'sk-or-v1-0123456789abcdef0123'])).toBe('sk-svcacct-… and sk-or-v1-…');
  });

  it('joins overlapping and adjacent pieces into one mark, and handles several secrets', () => {
    const other = 'f81d4fae7dec11d0a76500a0c91e6bf6';
    expect(redactSecrets(`${KEY.slice(8, 20)}${KEY.slice(20, 30)} and ${other.slice(4, 20)}`, [KEY, other])).toBe('*** and ***');
    expect(redactSecrets(`x${KEY}${KEY}y`, [KEY], '[redacted]')).toBe('x[redacted]y');
  });

  it('short secrets: whole only from 4 characters, never below', () => {
    expect(redactSecrets('the word abc and abcdef', ['abc'])).toBe('the word abc and abcdef');
    expect(redactSecrets('token tok1 and tok1tok', ['tok1'])).toBe('token *** and ***tok');
    expect(redactSecrets('nothing', [undefined, ''])).toBe('nothing');
  });

  it('no run of MIN_RUN characters of a key survives, wherever it is put in any text', () => {
    const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_');
    fc.assert(
      fc.property(
        fc.string({ unit: alnum, minLength: 20, maxLength: 80 }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        (key, before, after, a, b) => {
          const start = a % (key.length - MIN_RUN);
          const end = start + MIN_RUN + (b % (key.length - start - MIN_RUN + 1));
          const out = redactSecrets(before + key.slice(start, end) + after, [key]);
          // What is left of the key's characters past any vendor prefix: no window of MIN_RUN of them.
          const prefix = /^[a-z]{2,3}[-_](?:[a-z0-9]{2,10}[-_]){0,2}/.exec(key)?.[0].length ?? 0;
          for (let i = Math.max(prefix, start); i + MIN_RUN <= end; i++) {
            expect(out.includes(key.slice(i, i + MIN_RUN)) && !(before + after).includes(key.slice(i, i + MIN_RUN))).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a megabyte of text is handled (the check is one lookup per position)', () => {
    const text = 'lorem ipsum '.repeat(90_000) + KEY.slice(8);
    const out = redactSecrets(text, [KEY]);
    expect(out.endsWith(' ***')).toBe(true);
    expect(out).toHaveLength(text.length - KEY.slice(8).length + 3);
  });
});

describe('redactSecret (test connection reports)', () => {
  it('hides pieces of the key as [redacted]', () => {
    expect(redactSecret(`proxy says: bad key ${KEY.slice(8, 24)}`, KEY)).toBe('proxy says: bad key [redacted]');
    expect(redactSecret('nothing here', undefined)).toBe('nothing here');
  });
});
