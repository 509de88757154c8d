/**
 * Reading a 200 answer into a TurnAssembler, whatever the server sent: SSE (also where JSON was asked
 * for), one chat.completion JSON (also where a stream was asked for), JSON lines of chunks (a stream
 * without SSE framing), or an error object in the body. Garbage, an HTML page, and a stream that ends
 * without finish_reason and without [DONE] are `protocol` errors.
 *
 * Bounded: a non-streamed body, one SSE line and one SSE event may each be at most `maxBytes` (8 MB by
 * default: a chat completion of the largest max_tokens is well under 1 MB), and so may the text the
 * turn collects. A server that sends more gets a `protocol` error, not the process's memory.
 */
import type { TurnAssembler } from './assemble';
import { classifyInBandError, oneLine, tooLarge } from './errors';
import { ModelError } from './port';
import { abortable } from './signals';
import { SseDecoder, SseLimitError, type SseEvent } from './sse';

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Bytes of the body kept to quote in a protocol error. */
const SNIPPET_BYTES = 2048;

interface ReadOptions {
  /** The endpoint as messages name it (displayUrl). */
  where: string;
  /** Replay a whole (non-streamed) answer to the caller as deltas: the caller asked to stream. */
  emitWhole: boolean;
  hadTools: boolean;
  signal: AbortSignal;
  /** Called for every piece of the body (re-arms the silence timer). */
  onData: () => void;
  maxBytes: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function looksLikeChunk(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (value.object === 'chat.completion.chunk') return true;
  return Array.isArray(value.choices) && value.choices.some((c) => isRecord(c) && isRecord(c.delta));
}


/** Reads the whole answer into `assembler`. Throws ModelError (or whatever the assembler's onDelta throws). */
export async function readAnswer(response: Response, assembler: TurnAssembler, o: ReadOptions): Promise<void> {
  const { where, hadTools, signal, maxBytes } = o;
  const reader = response.body?.getReader();
  if (!reader) throw new ModelError(`${where} sent an empty answer`, 'protocol');
  const sse = new SseDecoder({ maxLineBytes: maxBytes, maxEventChars: maxBytes });
  let mode: 'sniff' | 'sse' | 'json' | 'html' = 'sniff';
  // Until the first non-blank character: what it is decides the mode. Only the new piece is decoded.
  const sniffDecoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const jsonParts: Uint8Array[] = [];
  let jsonBytes = 0;
  const snippetParts: Uint8Array[] = [];
  let snippetBytes = 0;
  let sawDone = false;
  let events = 0;
  const decode = (parts: Uint8Array[]): string => new TextDecoder().decode(Buffer.concat(parts));
  const snippet = (): string => oneLine(decode(snippetParts).slice(0, 200), 200);

  const onEvent = (event: SseEvent): void => {
    if (sawDone) return;
    const data = event.data.trim();
    if (data === '[DONE]') {
      sawDone = true;
      return;
    }
    if (event.event === 'error') {
      let body: unknown;
      try {
        body = JSON.parse(data);
      } catch {
        body = { error: { message: data } };
      }
      throw classifyInBandError(isRecord(body) && body.error !== undefined ? body : { error: body }, hadTools, true);
    }
    // Named events other than "message" are not part of the chat-completions protocol (keep-alives).
    if (event.event !== '' && event.event !== 'message') return;
    if (data === '') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelError(`the stream from ${where} carried data that is not JSON: "${oneLine(data, 120)}"`, 'protocol');
    }
    events++;
    assembler.addChunk(chunk);
  };
  const pushSse = (bytes: Uint8Array): void => {
    let decoded: SseEvent[];
    try {
      decoded = sse.push(bytes);
    } catch (error) {
      if (error instanceof SseLimitError) throw tooLarge(where, `one stream ${error.what}`, maxBytes);
      throw error;
    }
    for (const event of decoded) onEvent(event);
  };

  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await abortable(reader.read(), signal);
      } catch (error) {
        // The connection dropped after the finish chunk: only usage and [DONE] are missing.
        if (mode === 'sse' && assembler.finished && !signal.aborted) break;
        throw error;
      }
      if (next.done) break;
      const value = next.value;
      o.onData();
      if (!value || value.byteLength === 0) continue;
      if (snippetBytes < SNIPPET_BYTES) {
        snippetParts.push(value);
        snippetBytes += value.byteLength;
      }
      if (mode === 'sniff') {
        pending.push(value);
        pendingBytes += value.byteLength;
        const head = sniffDecoder.decode(value, { stream: true }).trimStart();
        if (head === '') {
          if (pendingBytes > maxBytes) throw tooLarge(where, 'the answer', maxBytes);
          continue;
        }
        mode = head.startsWith('{') || head.startsWith('[') ? 'json' : head.startsWith('<') ? 'html' : 'sse';
        const parts = pending;
        pending = [];
        if (mode === 'json') {
          jsonParts.push(...parts);
          jsonBytes = pendingBytes;
        }
        if (mode === 'sse') for (const part of parts) pushSse(part);
      } else if (mode === 'sse') {
        pushSse(value);
      } else if (mode === 'json') {
        jsonParts.push(value);
        jsonBytes += value.byteLength;
      }
      if (mode === 'json' && jsonBytes > maxBytes) throw tooLarge(where, 'the answer', maxBytes);
      if (sawDone || (mode === 'html' && snippetBytes >= SNIPPET_BYTES)) break;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }

  if (mode === 'sniff') throw new ModelError(`${where} sent an empty answer`, 'protocol');
  if (mode === 'html') {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(decode(snippetParts));
    throw new ModelError(
      `${where} answered with a web page${title?.[1] ? ` ("${oneLine(title[1], 80)}")` : ''}, not the OpenAI API; is the base URL right (it usually ends in /v1)?`,
      'protocol',
    );
  }
  if (mode === 'sse') {
    if (!sawDone) {
      let rest: SseEvent[];
      try {
        rest = sse.end();
      } catch (error) {
        if (error instanceof SseLimitError) throw tooLarge(where, `one stream ${error.what}`, maxBytes);
        throw error;
      }
      for (const event of rest) onEvent(event);
    }
    if (!sawDone && !assembler.finished) {
      if (events === 0) {
        throw new ModelError(`${where} did not answer like an OpenAI-compatible API: "${snippet()}"`, 'protocol');
      }
      throw new ModelError(`the stream from ${where} ended before the answer was complete (no finish_reason, no [DONE])`, 'protocol');
    }
    if (events === 0 && !assembler.sawData) throw new ModelError(`the stream from ${where} ended without an answer`, 'protocol');
    return;
  }
  // JSON: a chat.completion (also when a stream was asked for and the server ignored it), an error
  // object, or JSON lines of chunks (a stream without SSE framing).
  const text = decode(jsonParts);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    const chunks: unknown[] = [];
    for (const line of lines) {
      try {
        chunks.push(JSON.parse(line));
      } catch {
        throw new ModelError(`${where} answered with invalid JSON: "${snippet()}"`, 'protocol');
      }
    }
    if (!chunks.every(looksLikeChunk)) throw new ModelError(`${where} answered with invalid JSON: "${snippet()}"`, 'protocol');
    for (const chunk of chunks) assembler.addChunk(chunk);
    if (!assembler.finished) {
      throw new ModelError(`the stream from ${where} ended before the answer was complete (no finish_reason)`, 'protocol');
    }
    return;
  }
  if (isRecord(body) && body.error !== undefined && body.error !== null) throw classifyInBandError(body, hadTools, false);
  if (looksLikeChunk(body)) {
    assembler.addChunk(body);
    return;
  }
  if (!isRecord(body) || !Array.isArray(body.choices) || body.choices.length === 0) {
    throw new ModelError(`${where} answered without any choices: "${snippet()}"`, 'protocol');
  }
  assembler.addCompletion(body, o.emitWhole);
}
