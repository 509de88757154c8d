/**
 * The answers of a streamable-HTTP MCP server, read within the same bounds as a stdio server's (jsonl.ts:
 * 8 MiB a message, 64 levels, 200,000 values). `boundedFetch` wraps the fetch the SDK's HTTP transport
 * uses: a JSON body, and each event of an SSE stream, goes through a JsonLineReader as it streams in (an
 * over-long message is counted and dropped, never held whole), and what is over the bounds becomes the
 * JSON-RPC error of the request it answers, naming what was wrong — instead of a connection that dies or
 * a process that runs out of memory. The connection stays for the next call.
 */
import { INVALID_REQUEST, JSONL_LIMITS, JsonLineReader, type JsonLineEvent, type JsonLineLimits, type JsonRpcId } from './jsonl';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The id of the request a POST body carries (a single JSON-RPC request), or null. */
function requestIdOf(init: RequestInit | undefined): JsonRpcId {
  if (typeof init?.body !== 'string' || init.body.length > 1_000_000) return null;
  try {
    const v = JSON.parse(init.body) as { id?: unknown };
    return typeof v.id === 'string' || typeof v.id === 'number' ? v.id : null;
  } catch {
    return null;
  }
}

const NL = 0x0a;
const CR = 0x0d;
const SPACE = Buffer.from(' ');
const END = Buffer.from('\n');

/**
 * One JSON message out of a reader's event: the value as JSON text, or the JSON-RPC error for `fallbackId`
 * (or the id the message showed), or null when it answers nothing (then `problem` hears of it).
 */
function messageOf(e: JsonLineEvent, server: string, fallbackId: JsonRpcId, problem: (line: string) => void): string | null {
  if (e.kind === 'value') return JSON.stringify(e.value);
  const line = `the MCP server ${server} sent an answer Tidy cannot take: ${e.problem}`;
  const id = e.id ?? fallbackId;
  if (id === null) {
    problem(line);
    return null;
  }
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: e.code === INVALID_REQUEST ? INVALID_REQUEST : e.code, message: line } });
}

/** A JSON body: newlines in JSON are only ever whitespace between tokens, so the whole body reads as one line. */
function boundedJson(body: ReadableStream<Uint8Array>, server: string, id: JsonRpcId, problem: (line: string) => void, limits: JsonLineLimits): ReadableStream<Uint8Array> {
  const reader = new JsonLineReader(limits);
  const source = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await source.read();
        if (done) {
          const out = reader.push(END).map((e) => messageOf(e, server, id, problem)).find((m) => m !== null);
          if (out) controller.enqueue(Buffer.from(out));
          controller.close();
          return;
        }
        const chunk = Buffer.from(value);
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === NL || chunk[i] === CR) chunk[i] = 0x20;
        reader.push(chunk);
      }
    },
    cancel: (reason) => source.cancel(reason),
  });
}

/**
 * An SSE stream, event by event: `data:` lines go into a JsonLineReader (a long one streams through it,
 * never held), joined by a space; other fields are kept when short (id, event, retry) and dropped when
 * not; a blank line ends the event, which is written out again as one `data:` line of checked JSON.
 */
function boundedSse(body: ReadableStream<Uint8Array>, server: string, id: JsonRpcId, problem: (line: string) => void, limits: JsonLineLimits): ReadableStream<Uint8Array> {
  const reader = new JsonLineReader(limits);
  const source = body.getReader();
  let field: Buffer[] = []; // the start of the current line, until its field name is known
  let fieldSize = 0;
  let kind: 'data' | 'other' | 'skip' | null = null; // what the current line is, once known
  let lineHasBytes = false;
  let hasData = false;
  let head: string[] = []; // the event's id/event/retry lines
  const MAX_FIELD = 1024;
  const finishEvent = (out: string[]) => {
    if (hasData) {
      const msg = reader.push(END).map((e) => messageOf(e, server, id, problem)).find((m) => m !== null);
      if (msg) out.push(`${head.join('')}data: ${msg}\n\n`);
      else if (head.length) out.push(`${head.join('')}\n`);
    } else if (head.length) out.push(`${head.join('')}\n`);
    head = [];
    hasData = false;
  };
  const endLine = (out: string[]) => {
    if (!lineHasBytes) return finishEvent(out);
    if (kind === null || kind === 'other') {
      const text = Buffer.concat(field).toString('utf8').replace(/\r$/, '');
      const m = /^([a-z]+):?\s?(.*)$/.exec(text);
      if (m && m[1] === 'data') {
        if (hasData) reader.push(SPACE);
        reader.push(Buffer.from(m[2]!));
        hasData = true;
      } else if (m && ['id', 'event', 'retry'].includes(m[1]!) && text.length <= MAX_FIELD) head.push(`${text}\n`);
    } else if (kind === 'data') hasData = true;
    field = [];
    fieldSize = 0;
    kind = null;
    lineHasBytes = false;
  };
  const take = (seg: Buffer) => {
    if (seg.length === 0) return;
    lineHasBytes = true;
    if (kind === 'skip') return;
    if (kind === 'data') {
      reader.push(seg);
      return;
    }
    field.push(seg);
    fieldSize += seg.length;
    const start = Buffer.concat(field);
    if (kind === null && start.length >= 5) {
      if (start.subarray(0, 5).toString('latin1') === 'data:') {
        // From here on the line streams into the reader.
        if (hasData) reader.push(SPACE);
        const rest = start.subarray(start[5] === 0x20 ? 6 : 5);
        reader.push(Buffer.from(rest));
        field = [];
        fieldSize = 0;
        kind = 'data';
        return;
      }
      kind = 'other';
    }
    if (fieldSize > MAX_FIELD) {
      kind = 'skip';
      field = [];
      fieldSize = 0;
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await source.read();
        const out: string[] = [];
        if (done) {
          endLine(out);
          finishEvent(out);
          if (out.length) controller.enqueue(Buffer.from(out.join('')));
          controller.close();
          return;
        }
        const chunk = Buffer.from(value);
        let start = 0;
        while (start <= chunk.length) {
          const nl = chunk.indexOf(NL, start);
          const end = nl === -1 ? chunk.length : nl;
          take(chunk.subarray(start, end > start && chunk[end - 1] === CR ? end - 1 : end));
          if (nl === -1) break;
          endLine(out);
          start = nl + 1;
        }
        if (out.length) {
          controller.enqueue(Buffer.from(out.join('')));
          return;
        }
      }
    },
    cancel: (reason) => source.cancel(reason),
  });
}

/** `fetch` with every answer of `server` read within `limits`; what answers nothing and is bad goes to `problem`. */
export function boundedFetch(base: Fetch, server: string, problem: (line: string) => void, limits: JsonLineLimits = JSONL_LIMITS): Fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const type = res.headers.get('content-type') ?? '';
    const id = requestIdOf(init);
    const body = /text\/event-stream/i.test(type)
      ? boundedSse(res.body, server, id, problem, limits)
      : /json/i.test(type)
        ? boundedJson(res.body, server, id, problem, limits)
        : null;
    if (!body) return res;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
