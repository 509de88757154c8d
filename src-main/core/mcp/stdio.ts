/**
 * The stdio wire of `tidy mcp`: newline-delimited JSON-RPC on stdin/stdout, read within bounds
 * (jsonl.ts). Whatever a client sends, the server keeps serving, and every message it cannot take is
 * answered with the JSON-RPC error the spec names and costs one line on stderr:
 *
 * - a line over 8 MiB: skipped as it streams in (never held whole), -32600;
 * - not JSON: -32700; nested more than 64 levels or holding more than 200,000 values: -32600;
 * - a batch (array), a bare value, `"jsonrpc"` other than "2.0", a malformed request: -32600;
 * - any request but `initialize` (or `ping`, answered here) before the connection opened (a 2026-era
 *   request carrying its protocol version in `_meta` opens it by itself): -32600.
 *
 * Handed to the SDK's serveStdio as its transport, which does the rest.
 */
import { parseJSONRPCMessage, PROTOCOL_VERSION_META_KEY, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import type { Readable, Writable } from 'node:stream';
import { idOf, INVALID_REQUEST, JSONL_LIMITS, JsonLineReader, type JsonLineLimits, type JsonRpcId } from './jsonl';

export interface BoundedStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  limits?: JsonLineLimits;
  /** One line per message refused (for stderr). */
  log?: (line: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a message opens the connection: `initialize`, or a 2026-era message carrying its protocol version. */
function opens(message: Record<string, unknown>): boolean {
  if (message['method'] === 'initialize') return true;
  const params = message['params'];
  return isObject(params) && isObject(params['_meta']) && PROTOCOL_VERSION_META_KEY in params['_meta'];
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly reader: JsonLineReader;
  private readonly log: (line: string) => void;
  private opened = false;
  private closed = false;
  /** Messages refused so far (for tests and the session's last line). */
  refused = 0;

  constructor(o: BoundedStdioOptions = {}) {
    this.stdin = o.stdin ?? process.stdin;
    this.stdout = o.stdout ?? process.stdout;
    this.reader = new JsonLineReader(o.limits ?? JSONL_LIMITS);
    this.log = o.log ?? (() => {});
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const events = this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const e of events) {
      if (this.closed) return;
      if (e.kind === 'bad') this.refuse(e.code, e.id, e.problem);
      else this.accept(e.value);
    }
  };
  private readonly onEnd = (): void => {
    void this.close();
  };
  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private accept(value: unknown): void {
    if (Array.isArray(value)) return this.refuse(INVALID_REQUEST, null, `a batch of ${value.length} messages was refused (MCP sends one message per line)`);
    if (!isObject(value)) return this.refuse(INVALID_REQUEST, null, `a bare ${value === null ? 'null' : typeof value} is not a JSON-RPC message`);
    const id = idOf(value);
    if (value['jsonrpc'] !== '2.0') return this.refuse(INVALID_REQUEST, id, `a message with "jsonrpc": ${JSON.stringify(value['jsonrpc'] ?? null).slice(0, 20)} was refused (only "2.0" is spoken)`);
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      return this.refuse(INVALID_REQUEST, id, 'a message that is neither a request, a notification nor a response was refused');
    }
    const method = typeof value['method'] === 'string' ? value['method'].slice(0, 60) : null;
    if (!this.opened) {
      // The one request the spec allows before initialize, answered here so it pins no protocol era.
      if (method === 'ping' && id !== null) return void this.send({ jsonrpc: '2.0', id, result: {} } as unknown as JSONRPCMessage).catch(() => {});
      if (method !== null && opens(value)) this.opened = true;
      else if ('id' in value && method !== null) return this.refuse(INVALID_REQUEST, id, `${JSON.stringify(method)} before initialize was refused`);
      else {
        this.refused++;
        this.log(`ignored ${method ? `the notification ${JSON.stringify(method)}` : 'a response'} before initialize`);
        return;
      }
    }
    this.onmessage?.(message);
  }

  private refuse(code: number, id: JsonRpcId, problem: string): void {
    this.refused++;
    this.log(`${problem} (JSON-RPC error ${code})`);
    void this.send({ jsonrpc: '2.0', id, error: { code, message: `${code === INVALID_REQUEST ? 'Invalid Request' : 'Parse error'}: ${problem}` } } as unknown as JSONRPCMessage).catch(() => {});
  }

  start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStreamError);
    this.stdout.on('error', this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stdio connection is closed'));
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(`${JSON.stringify(message)}\n`, (error) => {
        if (error) reject(error);
      });
      if (ok) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.off('error', this.onStreamError);
    this.stdin.pause();
    this.reader.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
