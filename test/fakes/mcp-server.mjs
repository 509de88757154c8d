// A tiny MCP server for tests, on stdio, built with the official SDK. Its behaviour is chosen by
// FAKE_MCP_MODE: "ok" (tools echo and note), "crash" (exits on the first call), "hang" (never answers a
// call), "hang-start" (never answers initialize), "many" (2,000 tools and bad names), "giant" (a 1 MB result).
// FAKE_MCP_ENV_OUT, when set, is a file the server writes its environment to (to check what it was given).
import { writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const mode = process.env.FAKE_MCP_MODE ?? 'ok';
if (process.env.FAKE_MCP_ENV_OUT) writeFileSync(process.env.FAKE_MCP_ENV_OUT, JSON.stringify({ pid: process.pid, env: process.env }));
if (mode === 'hang-start') {
  process.stdin.resume(); // reads, never answers
} else {
  const server = new McpServer({ name: 'fake', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Echo the text back, upper-cased.', inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } },
    async ({ text }) => {
      if (mode === 'crash') process.exit(3);
      if (mode === 'hang') await new Promise(() => {});
      if (mode === 'giant') return { content: [{ type: 'text', text: 'x'.repeat(1_000_000) }] };
      return { content: [{ type: 'text', text: text.toUpperCase() }] };
    },
  );
  server.registerTool(
    'saveNote',
    { description: 'Save a note somewhere outside Tidy.', inputSchema: z.object({ note: z.string() }) },
    async ({ note }) => ({ content: [{ type: 'text', text: `saved: ${note}` }] }),
  );
  if (mode === 'many') {
    for (let i = 0; i < 2000; i++) server.registerTool(`t${i}`, { description: 'd'.repeat(2000) }, async () => ({ content: [] }));
    server.registerTool('🙂', { description: 'no usable name' }, async () => ({ content: [] }));
    server.registerTool('save-note', { description: 'collides with saveNote once named' }, async () => ({ content: [] }));
  }
  await server.connect(new StdioServerTransport());
}
