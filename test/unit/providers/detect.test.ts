// First run: which local servers answer, and which models an endpoint lists. Every server here is a
// real HTTP server on 127.0.0.1 (a random port), so the probe, its timeout and its parsing are the real ones.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILES } from '../../../src-shared/providers';
import { detectLocalServers, listModels, localCandidates } from '../../../src-main/core';

const servers: Server[] = [];

/** A server on a free loopback port; returns its /v1 base URL. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: IncomingMessage[] }> {
  const hits: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    hits.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits };
}

const json = (body: unknown, status = 200) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const models = (...ids: string[]) => json({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) });

/** A port nothing listens on: a server opened and closed again. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

describe('detecting local model servers', () => {
  it('finds the servers that answer a model list, in preset order, with their models and the profile that points there', async () => {
    const ollama = await serve(models('qwen3:8b', 'llama3.2:latest'));
    const llamacpp = await serve(models('model.gguf'));
    const lmstudio = await closedPort();
    const found = await detectLocalServers({
      candidates: [
        { preset: 'ollama', baseUrl: ollama.url },
        { preset: 'lmstudio', baseUrl: lmstudio },
        { preset: 'llamacpp', baseUrl: `${llamacpp.url}/` },
      ],
      profiles: [...DEFAULT_PROFILES, { id: 'big', preset: 'llamacpp', baseUrl: llamacpp.url, model: 'x' }],
    });
    expect(found).toEqual([
      { preset: 'ollama', label: 'Ollama', baseUrl: ollama.url, models: ['llama3.2:latest', 'qwen3:8b'], modelCount: 2, profile: 'ollama' },
      // The profile already at that address wins over the preset's own (which points at port 8080).
      { preset: 'llamacpp', label: 'llama.cpp server', baseUrl: llamacpp.url, models: ['model.gguf'], modelCount: 1, profile: 'big' },
    ]);
    // GET /models, without any key.
    expect(ollama.hits.map((h) => [h.method, h.url, h.headers.authorization, h.headers['api-key']])).toEqual([['GET', '/v1/models', undefined, undefined]]);
  });

  it('does not report what is not a model server: a web page, an error, malformed JSON, JSON without a list', async () => {
    const candidates = await Promise.all(
      [
        (_req: IncomingMessage, res: ServerResponse) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end('<!doctype html><title>router</title>')),
        json({ error: 'not found' }, 404),
        (_req: IncomingMessage, res: ServerResponse) => (res.writeHead(200, { 'content-type': 'application/json' }), res.end('{"data": [')),
        json({ models: ['a'] }),
      ].map(async (h) => ({ preset: 'llamacpp' as const, baseUrl: (await serve(h)).url })),
    );
    expect(await detectLocalServers({ candidates })).toEqual([]);
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const silent = await serve(() => {
      /* never answers */
    });
    const started = performance.now();
    expect(await detectLocalServers({ candidates: [{ preset: 'ollama', baseUrl: silent.url }], timeoutMs: 300 })).toEqual([]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3000);
  });

  it('keeps a huge model list to 200 sorted ids and skips entries without a string id', async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `m${String(i).padStart(5, '0')}`);
    const big = await serve(json({ data: [...ids.map((id) => ({ id })), { id: 7 }, null, 'x', { id: { nested: true } }] }));
    const [server] = await detectLocalServers({ candidates: [{ preset: 'lmstudio', baseUrl: big.url }] });
    expect(server?.modelCount).toBe(5000);
    expect(server?.models).toHaveLength(200);
    expect(server?.models[0]).toBe('m00000');
  });

  it('looks where OLLAMA_HOST says, on this machine only', () => {
    const ollama = (env: Record<string, string>) => localCandidates(env).find((c) => c.preset === 'ollama')?.baseUrl;
    expect(localCandidates({}).map((c) => c.baseUrl)).toEqual(['http://127.0.0.1:11434/v1', 'http://127.0.0.1:1234/v1', 'http://127.0.0.1:8080/v1']);
    expect(ollama({ OLLAMA_HOST: '127.0.0.1:11500' })).toBe('http://127.0.0.1:11500/v1');
    expect(ollama({ OLLAMA_HOST: '0.0.0.0' })).toBe('http://127.0.0.1:11434/v1');
    expect(ollama({ OLLAMA_HOST: 'http://localhost:9000' })).toBe('http://localhost:9000/v1');
    // Another machine, or something unreadable: the default address.
    expect(ollama({ OLLAMA_HOST: 'gpu-box.example:11434' })).toBe('http://127.0.0.1:11434/v1');
    expect(ollama({ OLLAMA_HOST: 'http://127.0.0.1\n.evil.example' })).toBe('http://127.0.0.1:11434/v1');
    expect(ollama({ OLLAMA_HOST: 'x'.repeat(100_000) })).toBe('http://127.0.0.1:11434/v1');
  });
});

describe('listing an endpoint’s models', () => {
  it('lists the models of a URL not saved as a profile, without a key', async () => {
    const s = await serve(models('b-model', 'a-model'));
    const r = await listModels(s.url);
    expect(r).toMatchObject({ ok: true, models: ['a-model', 'b-model'], modelCount: 2, keySource: null });
    expect(s.hits[0]?.headers.authorization).toBeUndefined();
  });

  it('says in one line what is wrong: nothing listening, a bad URL, a web page', async () => {
    expect(await listModels(await closedPort())).toMatchObject({ ok: false, problem: 'refused', message: expect.stringMatching(/^nothing is listening at 127\.0\.0\.1:\d+/) });
    expect(await listModels('ftp://example.com')).toMatchObject({ ok: false, problem: 'bad_url' });
    expect(await listModels(`http://127.0.0.1:1/v1\r\nX-Injected: 1`)).toMatchObject({ ok: false, problem: 'bad_url' });
    const page = await serve((_req, res) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end('<html></html>')));
    expect(await listModels(page.url)).toMatchObject({ ok: false, problem: 'not_openai' });
  });
});
