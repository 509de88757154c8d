/**
 * An .ics file read in pieces (calendar/ics.ts reads it this way, so a 64 MB file is never one string):
 * a source gives the file's bytes a chunk at a time, as often as asked (each pass over the file opens it
 * again), and `contentLines` turns chunks into the file's content lines (RFC 5545 §3.1): CRLF, LF or a
 * bare CR ends a line, a line that starts with a space or tab continues the one before (folding, also
 * across chunk boundaries), a byte order mark at the start is dropped, and a UTF-8 character split across
 * two chunks is read whole. The bytes read are counted against the import limit on every pass.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { fail } from '../fail';
import { ICS_LIMITS, icsTooLarge } from './ics-text';

export type IcsChunk = string | Uint8Array;

/** An .ics file to read: its size in UTF-8 bytes (checked before anything is read), and a new pass over it each time `open` is called. */
export interface IcsSource {
  readonly bytes: number;
  open(): Iterable<IcsChunk>;
}

/** One content line: its text with folds undone, and the number of the physical line it starts on. */
export interface ContentLine {
  text: string;
  line: number;
}

const CHUNK_BYTES = 64 * 1024;

/** A file on disk, read `chunkBytes` at a time into one buffer (a chunk is good until the next is asked for). */
export function fileSource(path: string, chunkBytes = CHUNK_BYTES): IcsSource {
  return {
    bytes: statSync(path).size,
    *open() {
      const fd = openSync(path, 'r');
      try {
        const buf = Buffer.allocUnsafe(chunkBytes);
        for (;;) {
          const n = readSync(fd, buf, 0, chunkBytes, null);
          if (n <= 0) return;
          yield n === chunkBytes ? buf : buf.subarray(0, n);
        }
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** A file's bytes already in memory (a file the window sent), read without a copy. */
export function bytesSource(bytes: Uint8Array, chunkBytes = CHUNK_BYTES): IcsSource {
  return {
    bytes: bytes.byteLength,
    *open() {
      for (let at = 0; at < bytes.byteLength; at += chunkBytes) yield bytes.subarray(at, Math.min(at + chunkBytes, bytes.byteLength));
    },
  };
}

/** A file's text already in memory, read `chunkChars` characters at a time (never splitting a surrogate pair). */
export function textSource(text: string, chunkChars = CHUNK_BYTES): IcsSource {
  return {
    // A string of more characters than the limit is over it, whatever its bytes (counted without a copy).
    bytes: text.length > ICS_LIMITS.maxBytes ? text.length : Buffer.byteLength(text, 'utf8'),
    *open() {
      let at = 0;
      while (at < text.length) {
        let end = Math.min(at + chunkChars, text.length);
        const last = text.charCodeAt(end - 1);
        if (end < text.length && end - at > 1 && last >= 0xd800 && last <= 0xdbff) end--;
        yield text.slice(at, end);
        at = end;
      }
    },
  };
}

/**
 * The content lines of a file given in chunks. Strings built from many pieces (a long line, a line of many
 * folds, a line across many chunks) are joined once a chunk, so a file of nothing but folds costs about
 * its own size, not an object per piece. Refuses (icsTooLarge) once more bytes than the limit were read.
 */
export function* contentLines(chunks: Iterable<IcsChunk>): Generator<ContentLine> {
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  let first = true;
  /** The start of a physical line the chunk before ended in (pieces, joined when the line ends). */
  let carry: string[] = [];
  /** How lines end: 0 not known yet, 1 LF (a CR before it is dropped), 2 a bare CR. */
  let mode: 0 | 1 | 2 = 0;
  /** The first line ended with a CR that was the last character of the chunk before. */
  let afterCr = false;
  let physical = 0;
  /**
   * The content line being read: its first physical line, the folds read from earlier chunks (joined, one
   * piece a chunk, see `settle`) and from this one, and the number of its first line. A line without folds
   * (nearly all) touches no array.
   */
  let head = '';
  const settled: string[] = [];
  const folds: string[] = [];
  let logicalLine = 0;
  let open = false;
  const settle = (): void => {
    if (folds.length) {
      settled.push(folds.length === 1 ? folds[0]! : folds.join(''));
      folds.length = 0;
    }
  };
  const take = (): ContentLine => {
    let text = head;
    if (folds.length || settled.length) {
      settle();
      text = head + settled.join('');
      settled.length = 0;
    }
    open = false;
    return { text, line: logicalLine };
  };
  /** One physical line: a fold continues the open content line; anything else ends it (returned) and opens the next. */
  const physicalLine = (l: string): ContentLine | null => {
    physical++;
    const c = l.charCodeAt(0);
    if (open && (c === 0x20 || c === 0x09)) {
      if (l.length > 1) folds.push(l.slice(1));
      return null;
    }
    const done = open ? take() : null;
    open = true;
    logicalLine = physical;
    head = l;
    return done;
  };
  /** The content lines a chunk completes go to `out` (one generator for the whole walk, not one per chunk). */
  const out: ContentLine[] = [];
  const lines = (s: string, final: boolean): void => {
    let pos = 0;
    if (mode === 0 && afterCr) {
      // The first line ended with a CR at the end of the chunk before: an LF now makes the file CRLF.
      mode = s.charCodeAt(0) === 0x0a ? 1 : 2;
    }
    if (mode === 1 && afterCr && s.charCodeAt(0) === 0x0a) pos = 1;
    afterCr = false;
    if (mode === 0) {
      // The first line's end says how lines end: LF (or CRLF) in nearly every file, a bare CR in old Mac
      // files. A CR inside a line of an LF file stays in the line (as ical.js reads it): it ends nothing.
      const lf = s.indexOf('\n');
      const cr = s.indexOf('\r');
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        if (cr + 1 < s.length) mode = s.charCodeAt(cr + 1) === 0x0a ? 1 : 2;
      } else if (lf !== -1) mode = 1;
      else if (!final) {
        carry.push(s);
        return;
      }
    }
    const eol = mode === 2 ? '\r' : mode === 1 ? '\n' : '\r';
    while (pos < s.length) {
      const end = s.indexOf(eol, pos);
      if (end === -1) {
        carry.push(s.slice(pos));
        break;
      }
      let l = s.slice(pos, end);
      if (carry.length) {
        carry.push(l);
        l = carry.join('');
        carry = [];
      }
      if (mode === 0) afterCr = true; // the first line ended with the chunk's last character, a CR
      else if (mode === 1 && l.charCodeAt(l.length - 1) === 0x0d) l = l.slice(0, -1);
      pos = end + 1;
      const done = physicalLine(l);
      if (done) out.push(done);
    }
    if (final && carry.length) {
      let l = carry.join('');
      if (mode === 1 && l.charCodeAt(l.length - 1) === 0x0d) l = l.slice(0, -1);
      const done = physicalLine(l);
      carry = [];
      if (done) out.push(done);
    }
    settle();
  };
  for (const chunk of chunks) {
    let s: string;
    if (typeof chunk === 'string') {
      bytes += Buffer.byteLength(chunk, 'utf8');
      s = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    } else {
      bytes += chunk.byteLength;
      // The decoder drops a byte order mark at the start and keeps a character's first bytes for the next chunk.
      s = decoder.decode(chunk, { stream: true });
    }
    if (bytes > ICS_LIMITS.maxBytes) {
      const { error, hint } = icsTooLarge(bytes);
      fail(error, hint);
    }
    first = false;
    if (s) lines(s, false);
    for (const l of out) yield l;
    out.length = 0;
  }
  lines(decoder.decode(), true);
  if (open) out.push(take());
  yield* out;
}
