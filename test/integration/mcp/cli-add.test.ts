// `tidy mcp add|list|enable` with what a user (or a paste) may type: one clear line for each mistake.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, readSettings, writeSetting } from '../../../src-main/core';
import { tidy } from '../../support/cli';
import { tempDir } from '../../support/db';

const RAW = join(import.meta.dirname, '..', '..', 'fakes', 'mcp-raw-server.mjs');
const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

describe('tidy mcp add', () => {
  it('refuses a bad --env name, a port over 65535 and a URL with CR/LF in one line each, and stores nothing', { timeout: 90_000 }, () => {
    const db = join(tempDir(), 'tidy.db');
    const env = tidy(db, ['mcp', 'add', 'notes', '--env', 'A B=1', '--', 'notes-server']);
    expect(env.code).toBe(2);
    expect(lines(env.stderr)[0]).toMatch(/--env "A B": an environment variable name is letters, digits and _/);
    const port = tidy(db, ['mcp', 'add', 'web', '--url', 'http://localhost:70000/mcp']);
    expect(port.code).toBe(2);
    expect(lines(port.stderr)[0]).toMatch(/the URL http:\/\/localhost:70000\/mcp its port 70000 is over 65535/);
    const crlf = tidy(db, ['mcp', 'add', 'web', '--url', 'http://localhost:8080/mcp\r\nX-Evil: 1']);
    expect(crlf.code).toBe(2);
    expect(lines(crlf.stderr)[0]).toMatch(/the URL holds a line break or a tab/);
    for (const r of [env, port, crlf]) expect(lines(r.stderr).length).toBeLessThanOrEqual(2);
    expect(JSON.parse(tidy(db, ['mcp', 'list', '--json']).stdout)).toEqual([]);
  });

  it('normalises a typed name, and refuses the 21st server in one line', { timeout: 90_000 }, () => {
    const db = join(tempDir(), 'tidy.db');
    const named = tidy(db, ['mcp', 'add', 'My Notes', '--', 'notes-server', '--dir', '/tmp']);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('Named it my_notes');
    expect(tidy(db, ['mcp', 'disable', 'My Notes']).stdout).toContain('The MCP server my_notes is off.');
    const raw = openDatabase(db);
    try {
      const more = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`s${i + 2}`, { command: 'srv' }]));
      expect(writeSetting(raw, 'mcpServers', { ...readSettings(raw).mcpServers, ...more }).ok).toBe(true);
    } finally {
      raw.close();
    }
    const over = tidy(db, ['mcp', 'add', 's21', '--', 'srv']);
    expect(over.code).not.toBe(0);
    expect(lines(over.stderr)[0]).toMatch(/there are already 20 MCP servers, the most Tidy starts/);
    expect(over.stderr.length).toBeLessThan(300);
    // Replacing one of the 20 is still fine.
    expect(tidy(db, ['mcp', 'add', 's20', '--', 'other']).code).toBe(0);
  });

  it('list --tools says which tools are not offered and why', { timeout: 90_000 }, () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['mcp', 'add', 'raw', '--env', 'RAW_MCP_MODE=badnames', '--', process.execPath, RAW]).code).toBe(0);
    const listed = tidy(db, ['mcp', 'list', '--tools']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('raw__echo');
    expect(listed.stdout).toMatch(/not offered: raw: a tool named "🙂" has no usable name; left out/);
    expect(listed.stdout).toMatch(/not offered: raw: two tools are both named raw__save_note; the second is left out/);
    const json = JSON.parse(tidy(db, ['mcp', 'list', '--tools', '--json']).stdout) as { notOffered: string[] }[];
    expect(json[0]!.notOffered).toHaveLength(2);
  });
});
