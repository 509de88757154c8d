// A sync target: storage the user owns that holds files. Sync asks only four things of it, so a synced
// folder and a WebDAV server (and later S3) look alike: list a folder, read a file, write a NEW file (never
// overwrite one: a device's batches are immutable), delete a file (for pruning). Paths are relative,
// '/'-separated, and checked here: names from a listing come from the server and may be hostile.
import { fail } from '../../fail';

export interface TargetEntry {
  name: string;
  dir: boolean;
}

export interface SyncTarget {
  /** For messages: "the folder /home/me/Sync" or "the WebDAV server https://…". */
  readonly label: string;
  /** The entries of a folder ('' is the root) whose names are safe; none when it does not exist. */
  list(dir: string): Promise<TargetEntry[]>;
  /** A file's bytes, or null when it does not exist; refuses one larger than `maxBytes`. */
  read(path: string, maxBytes?: number): Promise<Uint8Array | null>;
  /** Writes a file that must not exist yet, whole or not at all: 'exists' (and nothing written) when it does. */
  writeNew(path: string, data: Uint8Array): Promise<'written' | 'exists'>;
  /** Deletes a file; nothing when it is already gone. */
  remove(path: string): Promise<void>;
}

/** The largest file sync reads: a batch is far smaller; anything bigger is not ours (or hostile). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** A name sync writes or reads: letters, digits, '.', '_', '-', starting with a letter or digit (so no '..', no hidden temp files). */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A relative path of safe names, at most two deep; anything else is refused (a bug or a hostile name). */
export function checkPath(path: string): string[] {
  const parts = path.split('/');
  if (path.length === 0 || parts.length > 2 || !parts.every((p) => SAFE_NAME.test(p))) {
    throw new Error(`sync: refused an unsafe path on the target: ${JSON.stringify(path.slice(0, 200))}`);
  }
  return parts;
}

/** Like checkPath, but '' (the root) is allowed: for listing. */
export function checkDir(dir: string): string[] {
  return dir === '' ? [] : checkPath(dir);
}

export function tooLarge(label: string, path: string, maxBytes: number): never {
  fail(
    `The sync file ${path} on ${label} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB: it is not a Tidy batch.`,
    'Something other than Tidy wrote into the sync target; remove that file.',
  );
}
