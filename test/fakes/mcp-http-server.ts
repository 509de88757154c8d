/**
 * A tiny streamable-HTTP MCP server for tests, built with the official SDK (stateless: a server and a
 * transport per request), on a free loopback port. `mode` picks its behaviour:
 * - "ok": the tools echo (read-only, upper-cases) and saveNote;
 * - "redirect": every request is redirected to `redirectTo` (another origin);
 * - "error": every request gets HTTP 500;
 * - "hang": requests are accepted and never answered.
 * Every request's method, path and headers are recorded, to check what Tidy sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';

export type FakeMcpHttpMode = 'ok' | 'redirect' | 'error' | 'hang';

export interface FakeMcpHttp {
  url: string;
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  /** Calls of saveNote, by note. */
  notes: string[];
  close(): Promise<void>;
}

function mcpServer(notes: string[]): McpServer {
  const server = new McpServer({ name: 'fake-http', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echo the text back, upper-cased.', inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } }, async ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  server.registerTool('saveNote', { description: 'Save a note somewhere outside Tidy.', inputSchema: z.object({ note: z.string() }) }, async ({ note }) => {
    notes.push(note);
    return { content: [{ type: 'text', text: `saved: ${note}` }] };
  });
  return server;
}

export async function startFakeMcpHttp(mode: FakeMcpHttpMode = 'ok', { redirectTo = 'http://127.0.0.1:9/mcp' } = {}): Promise<FakeMcpHttp> {
  const requests: FakeMcpHttp['requests'] = [];
  const notes: string[] = [];
  const hanging = new Set<() => void>();
  const http: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    if (mode === 'hang') {
      hanging.add(() => res.destroy());
      return;
    }
    if (mode === 'redirect') {
      res.writeHead(307, { location: redirectTo }).end();
      return;
    }
    if (mode === 'error') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, ...(body.length ? { body } : {}) });
        const server = mcpServer(notes);
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        const response = await transport.handleRequest(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
        await server.close();
      })().catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    notes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const end of hanging) end();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
