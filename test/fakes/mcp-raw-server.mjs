// An MCP server for tests that writes its JSON-RPC lines by hand, to send what no SDK server would.
// RAW_MCP_MODE: "huge" (echo answers with 20 MB of text, except for {"text":"small"}), "tools" (100,000
// tools), "deep" (a tool whose input schema is nested 5,000 levels), "badnames" (tools Tidy
// cannot offer by their names), "ok".
import { createInterface } from 'node:readline';

const mode = process.env.RAW_MCP_MODE ?? 'ok';
const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const echo = { name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } };

function tools() {
  if (mode === 'badnames') return [echo, { name: '🙂', inputSchema: { type: 'object' } }, { name: 'saveNote', inputSchema: { type: 'object' } }, { name: 'save-note', inputSchema: { type: 'object' } }];
  if (mode === 'tools') return Array.from({ length: 100_000 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } }));
  return [echo];
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
  } else if (m.method === 'tools/list') {
    if (mode === 'deep') {
      // Written by hand: JSON.stringify would recurse 5,000 levels too.
      const open = '{"type":"object","properties":{"a":'.repeat(5000);
      process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":[${JSON.stringify(echo)},{"name":"deep","inputSchema":${open}{"type":"string"}${'}}'.repeat(5000)}]}}\n`);
    } else send({ jsonrpc: '2.0', id: m.id, result: { tools: tools() } });
  } else if (m.method === 'tools/call') {
    const text = m.params?.arguments?.text ?? '';
    if (mode === 'huge' && text !== 'small') {
      // Streamed in parts, as a real server's pipe would carry it.
      process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"text","text":"`);
      for (let i = 0; i < 20; i++) process.stdout.write('x'.repeat(1_000_000));
      process.stdout.write('"}]}}\n');
    } else send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: text.toUpperCase() }] } });
  } else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});
