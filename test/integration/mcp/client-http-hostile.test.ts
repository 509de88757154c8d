// MCP servers over HTTP sending what no well-behaved server would (issue 28 item 11, the HTTP side): answers
// are read within the stdio transport's bounds (8 MiB, 64 levels, 200,000 values), as JSON bodies and as SSE
// events, and what is over them becomes the error of the call it answers; the connection stays.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServers, inspectServer } from '../../../src-main/core/mcp/client';
import type { ToolContext } from '../../../src-main/core/tools/tool';

type Answer = 'json' | 'sse';

/** A raw streamable-HTTP MCP server: JSON or SSE answers, and tools/call results that are too big, deep or many. */
function rawServer(answer: Answer, listing: 'ok' | 'deep' = 'ok'): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number | string; method: string; params?: Record<string, unknown> };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      let result: string;
      const wrap = (r: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${r}}`;
      if (msg.method === 'initialize') result = wrap(JSON.stringify({ protocolVersion: msg.params?.['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'raw-http', version: '1' } }));
      else if (msg.method === 'tools/list') {
        const schema = listing === 'deep' ? `${'{"type":"object","properties":{"a":'.repeat(2500)}{}${'}}'.repeat(2500)}` : '{"type":"object","properties":{"text":{"type":"string"}}}';
        result = wrap(`{"tools":[{"name":"echo","inputSchema":${schema},"annotations":{"readOnlyHint":true}}]}`);
      } else if (msg.method === 'tools/call') {
        const text = String((msg.params?.['arguments'] as { text?: string } | undefined)?.text ?? '');
        const content = (t: string) => `{"content":[{"type":"text","text":${JSON.stringify(t)}}]}`;
        if (text === 'big') result = wrap(content('x'.repeat(20 * 1024 * 1024)));
        else if (text === 'deep') result = wrap(`{"content":[],"structuredContent":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
        else if (text === 'many') result = wrap(`{"content":[],"structuredContent":{"a":[${Array.from({ length: 250_000 }, () => '0').join(',')}]}}`);
        else if (text === 'pretty') result = JSON.stringify(JSON.parse(wrap(content('PRETTY'))), null, 2);
        else result = wrap(content(text.toUpperCase()));
      } else result = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"no such method"}}`;
      if (answer === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end(result);
      else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': a comment line\n\nid: 7\n');
        // Multi-line data, as SSE allows: the lines join into one message (a one-line message is cut in two).
        const cut = result.indexOf(',');
        const lines = result.includes('\n') ? result.split('\n') : [result.slice(0, cut + 1), result.slice(cut + 1)];
        res.end(`event: message\r\n${lines.map((l) => `data: ${l}\n`).join('')}\n`);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise<void>((r) => server.close(() => r())) });
    }),
  );
}

const options = { connectTimeoutMs: 20_000, callTimeoutMs: 30_000 };
const ctx = { signal: new AbortController().signal } as unknown as ToolContext;

for (const answer of ['json', 'sse'] as const) {
  describe(`HTTP MCP servers that send too much (${answer} answers)`, () => {
    let srv: { url: string; close: () => Promise<void> };
    beforeAll(async () => {
      srv = await rawServer(answer);
    });
    afterAll(() => srv.close());

    it('a 20 MB result, a 5,000-deep one and one of 250,000 values each become an error naming it; the connection stays', { timeout: 120_000 }, async () => {
      const problems: string[] = [];
      const conn = await connectMcpServers({ raw: { url: srv.url, enabled: true } }, { ...options, onProblem: (l) => problems.push(l) });
      try {
        expect(conn.problems).toEqual([]);
        const echo = conn.tools.find((t) => t.name === 'raw__echo')!;
        expect(await echo.run({ text: 'small' }, ctx)).toMatchObject({ ok: true, value: { result: 'SMALL' } });
        expect(await echo.run({ text: 'pretty' }, ctx)).toMatchObject({ ok: true, value: { result: 'PRETTY' } });
        expect(await echo.run({ text: 'big' }, ctx)).toMatchObject({ ok: false, error: expect.stringMatching(/the MCP server raw failed: .*a message of 20\.0 MiB is over the 8\.0 MiB limit/) });
        expect(await echo.run({ text: 'deep' }, ctx)).toMatchObject({ ok: false, error: expect.stringMatching(/nested more than 64 levels/) });
        expect(await echo.run({ text: 'many' }, ctx)).toMatchObject({ ok: false, error: expect.stringMatching(/more than 200,000 values/) });
        expect(await echo.run({ text: 'again' }, ctx)).toMatchObject({ ok: true, value: { result: 'AGAIN' } });
        expect(problems).toEqual([]);
      } finally {
        await conn.close();
      }
    });
  });
}

describe('an HTTP MCP server whose tool list is too deep', () => {
  it('is left out with one line, and inspecting it says why', { timeout: 60_000 }, async () => {
    const srv = await rawServer('json', 'deep');
    try {
      const conn = await connectMcpServers({ deep: { url: srv.url, enabled: true } }, options);
      expect(conn.tools).toEqual([]);
      expect(conn.problems).toHaveLength(1);
      expect(conn.problems[0]).toMatch(/^the MCP server deep is left out of this run: .*nested more than 64 levels/);
      await conn.close();
      await expect(inspectServer('deep', { url: srv.url, enabled: true }, options)).rejects.toThrow(/nested more than 64 levels/);
    } finally {
      await srv.close();
    }
  });
});
