/**
 * Newline-delimited JSON-RPC as MCP's stdio binding carries it, read within bounds. Used both ways:
 * `tidy mcp` reading a client's messages (stdio.ts) and Tidy reading the answers of the MCP servers it
 * starts (client.ts).
 *
 * A line is split out of the stream as it arrives: a line longer than `maxLineBytes` is never held whole
 * (its bytes are counted and dropped as they stream in; only its first and last few hundred bytes are
 * kept to find its id), and a line nested deeper than `maxDepth` is refused before JSON.parse sees it.
 * Every bad line becomes one event naming what was wrong, with the JSON-RPC error code the spec gives it
 * (-32700 parse error, -32600 invalid request) and the id when it can be read, so the other side can be
 * answered instead of left waiting.
 */
import { inputShapeProblem } from '../../../src-shared/bounds';

export interface JsonLineLimits {
  /** Bytes in one line (one message). */
  maxLineBytes: number;
  /** Levels of arrays and objects inside one another (the message itself is level 1). */
  maxDepth: number;
  /** Values in one message: objects, arrays (with their length) and primitives. */
  maxValues: number;
}

const MiB = 1024 * 1024;

/** What `tidy mcp` accepts from a client and Tidy accepts from an MCP server's answer. */
export const JSONL_LIMITS: JsonLineLimits = { maxLineBytes: 8 * MiB, maxDepth: 64, maxValues: 200_000 };

const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export type JsonRpcId = string | number | null;

export type JsonLineEvent =
  | { kind: 'value'; value: unknown }
  | { kind: 'bad'; code: typeof PARSE_ERROR | typeof INVALID_REQUEST; id: JsonRpcId; problem: string };

/** Bytes kept from each end of a line that is too long, to read its id from. */
const EDGE = 512;

/** A byte count in words: "20.0 MB" style (MiB), or bytes below one. */
function sizeInWords(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** A JSON-RPC id as the spec allows it (string or number), or null. */
export function idOf(value: unknown): JsonRpcId {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>)['id'];
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * The id of a message seen only in part (its start or its end), when it stands among the top-level
 * members there: `{"jsonrpc":"2.0","id":7,…` or `…,"jsonrpc":"2.0","id":7}`. Null when unsure.
 */
export function idFromEdges(head: string, tail: string): JsonRpcId {
  const value = String.raw`(-?\d{1,15}|"[^"\\]{0,200}")`;
  const simple = String.raw`\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,200}"\s*,`;
  const atHead = new RegExp(String.raw`^\s*\{(?:${simple}){0,2}\s*"id"\s*:\s*${value}\s*[,}]`).exec(head);
  const atTail = new RegExp(String.raw`,\s*"id"\s*:\s*${value}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`).exec(tail);
  const raw = atHead?.[1] ?? atTail?.[1];
  if (raw === undefined) return null;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}

/** How deeply `text` nests arrays and objects, stopping as soon as it passes `limit` (strings are skipped over). */
export function nestingOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Splits a byte stream into JSON values, one per line, within `limits`. */
export class JsonLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while a line over the limit streams past: its size so far and its two edges. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(private readonly limits: JsonLineLimits = JSONL_LIMITS) {}

  /** Takes the next chunk and returns the events of the lines it completed. */
  push(chunk: Buffer): JsonLineEvent[] {
    const events: JsonLineEvent[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) break;
      const event = this.endLine();
      if (event) events.push(event);
      start = nl + 1;
    }
    return events;
  }

  /** Drops a partial line (the stream ended or was reset). */
  clear(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = null;
  }

  private take(segment: Buffer): void {
    if (segment.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += segment.length;
      this.skipping.tail = Buffer.concat([this.skipping.tail, segment]).subarray(-EDGE);
      return;
    }
    if (this.size + segment.length > this.limits.maxLineBytes) {
      const held = Buffer.concat([...this.parts, segment.subarray(0, EDGE)]);
      this.skipping = {
        bytes: this.size + segment.length,
        head: held.subarray(0, EDGE),
        tail: Buffer.concat([held.subarray(-EDGE), segment.subarray(-EDGE)]).subarray(-EDGE),
      };
      this.parts = [];
      this.size = 0;
      return;
    }
    // Copied: the chunk's buffer may be reused by the stream.
    this.parts.push(Buffer.from(segment));
    this.size += segment.length;
  }

  private endLine(): JsonLineEvent | null {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = null;
      return {
        kind: 'bad',
        code: INVALID_REQUEST,
        id: idFromEdges(head.toString('utf8'), tail.toString('utf8')),
        problem: `a message of ${sizeInWords(bytes)} is over the ${sizeInWords(this.limits.maxLineBytes)} limit; it was skipped`,
      };
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return null;
    if (nestingOver(text, this.limits.maxDepth)) {
      return { kind: 'bad', code: INVALID_REQUEST, id: idFromEdges(text.slice(0, EDGE), text.slice(-EDGE)), problem: `a message nested more than ${this.limits.maxDepth} levels deep was refused` };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'bad', code: PARSE_ERROR, id: null, problem: `a message of ${sizeInWords(line.length)} is not valid JSON` };
    }
    const shape = inputShapeProblem(value, { maxDepth: this.limits.maxDepth, maxNodes: this.limits.maxValues, maxChars: Number.MAX_SAFE_INTEGER });
    if (shape) return { kind: 'bad', code: INVALID_REQUEST, id: idOf(value), problem: `a message was refused: ${shape}` };
    return { kind: 'value', value };
  }
}
