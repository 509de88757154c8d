// A server that fails to start is switched off after three runs in a row, with one notice.
import { describe, expect, it } from 'vitest';
import { readSettings, writeSetting } from '../../../src-main/core';
import { connectMcpServers } from '../../../src-main/core/mcp/client';
import { noteMcpStarts } from '../../../src-main/core/mcp/health';
import { tempDb } from '../../support/db';

describe('MCP servers that keep failing to start', () => {
  it('is switched off after 3 consecutive failures with one notice; a success in between clears the count', async () => {
    const { db } = tempDb();
    expect(writeSetting(db, 'mcpServers', { broken: { command: '/nonexistent/mcp-server' }, other: { command: '/nonexistent/other' } }).ok).toBe(true);
    const conn = await connectMcpServers(readSettings(db).mcpServers, { connectTimeoutMs: 10_000 });
    expect(conn.started).toEqual({ broken: false, other: false });
    expect(noteMcpStarts(db, { broken: false, other: false })).toEqual([]);
    expect(noteMcpStarts(db, { broken: false, other: true })).toEqual([]);
    expect(readSettings(db).mcpServers['other']).not.toHaveProperty('failures');
    const notices = noteMcpStarts(db, { broken: false, other: false });
    expect(notices).toEqual(['the MCP server broken failed to start 3 times in a row and is now switched off; when it is fixed: tidy mcp enable broken']);
    const after = readSettings(db).mcpServers;
    expect(after['broken']).toMatchObject({ enabled: false });
    expect(after['broken']).not.toHaveProperty('failures');
    expect(after['other']).toMatchObject({ enabled: true, failures: 1 });
    // Switched off, it is not started again, so no more lines.
    expect(noteMcpStarts(db, { broken: false })).toEqual([]);
  });
});
