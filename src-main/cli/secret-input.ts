/**
 * Reads a secret from stdin: on a terminal at a prompt that echoes nothing (raw mode, so not even the
 * length shows), else all of the piped input (`echo "$KEY" | tidy key set`).
 */

const MAX_PIPED = 64 * 1024;

/** The user pressed Ctrl-C at the prompt, or more was piped in than any key could be. */
export class SecretInputError extends Error {
  override name = 'SecretInputError';
  constructor(readonly kind: 'cancelled' | 'too_large') {
    super(kind === 'cancelled' ? 'cancelled at the prompt' : `more than ${MAX_PIPED / 1024} KiB on stdin`);
  }
}

export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export function readSecret(input: SecretInput, prompt: (text: string) => void, label: string): Promise<string> {
  return input.isTTY && typeof input.setRawMode === 'function' ? readHidden(input, prompt, label) : readPiped(input);
}

function readPiped(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer | string): void => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > MAX_PIPED) {
        cleanup();
        reject(new SecretInputError('too_large'));
        return;
      }
      chunks.push(b);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const cleanup = (): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      input.pause();
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onError);
    input.resume();
  });
}

function readHidden(input: SecretInput, prompt: (text: string) => void, label: string): Promise<string> {
  prompt(`${label} (input hidden, Enter to finish): `);
  return new Promise((resolve, reject) => {
    let value = '';
    let escape = false;
    const finish = (fn: () => void): void => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      prompt('\n');
      fn();
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (escape) {
          // Skip the rest of an arrow-key or other escape sequence (ESC [ … final letter).
          if (/[A-Za-z~]/.test(ch)) escape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(new SecretInputError('cancelled')));
        if (ch === '\u001b') escape = true;
        else if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}
