import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSecret, SecretInputError, type SecretInput } from '../../../src-main/cli/secret-input';

/** A stdin that claims to be a terminal, recording raw-mode switches. */
function fakeTty(): PassThrough & SecretInput & { modes: boolean[] } {
  const s = new PassThrough() as PassThrough & SecretInput & { modes: boolean[] };
  s.isTTY = true;
  s.modes = [];
  s.setRawMode = (m: boolean) => s.modes.push(m);
  return s;
}

describe('readSecret', () => {
  it('reads everything piped in', async () => {
    const input = new PassThrough();
    const out: string[] = [];
    const p = readSecret(input, (t) => out.push(t), 'API key');
    input.end('sk-piped\n');
    expect(await p).toBe('sk-piped\n');
    expect(out).toEqual([]);
  });

  it('refuses a runaway pipe', async () => {
    const input = new PassThrough();
    const p = readSecret(input, () => {}, 'API key');
    input.write(Buffer.alloc(70 * 1024, 'a'));
    await expect(p).rejects.toEqual(new SecretInputError('too_large'));
  });

  it('at a terminal: raw mode, nothing echoed, editing keys honoured, raw mode restored', async () => {
    const tty = fakeTty();
    const out: string[] = [];
    const p = readSecret(tty, (t) => out.push(t), 'API key for profile openai');
    // typed, an arrow key, a typo erased with Backspace, pasted rest, Enter
    tty.write('sk-ab');
    tty.write('\u001b[D');
    tty.write('x\u007f');
    tty.write('cd\r');
    expect(await p).toBe('sk-abcd');
    expect(tty.modes).toEqual([true, false]);
    expect(out.join('')).toBe('API key for profile openai (input hidden, Enter to finish): \n');
    expect(out.join('')).not.toContain('sk-');
  });

  it('Ctrl-U clears the line; Ctrl-C cancels and restores the terminal', async () => {
    const tty = fakeTty();
    const p = readSecret(tty, () => {}, 'k');
    tty.write('wrong\u0015right\n');
    expect(await p).toBe('right');

    const tty2 = fakeTty();
    const p2 = readSecret(tty2, () => {}, 'k');
    tty2.write('sk-half\u0003');
    await expect(p2).rejects.toEqual(new SecretInputError('cancelled'));
    expect(tty2.modes).toEqual([true, false]);
  });
});
