/**
 * Files the UI sends (a Todoist export, an .ics calendar), received in parts: `uploads.start` names the
 * file and its size, `uploads.add` appends the parts in order, and the channel that uses the file (for
 * example `data.todoistPreview`, then `data.todoistImport`) names the upload. Parts keep every request
 * within one web-host frame (src-main/host/web.ts) and the dispatcher's bound on text
 * (src-shared/bounds.ts), so a file of any size up to MAX_UPLOAD_BYTES goes through either transport.
 *
 * Held in memory only, by this process: a few files at once (starting one more drops the oldest), each
 * forgotten after some idle minutes. The ids are random, so one upload cannot be guessed from another.
 */
import { randomBytes } from 'node:crypto';
import { MAX_UPLOAD_BYTES } from '../../src-shared/bounds';
import { fail } from '../core';

interface UploadLimits {
  /** Uploads held at once; starting one more forgets the least recently used. */
  maxFiles: number;
  /** An upload not used for this long is forgotten. */
  idleMs: number;
}

const UPLOAD_LIMITS: UploadLimits = { maxFiles: 4, idleMs: 15 * 60_000 };

export interface UploadedFile {
  name: string;
  bytes: Buffer;
}

export interface Uploads {
  /** A new, empty upload of a file of `size` bytes; its id. */
  start(name: string, size: number): string;
  /** Appends a part at `offset` (the bytes received so far); the bytes received after it. */
  add(id: string, offset: number, part: Buffer): number;
  /** The whole file, once every byte has arrived; refused while parts are missing. */
  read(id: string): UploadedFile;
}

interface Pending {
  name: string;
  size: number;
  parts: Buffer[];
  received: number;
  whole: Buffer | null;
  usedAt: number;
}

const AGAIN = 'choose the file again';

export function createUploads(limits: UploadLimits = UPLOAD_LIMITS, now: () => number = Date.now): Uploads {
  const held = new Map<string, Pending>(); // in order of last use, oldest first

  const forgetIdle = (t: number): void => {
    for (const [id, u] of held) if (t - u.usedAt > limits.idleMs) held.delete(id);
  };

  /** The live upload asked for (now the most recently used), or a refusal. */
  const find = (id: string): Pending => {
    const t = now();
    forgetIdle(t);
    const u = held.get(id);
    if (!u) return fail(`no upload ${id} is waiting (Tidy forgets one after ${limits.idleMs / 60_000} idle minutes, when more are started, or when it restarts)`, AGAIN);
    u.usedAt = t;
    held.delete(id);
    held.set(id, u);
    return u;
  };

  return {
    start(name, size) {
      if (size > MAX_UPLOAD_BYTES) fail(`${name} is ${Math.ceil(size / 1048576)} MB, more than the ${MAX_UPLOAD_BYTES / 1048576} MB Tidy takes`, 'split the file, or import it with the tidy command');
      const t = now();
      forgetIdle(t);
      while (held.size >= limits.maxFiles) held.delete(held.keys().next().value!);
      const id = `up_${randomBytes(16).toString('base64url')}`;
      held.set(id, { name, size, parts: [], received: 0, whole: null, usedAt: t });
      return id;
    },

    add(id, offset, part) {
      const u = find(id);
      if (offset !== u.received) fail(`a part of ${u.name} came out of order (at byte ${offset}, expected ${u.received})`, AGAIN);
      if (u.received + part.length > u.size) fail(`${u.name} is longer than the ${u.size} bytes announced`, AGAIN);
      u.parts.push(part);
      u.received += part.length;
      return u.received;
    },

    read(id) {
      const u = find(id);
      if (u.received < u.size) fail(`${u.name} has not fully arrived (${u.received} of ${u.size} bytes)`, AGAIN);
      u.whole ??= Buffer.concat(u.parts, u.size);
      u.parts = [];
      return { name: u.name, bytes: u.whole };
    },
  };
}
