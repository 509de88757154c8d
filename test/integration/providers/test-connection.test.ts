// "Test connection" against real sockets on 127.0.0.1: the fake OpenAI server, a closed port, servers
// answering HTML, errors, redirects or nothing at all.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionFor, createMemorySecretStore, fitContextToModel, readSettings, setApiKey, testConnection, type Connection } from '../../../src-main/core';
import type { ProviderProfile } from '../../../src-shared/providers';
import { startFakeOpenAI } from '../../fakes/openai-server';
import { tempDb } from '../../support/db';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

/** A loopback server with a handler; records what it was asked. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${port}/v1`, port, seen };
}

const reply = (status: number, body: string, type = 'application/json', headers: Record<string, string> = {}) => (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
};

const custom = (baseUrl: string, model = 'fake-model'): ProviderProfile => ({ id: 'local', preset: 'custom', baseUrl, model });

async function conn(profile: ProviderProfile, key?: string, env: Record<string, string> = {}): Promise<Connection> {
  const secrets = createMemorySecretStore();
  if (key) await setApiKey(profile, key, secrets);
  return connectionFor(profile, { secrets, env });
}

describe('testConnection', () => {
  it('lists the models with the key as bearer token and confirms the configured model; the key is not in the report', async () => {
    const fake = await startFakeOpenAI({ models: ['gpt-4o-mini', 'fake-model', 'text-embedding-3-small'] });
    cleanups.push(() => fake.close());
    const r = await testConnection(await conn(custom(fake.url), 'sk-test-live-1234'));
    expect(r).toMatchObject({
      ok: true,
      problem: null,
      status: 200,
      keySource: 'keychain',
      models: ['fake-model', 'gpt-4o-mini', 'text-embedding-3-small'],
      modelCount: 3,
      modelListed: true,
      warning: null,
      url: `${fake.url}/models`,
    });
    expect(r.message).toBe(`connected to 127.0.0.1:${fake.port}: 3 models listed, 'fake-model' among them`);
    expect(fake.requests.map((q) => [q.method, q.path, q.bearer])).toEqual([['GET', '/v1/models', 'sk-test-live-1234']]);
    expect(JSON.stringify(r)).not.toContain('sk-test-live-1234');
  });

  it('warns when the configured model is not listed (an Ollama tag without :latest counts as listed)', async () => {
    const fake = await startFakeOpenAI({ models: ['llama3.2:latest', 'qwen3:8b'] });
    cleanups.push(() => fake.close());
    const missing = await testConnection(await conn(custom(fake.url, 'mistral')));
    expect(missing).toMatchObject({ ok: true, modelListed: false, keySource: null });
    expect(missing.warning).toBe(
      `the model 'mistral' is not among the 2 models 127.0.0.1:${fake.port} lists (llama3.2:latest, qwen3:8b); set one with: tidy config set model NAME`,
    );
    expect((await testConnection(await conn(custom(fake.url, 'llama3.2')))).modelListed).toBe(true);
    // No key anywhere: no Authorization header at all.
    expect(fake.requests.every((q) => q.authorization === undefined)).toBe(true);
  });

  it('a closed port: nothing is listening, and for a local preset how to start it', async () => {
    const { url } = await serve(reply(200, '{}'));
    await cleanups.pop()!();
    const r = await testConnection(await conn({ id: 'ollama', preset: 'ollama', baseUrl: url, model: 'llama3.2' }));
    expect(r).toMatchObject({ ok: false, problem: 'refused', hint: 'start Ollama (`ollama serve`) or check the port in the base URL' });
    expect(r.message).toMatch(/^nothing is listening at 127\.0\.0\.1:\d+ \(connection refused\)$/);
  });

  it('a web page instead of the API: "answered with HTML", check the base URL ends in /v1', async () => {
    const { url } = await serve(reply(200, '<!DOCTYPE html><html><body>Welcome</body></html>', 'text/html; charset=utf-8'));
    const r = await testConnection(await conn(custom(url.replace(/\/v1$/, ''))));
    expect(r).toMatchObject({ ok: false, problem: 'not_openai', status: 200 });
    expect(r.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/models answered with HTML, not the OpenAI API$/);
    expect(r.hint).toContain('ends in /v1');
  });

  it('404 (with an HTML page), plain text, and JSON that is not a model list', async () => {
    const notFound = await serve(reply(404, '<html><body>Not Found</body></html>', 'text/html'));
    const a = await testConnection(await conn(custom(notFound.url)));
    expect(a).toMatchObject({ ok: false, problem: 'not_found', status: 404 });
    expect(a.message).toContain('answered 404 with a web page: no OpenAI API at this address');

    const text = await serve(reply(200, 'Ollama is running', 'text/plain; charset=utf-8'));
    const b = await testConnection(await conn(custom(text.url)));
    expect(b).toMatchObject({ ok: false, problem: 'not_openai' });
    expect(b.message).toContain('answered with text/plain; charset=utf-8, not JSON');

    const json = await serve(reply(200, '{"status":"ok"}'));
    expect((await testConnection(await conn(custom(json.url)))).message).toContain('answered JSON without a model list');
  });

  it('401: the key was rejected (the server echoing it back is redacted), or a key is needed and none is set', async () => {
    const key = 'sk-wrong-key-987654';
    const server = await serve((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}`, code: 'invalid_api_key' } }));
    });
    const r = await testConnection(await conn(custom(server.url), key));
    expect(r).toMatchObject({ ok: false, problem: 'auth', status: 401, hint: 'store the right key: tidy key set --profile local' });
    expect(r.message).toBe(`127.0.0.1:${server.port} rejected the API key (401: Incorrect API key provided: [redacted])`);
    expect(JSON.stringify(r)).not.toContain(key);

    const none = await testConnection(await conn(custom(server.url)));
    expect(none.message).toContain('requires an API key (401');
    expect(none.message).toContain('none is set for profile local');
  });

  it('403, 429 and 5xx in the provider’s own words', async () => {
    const forbidden = await serve(reply(403, '{"error":{"message":"Project does not have access to model listing"}}'));
    expect((await testConnection(await conn(custom(forbidden.url), 'sk-1234'))).message).toContain('refused access with this key (403: Project does not have access');
    const limited = await serve(reply(429, '{"error":"slow down"}'));
    expect(await testConnection(await conn(custom(limited.url)))).toMatchObject({ problem: 'rate_limit' });
    const broken = await serve(reply(502, 'Bad Gateway', 'text/plain'));
    expect((await testConnection(await conn(custom(broken.url))))).toMatchObject({ problem: 'server', message: `127.0.0.1:${broken.port} failed with 502` });
  });

  it('never follows a redirect with the key', async () => {
    const elsewhere = await serve(reply(200, '{"data":[]}'));
    const redirecting = await serve(reply(307, '', 'text/plain', { location: `${elsewhere.url}/models` }));
    const r = await testConnection(await conn(custom(redirecting.url), 'sk-do-not-forward'));
    expect(r).toMatchObject({ ok: false, problem: 'redirect', status: 307, hint: 'use the address it redirects to as the base URL' });
    expect(elsewhere.seen).toEqual([]);
  });

  it('a server that never answers: a timeout, not a hang', async () => {
    const silent = await serve(() => {});
    const r = await testConnection(await conn(custom(silent.url)), { timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, problem: 'timeout', message: `no answer from 127.0.0.1:${silent.port} within 0.3 s` });
    expect(r.elapsedMs).toBeLessThan(5_000);
  });

  it('a cancelled test says so', async () => {
    const silent = await serve(() => {});
    const ac = new AbortController();
    const p = testConnection(await conn(custom(silent.url)), { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await p).toMatchObject({ ok: false, problem: 'cancelled' });
  });

  it('DNS: a host that does not resolve', async () => {
    const r = await testConnection(await conn(custom('http://no-such-host.invalid/v1')), { timeoutMs: 5_000 });
    expect(r.problem === 'dns' || r.problem === 'timeout').toBe(true);
    if (r.problem === 'dns') expect(r.message).toMatch(/^cannot resolve the host no-such-host\.invalid \(DNS: E[A-Z_]+\)$/);
  });

  it('https to a plain-http server: a TLS failure that suggests http://', async () => {
    const plain = await serve(reply(200, '{"data":[]}'));
    const r = await testConnection(await conn(custom(`https://127.0.0.1:${plain.port}/v1`)));
    expect(r).toMatchObject({ ok: false, problem: 'tls' });
    expect(r.hint).toContain('use http://');
  });

  it('a cloud preset without a key fails before anything is sent', async () => {
    const r = await testConnection(await conn({ id: 'openai', preset: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' }));
    expect(r).toMatchObject({ ok: false, problem: 'no_key', message: 'no API key for profile openai', status: null });
  });

  it('OPENAI_API_KEY from the environment is used and reported as such', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const r = await testConnection(await conn(custom(fake.url), undefined, { OPENAI_API_KEY: 'sk-env-5678' }));
    expect(r).toMatchObject({ ok: true, keySource: 'env' });
    expect(fake.requests[0]?.bearer).toBe('sk-env-5678');
  });

  it('Azure: the key in the api-key header (no bearer), api-version on the query, deployment URLs list at …/openai/models', async () => {
    const server = await serve(reply(200, JSON.stringify({ data: [{ id: 'gpt-4o' }, { id: 'gpt-4o-mini' }] })));
    const base = `http://127.0.0.1:${server.port}`;
    const azure: ProviderProfile = { id: 'az', preset: 'azure', baseUrl: `${base}/openai/deployments/prod-gpt4o`, model: 'prod-gpt4o', apiVersion: '2024-10-21' };
    const r = await testConnection(await conn(azure, 'azure-key-0001'));
    expect(r).toMatchObject({ ok: true, modelListed: null, url: `${base}/openai/models?api-version=2024-10-21` });
    expect(r.message).toContain("Azure lists base models, not deployments: 'prod-gpt4o' is not checked");
    expect(server.seen[0]).toMatchObject({ url: '/openai/models?api-version=2024-10-21' });
    expect(server.seen[0]?.headers['api-key']).toBe('azure-key-0001');
    expect(server.seen[0]?.headers.authorization).toBeUndefined();

    const v1: ProviderProfile = { id: 'az1', preset: 'azure', baseUrl: `${base}/openai/v1`, model: 'prod-gpt4o' };
    expect((await testConnection(await conn(v1, 'azure-key-0001'))).url).toBe(`${base}/openai/v1/models`);
  });
});

describe('testConnection: blocked ports', () => {
  it('says the port is blocked rather than "fetch failed"', async () => {
    const r = await testConnection(await conn(custom('http://127.0.0.1:6000/v1')));
    expect(r).toMatchObject({ ok: false, problem: 'network', message: 'port 6000 is a blocked port for HTTP clients' });
  });
});

describe('testConnection: the URL as stored by hand or by an older version', () => {
  it('an upper-case scheme and host are the same server, and the key is not sent over plain http beyond this machine', async () => {
    const fake = await startFakeOpenAI({ models: ['fake-model'] });
    cleanups.push(() => fake.close());
    const r = await testConnection(await conn(custom(`${fake.url.replace('http://', 'HTTP://')}/`), 'sk-test-live-1234'));
    expect(r).toMatchObject({ ok: true, url: `${fake.url}/models`, keySource: 'keychain' });
    expect(fake.requests[0]?.bearer).toBe('sk-test-live-1234');

    const lan = custom('HTTP://192.0.2.10:8000/v1');
    const secrets = createMemorySecretStore({ local: JSON.stringify({ v: 1, key: 'sk-lan-123456789', origin: 'http://192.0.2.10:8000' }) });
    const refused = await testConnection(connectionFor(lan, { secrets, env: {} }), { timeoutMs: 500 });
    expect(refused).toMatchObject({ ok: false, problem: 'no_key', message: 'refusing to send the API key of profile local over plain http to 192.0.2.10:8000' });
  });

  it('a URL that is not one gets a report that says so, not an exception', async () => {
    for (const bad of ['http://exa mple.com/v1', 'localhost:1234', 'http://127.0.0.1\n.evil.example/v1']) {
      const r = await testConnection(await conn(custom(bad)));
      expect(r).toMatchObject({ ok: false, problem: 'bad_url', hint: 'fix it: tidy config profile edit local --base-url URL' });
      expect(r.message).toMatch(/^the base URL ".*" must (not contain spaces|be an http\(s\) URL)/);
      expect(r.message).not.toMatch(/\n/);
    }
  });
});

describe('testConnection: a local server’s context window', () => {
  /** A local server: /v1/models lists `model`, and `extra` answers the server's own API. */
  async function local(extra: (req: IncomingMessage, res: ServerResponse, body: string) => void, model = 'qwen3:8b') {
    return serve((req, res) => {
      if (req.url === '/v1/models') return reply(200, JSON.stringify({ object: 'list', data: [{ id: model }] }))(req, res);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8').slice(0, 10_000)));
      req.on('end', () => extra(req, res, body));
    });
  }
  const profile = (preset: 'ollama' | 'lmstudio' | 'llamacpp', baseUrl: string, model = 'qwen3:8b'): ProviderProfile => ({ id: preset, preset, baseUrl, model });

  it('Ollama: num_ctx of the model over its own maximum; asked with POST /api/show {model}', async () => {
    let asked = '';
    const withCtx = await local((req, res, body) => {
      asked = `${req.method} ${req.url} ${body}`;
      reply(200, JSON.stringify({ parameters: 'stop "<|im_end|>"\nnum_ctx 8192\ntemperature 0.6', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } }))(req, res);
    });
    const r = await testConnection(await conn(profile('ollama', withCtx.url)));
    expect(asked).toBe('POST /api/show {"model":"qwen3:8b"}');
    expect(r.context).toMatchObject({ tokens: 8192, modelMax: 40960, source: 'the num_ctx of the model', tooSmall: false });
  });

  /** An Ollama whose model sets no num_ctx: /api/show without it, /api/ps answered by `ps`. */
  const ollamaWithout = (ps: (req: IncomingMessage, res: ServerResponse) => void, model = 'qwen3:8b') =>
    local((req, res) => {
      if (req.url === '/api/ps') return ps(req, res);
      reply(200, JSON.stringify({ parameters: 'stop "x"', model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } }))(req, res);
    }, model);
  const loaded = (...models: unknown[]) => reply(200, JSON.stringify({ models }));

  it('Ollama without num_ctx: the context_length /api/ps gives the loaded model (OLLAMA_CONTEXT_LENGTH), never an assumed 4,096', async () => {
    // A server started with OLLAMA_CONTEXT_LENGTH=32768: the loaded model runs with it (another model's entry is not it).
    const big = await ollamaWithout(loaded({ name: 'gemma3:4b', model: 'gemma3:4b', context_length: 2048 }, { name: 'qwen3:8b', model: 'qwen3:8b', size: 1, context_length: 32768 }));
    expect((await testConnection(await conn(profile('ollama', big.url)))).context).toMatchObject({ tokens: 32768, modelMax: 131072, source: 'the context length Ollama has it loaded with' });
    expect(big.seen.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/models', 'POST /api/show', 'GET /api/ps']);
    // A bare name is its :latest tag.
    const bare = await ollamaWithout(loaded({ name: 'llama3.2:latest', model: 'llama3.2:latest', context_length: 8192 }), 'llama3.2');
    expect((await testConnection(await conn(profile('ollama', bare.url, 'llama3.2')))).context).toMatchObject({ tokens: 8192 });
  });

  it('Ollama without num_ctx and not loaded, or too old to say: unknown, and the window says what Tidy assumes instead of a wrong "too small"', async () => {
    const { db } = tempDb();
    const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
      ['not loaded', loaded(), /^the model sets no num_ctx and Ollama does not say the context length of an unloaded model$/],
      ['another model loaded', loaded({ name: 'qwen3:8b-q8', model: 'qwen3:8b-q8', context_length: 4096 }), /^the model sets no num_ctx/],
      ['older Ollama (no context_length)', loaded({ name: 'qwen3:8b', model: 'qwen3:8b', size_vram: 5 }), /^the model sets no num_ctx/],
      ['no /api/ps', reply(404, '404 page not found', 'text/plain'), /\/api\/ps answered 404/],
    ];
    for (const [name, ps, source] of cases) {
      const s = await ollamaWithout(ps);
      const r = fitContextToModel(db, await testConnection(await conn(profile('ollama', s.url))), 'ollama');
      expect(r, name).toMatchObject({ ok: true, warning: null, context: { tokens: null, tooSmall: false, budget: null, source: expect.stringMatching(source) } });
      expect(r.context?.note, name).toMatch(/^could not read the context window \(.+\); Tidy assumes 16,000 tokens \(its context budget\) — set num_ctx or OLLAMA_CONTEXT_LENGTH \(e\.g\. OLLAMA_CONTEXT_LENGTH=16384 ollama serve\)$/);
      expect(r.context?.note, name).not.toMatch(/too small|4,096/);
    }
    expect(readSettings(db).contextTokens).toBe(16_000);
  });

  it('Ollama /api/ps hostile: huge, malformed, absurd, deep or slow answers give "unknown" in one line, bounded in time', async () => {
    let deep = '1';
    for (let i = 0; i < 5_000; i++) deep = `[${deep}]`;
    const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
      ['huge', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"models":[${'{"name":"x","context_length":8192},'.repeat(40_000)}`);
        res.end('{"name":"qwen3:8b","context_length":8192}]}');
      }, /larger than 1 MB/],
      ['malformed', reply(200, '{"models": [{"name": "qwen3:8b", "context_length": 8192}'), /not JSON/],
      ['absurd numbers', loaded({ name: 'qwen3:8b', context_length: 1e99 }), /sets no num_ctx/],
      ['negative', loaded({ name: 'qwen3:8b', context_length: -5 }), /sets no num_ctx/],
      ['text number', loaded({ model: 'qwen3:8b', context_length: '8192; rm -rf /' }), /sets no num_ctx/],
      ['models not a list', reply(200, JSON.stringify({ models: { name: 'qwen3:8b', context_length: 8192 } })), /sets no num_ctx/],
      ['entries not objects', reply(200, JSON.stringify({ models: [null, 7, 'qwen3:8b', ['qwen3:8b', 8192]] })), /sets no num_ctx/],
      ['deep', reply(200, `{"models":${deep}}`), /sets no num_ctx/],
    ];
    for (const [name, handler, source] of cases) {
      const s = await ollamaWithout(handler);
      const r = await testConnection(await conn(profile('ollama', s.url)));
      expect(r.ok, name).toBe(true);
      expect(r.context, name).toMatchObject({ tokens: null, source: expect.stringMatching(source) });
      expect(r.context?.note.split('\n'), name).toHaveLength(1);
    }
    const slow = await ollamaWithout(() => {});
    const started = Date.now();
    const r = await testConnection(await conn(profile('ollama', slow.url)), { timeoutMs: 1_000 });
    expect(r).toMatchObject({ ok: true, context: { tokens: null, note: expect.stringMatching(/^context window unknown: no answer about the context window within/) } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('LM Studio: the loaded context length, else the model’s maximum; llama.cpp: n_ctx of /props', async () => {
    const lm = await local((req, res) => {
      expect(req.url).toBe('/api/v0/models/qwen3%3A8b');
      reply(200, JSON.stringify({ id: 'qwen3:8b', state: 'loaded', max_context_length: 32768, loaded_context_length: 4096 }))(req, res);
    });
    expect((await testConnection(await conn(profile('lmstudio', lm.url)))).context).toMatchObject({ tokens: 4096, modelMax: 32768 });
    const cpp = await local(reply(200, JSON.stringify({ default_generation_settings: { n_ctx: 16384, temperature: 0.8 }, total_slots: 1 })));
    expect((await testConnection(await conn(profile('llamacpp', cpp.url)))).context).toMatchObject({ tokens: 16384, modelMax: null });
  });

  it('hostile answers: huge, malformed, absurd or slow bodies give "unknown" in one line, bounded in time; the connection still works', async () => {
    const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
      ['huge', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"parameters":"${'x'.repeat(600_000)}`);
        res.end(`${'y'.repeat(600_000)}"}`);
      }, /larger than 1 MB/],
      ['malformed', reply(200, '{"parameters": "num_ctx 8192"'), /not JSON/],
      ['absurd', reply(200, JSON.stringify({ parameters: 'num_ctx 99999999999999', model_info: { 'x.context_length': -5 } })), /^context window unknown: the model sets no num_ctx/],
      ['error page', reply(500, '<html>oops</html>', 'text/html'), /answered 500/],
      ['array', reply(200, '[1,2,3]'), /not answer a JSON object/],
    ];
    for (const [name, handler, note] of cases) {
      const s = await local((req, res) => handler(req, res));
      const r = await testConnection(await conn(profile('ollama', s.url)));
      expect(r.ok, name).toBe(true);
      expect(r.context?.note, name).toMatch(note);
      expect(r.context?.note.split('\n'), name).toHaveLength(1);
    }
    const slow = await local(() => {});
    const started = Date.now();
    const r = await testConnection(await conn(profile('ollama', slow.url)), { timeoutMs: 1_000 });
    expect(r).toMatchObject({ ok: true, context: { tokens: null, note: expect.stringMatching(/^context window unknown: no answer about the context window within/) } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a cloud or custom endpoint is not asked', async () => {
    const fake = await startFakeOpenAI({ models: ['fake-model'] });
    cleanups.push(() => fake.close());
    const r = await testConnection(await conn(custom(fake.url)));
    expect(r.context ?? null).toBeNull();
    expect(fake.requests.map((q) => q.path)).toEqual(['/v1/models']);
  });
});
