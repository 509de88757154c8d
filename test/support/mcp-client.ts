/**
 * A test's MCP client of `tidy mcp`: the MCP SDK's own client over stdio, on the real `tidy` command and a
 * database of the test's. Closed when the test finishes. Used by test/integration/mcp/server.test.ts and
 * hostile.test.ts.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { onTestFinished } from 'vitest';
import { TIDY_BIN } from './cli';

export interface McpClientOptions {
  /** Declares the elicitation capability and answers each question: true accepts (approve), false declines. */
  elicit?: (message: string) => boolean;
  /** The client's version in its clientInfo. */
  version?: string;
}

export interface OpenedMcp {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr: () => string;
}

/** Starts `tidy --db <db> mcp` and connects to it as the client `name`. */
export async function connectTidyMcp(db: string, name: string, { elicit, version = '9.9' }: McpClientOptions = {}): Promise<OpenedMcp> {
  const client = new Client({ name, version }, elicit ? { capabilities: { elicitation: {} } } : {});
  if (elicit) {
    client.setRequestHandler('elicitation/create', (req) => {
      const message = (req.params as { message: string }).message;
      return Promise.resolve(elicit(message) ? { action: 'accept' as const, content: { approve: true } } : { action: 'decline' as const });
    });
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [TIDY_BIN, '--db', db, 'mcp'], stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, stderr: () => err };
}
