/**
 * Incremental server-sent-events decoder, following the WHATWG EventSource parsing rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * bytes may arrive split anywhere (mid-line, mid-UTF-8 character, between CR and LF); lines end in
 * LF, CRLF or CR; `:` lines are comments (OpenRouter's `: OPENROUTER PROCESSING`); `data:` lines of one
 * event are joined with "\n". Unlike a browser, an event still pending when the stream ends is
 * delivered, because some servers end with `data: [DONE]\n` and no blank line.
 */

export interface SseEvent {
  /** The `event:` field, '' when absent. */
  event: string;
  data: string;
}

export class SseDecoder {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private dataLines: string[] = [];
  private hasData = false;
  private eventName = '';

  /** Feeds raw bytes; returns the events completed by them. */
  push(bytes: Uint8Array): SseEvent[] {
    return this.consume(this.decoder.decode(bytes, { stream: true }), false);
  }

  /** Ends the stream; returns what was still pending. */
  end(): SseEvent[] {
    const events = this.consume(this.decoder.decode(), true);
    if (this.buffer !== '') {
      this.line(this.buffer, events);
      this.buffer = '';
    }
    this.dispatch(events);
    return events;
  }

  private consume(text: string, final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let buf = this.buffer + text;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const ch = buf.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      if (ch === 13) {
        // A CR at the very end may be the first half of a CRLF split across chunks: wait for more.
        if (i + 1 === buf.length && !final) break;
        this.line(buf.slice(start, i), events);
        if (buf.charCodeAt(i + 1) === 10) i++;
      } else {
        this.line(buf.slice(start, i), events);
      }
      start = i + 1;
    }
    buf = buf.slice(start);
    this.buffer = buf;
    return events;
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
    this.hasData = false;
    this.eventName = '';
  }
}
