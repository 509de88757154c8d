/**
 * Incremental server-sent-events decoder, following the WHATWG EventSource parsing rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * bytes may arrive split anywhere (mid-line, mid-UTF-8 character, between CR and LF); lines end in
 * LF, CRLF or CR; `:` lines are comments (OpenRouter's `: OPENROUTER PROCESSING`); `data:` lines of one
 * event are joined with "\n". Unlike a browser, an event still pending when the stream ends is
 * delivered, because some servers end with `data: [DONE]\n` and no blank line.
 *
 * Linear in the size of the stream however it is split: line breaks are looked for in the new bytes
 * only (CR and LF never occur inside a UTF-8 sequence, so bytes can be scanned before decoding), and an
 * unfinished line is kept as bytes in a buffer that grows by doubling, decoded once when it ends. A line
 * or an event beyond the limits throws SseLimitError, so a server cannot make it hold unbounded memory.
 */

export interface SseEvent {
  /** The `event:` field, '' when absent. */
  event: string;
  data: string;
}

interface SseLimits {
  /** Longest line, in bytes. Default: unlimited. */
  maxLineBytes?: number;
  /** Longest event (its data lines together), in characters. Default: unlimited. */
  maxEventChars?: number;
}

/** A line or an event longer than the decoder's limits. */
export class SseLimitError extends Error {
  override name = 'SseLimitError';
  constructor(
    readonly what: 'line' | 'event',
    readonly limit: number,
  ) {
    super(`an SSE ${what} is longer than ${limit} ${what === 'line' ? 'bytes' : 'characters'}`);
  }
}

const LF = 10;
const CR = 13;

export class SseDecoder {
  /** The first line may start with a byte-order mark, which UTF-8 decoding drops; later lines keep theirs. */
  private readonly firstDecoder = new TextDecoder('utf-8');
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private sawLine = false;
  /** The unfinished line's bytes: `pending[0, pendingLength)`. */
  private pending = new Uint8Array(0);
  private pendingLength = 0;
  /** The last byte seen was a CR: an LF right after it belongs to the same line break. */
  private afterCR = false;
  private dataLines: string[] = [];
  private dataChars = 0;
  private hasData = false;
  private eventName = '';
  private readonly maxLineBytes: number;
  private readonly maxEventChars: number;

  constructor(limits: SseLimits = {}) {
    this.maxLineBytes = limits.maxLineBytes ?? Infinity;
    this.maxEventChars = limits.maxEventChars ?? Infinity;
  }

  /** Feeds raw bytes; returns the events completed by them. Throws SseLimitError. */
  push(bytes: Uint8Array): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.afterCR && bytes.length > 0) {
      this.afterCR = false;
      if (bytes[0] === LF) start = 1;
    }
    for (let i = start; i < bytes.length; i++) {
      const b = bytes[i];
      if (b !== LF && b !== CR) continue;
      this.endLine(bytes, start, i, events);
      if (b === CR) {
        if (i + 1 === bytes.length) this.afterCR = true;
        else if (bytes[i + 1] === LF) i++;
      }
      start = i + 1;
    }
    if (start < bytes.length) this.append(bytes, start, bytes.length);
    return events;
  }

  /** Ends the stream; returns what was still pending. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.pendingLength > 0) this.endLine(this.pending, 0, 0, events);
    this.afterCR = false;
    this.dispatch(events);
    return events;
  }

  /** Adds bytes[from, to) to the unfinished line. */
  private append(bytes: Uint8Array, from: number, to: number): void {
    const length = to - from;
    const need = this.pendingLength + length;
    if (need > this.maxLineBytes) throw new SseLimitError('line', this.maxLineBytes);
    if (need > this.pending.length) {
      const grown = new Uint8Array(Math.max(need, this.pending.length * 2, 256));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    // Pieces of a few bytes are the common case of a slow stream: a loop beats making a view to copy.
    if (length <= 16) for (let i = 0; i < length; i++) this.pending[this.pendingLength + i] = bytes[from + i]!;
    else this.pending.set(bytes.subarray(from, to), this.pendingLength);
    this.pendingLength = need;
  }

  /** The line made of what is pending plus bytes[from, to) has ended. */
  private endLine(bytes: Uint8Array, from: number, to: number, events: SseEvent[]): void {
    let line: Uint8Array;
    if (this.pendingLength > 0) {
      if (to > from) this.append(bytes, from, to);
      line = this.pending.subarray(0, this.pendingLength);
      this.pendingLength = 0;
    } else {
      if (to - from > this.maxLineBytes) throw new SseLimitError('line', this.maxLineBytes);
      line = bytes.subarray(from, to);
    }
    const decoder = this.sawLine ? this.decoder : this.firstDecoder;
    this.sawLine = true;
    this.line(decoder.decode(line), events);
    // A long line's buffer is not kept for the rest of the stream.
    if (this.pending.length > 64 * 1024) this.pending = new Uint8Array(0);
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      // +1: the "\n" that joins it to the line before.
      this.dataChars += value.length + (this.hasData ? 1 : 0);
      if (this.dataChars > this.maxEventChars) throw new SseLimitError('event', this.maxEventChars);
      this.dataLines.push(value);
      this.hasData = true;
    } else if (field === 'event') {
      this.eventName = value;
    }
    // `id`, `retry` and unknown fields are ignored, as the spec says.
  }

  private dispatch(events: SseEvent[]): void {
    if (this.hasData) events.push({ event: this.eventName, data: this.dataLines.join('\n') });
    this.dataLines = [];
    this.dataChars = 0;
    this.hasData = false;
    this.eventName = '';
  }
}
