// The bounded line reader under `tidy mcp` and under the MCP servers Tidy starts.
import { describe, expect, it } from 'vitest';
import { idFromEdges, JsonLineReader, nestingOver, type JsonLineEvent } from '../../../src-main/core/mcp/jsonl';
import { McpServerConfig, mcpUrlProblem, normaliseServerName } from '../../../src-shared/mcp';

const limits = { maxLineBytes: 1024, maxDepth: 8, maxValues: 50 };
const feed = (r: JsonLineReader, ...chunks: string[]): JsonLineEvent[] => chunks.flatMap((c) => r.push(Buffer.from(c)));

describe('JsonLineReader', () => {
  it('splits lines across chunks, skips blank ones and takes CRLF', () => {
    const r = new JsonLineReader(limits);
    expect(feed(r, '{"a":', '1}\r\n\n  \n[1,', '2]\n{"b"')).toEqual([
      { kind: 'value', value: { a: 1 } },
      { kind: 'value', value: [1, 2] },
    ]);
    expect(feed(r, ':2}\n')).toEqual([{ kind: 'value', value: { b: 2 } }]);
  });

  it('skips a line over the limit as it streams in, holding only its edges, and reads its id', () => {
    const r = new JsonLineReader(limits);
    const events = feed(r, '{"jsonrpc":"2.0","id":7,"method":"x","params":{"t":"', ...Array.from({ length: 100 }, () => 'y'.repeat(1000)), '"}}\n{"ok":true}\n');
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ kind: 'bad', code: -32600, id: 7, problem: expect.stringMatching(/^a message of 97\.7 KiB is over the 1\.0 KiB limit/) });
    expect(events[1]).toEqual({ kind: 'value', value: { ok: true } });
    // Nothing of the skipped line is held.
    expect((r as unknown as { parts: Buffer[] }).parts).toEqual([]);
  });

  it('refuses deep nesting before parsing, too many values after, and bad JSON with -32700', () => {
    const r = new JsonLineReader(limits);
    const [deep, many, bad] = feed(r, `{"id":"d","p":${'['.repeat(20)}${']'.repeat(20)}}\n`, `{"id":3,"p":[${Array(60).fill(0).join(',')}]}\n`, '{"id":4,\n');
    expect(deep).toMatchObject({ kind: 'bad', code: -32600, id: 'd', problem: expect.stringContaining('more than 8 levels') });
    expect(many).toMatchObject({ kind: 'bad', code: -32600, id: 3, problem: expect.stringContaining('more than 50 values') });
    expect(bad).toMatchObject({ kind: 'bad', code: -32700, id: null });
  });

  it('counts nesting outside strings only, and finds ids only among the top-level members', () => {
    expect(nestingOver('{"a":"[[[[[[[[[[[[[[["}', 2)).toBe(false);
    expect(nestingOver('{"a":"\\"[[[[","b":[[1]]}', 2)).toBe(true);
    expect(idFromEdges('{"jsonrpc":"2.0","id":"abc","result":', '')).toBe('abc');
    expect(idFromEdges('{"result":{"id":5', 'x"}]},"jsonrpc":"2.0","id":12}')).toBe(12);
    expect(idFromEdges('{"params":{"id":5', 'xxxx}}')).toBeNull();
  });
});

describe('MCP server names and URLs', () => {
  it('normalises typed names instead of refusing them', () => {
    expect(normaliseServerName('My Notes')).toBe('my_notes');
    expect(normaliseServerName('GitHub-Issues')).toBe('git_hub_issues');
    expect(normaliseServerName('Café  Ünïcode!!')).toBe('cafe_unicode');
    expect(normaliseServerName('2fa')).toBe('mcp_2fa');
    expect(normaliseServerName('a'.repeat(100))).toBe('a'.repeat(24));
    expect(normaliseServerName('🙂 ')).toBeNull();
    expect(normaliseServerName('a__b')).toBe('a_b');
  });

  it('names what is wrong with a URL, and reads a stored one with CR/LF as the URL parser does', () => {
    expect(mcpUrlProblem('http://localhost:70000/mcp')).toBe('its port 70000 is over 65535');
    expect(mcpUrlProblem('http://[::1]:99999/')).toBe('its port 99999 is over 65535');
    expect(mcpUrlProblem('ftp://x/')).toBe('must be an http(s) URL');
    expect(mcpUrlProblem('http://u:p@x/')).toBe('must not hold a user name or password');
    expect(mcpUrlProblem('http://localhost:8080/mcp')).toBeNull();
    const stored = McpServerConfig.parse({ url: 'http://localhost:8080/m\r\ncp\r\nX-Injected: 1' });
    expect(stored).toEqual({ url: 'http://localhost:8080/mcpX-Injected:%201', enabled: true });
  });
});
