// MCP servers Tidy uses, sending what no well-behaved server would (issue 28 item 11): answers are read
// within bounds (8 MiB, 64 levels, 200,000 values), and what is over them becomes one line naming it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectMcpServers, inspectServer } from '../../../src-main/core/mcp/client';
import type { ToolContext } from '../../../src-main/core/tools/tool';

const RAW = join(import.meta.dirname, '..', '..', 'fakes', 'mcp-raw-server.mjs');
const server = (mode: string) => ({ command: process.execPath, args: [RAW], env: { RAW_MCP_MODE: mode }, enabled: true });
const options = { connectTimeoutMs: 20_000, callTimeoutMs: 30_000 };

describe('MCP servers that send too much', () => {
  it('a 20 MB result becomes an error naming its size, and the connection stays', { timeout: 90_000 }, async () => {
    const problems: string[] = [];
    const conn = await connectMcpServers({ huge: server('huge') }, { ...options, onProblem: (l) => problems.push(l) });
    try {
      expect(conn.problems).toEqual([]);
      const echo = conn.tools.find((t) => t.name === 'huge__echo')!;
      const ctx = { signal: new AbortController().signal } as unknown as ToolContext;
      const big = await echo.run({ text: 'big' }, ctx);
      expect(big).toMatchObject({ ok: false, error: expect.stringMatching(/the MCP server huge failed: .*a message of 19\.1 MiB is over the 8\.0 MiB limit/) });
      // The same connection answers the next call.
      expect(await echo.run({ text: 'small' }, ctx)).toMatchObject({ ok: true, value: { result: 'SMALL' } });
      expect(problems).toEqual([]);
    } finally {
      await conn.close();
    }
  });

  it('100,000 tools leave that server out with one line', { timeout: 90_000 }, async () => {
    const conn = await connectMcpServers({ many: server('tools'), fine: server('ok') }, options);
    try {
      expect(conn.tools.map((t) => t.name)).toEqual(['fine__echo']);
      expect(conn.problems).toHaveLength(1);
      expect(conn.problems[0]).toMatch(/^the MCP server many is left out of this run: .*more than 200,000 values/);
    } finally {
      await conn.close();
    }
  });

  it('a 5,000-deep schema is refused with a line', { timeout: 90_000 }, async () => {
    const conn = await connectMcpServers({ deep: server('deep') }, options);
    try {
      expect(conn.tools).toEqual([]);
      expect(conn.problems).toHaveLength(1);
      expect(conn.problems[0]).toMatch(/^the MCP server deep is left out of this run: .*nested more than 64 levels/);
    } finally {
      await conn.close();
    }
    await expect(inspectServer('deep', server('deep'), options)).rejects.toThrow(/nested more than 64 levels/);
  });
});
