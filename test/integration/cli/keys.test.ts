// `tidy key …`, `tidy config profile …` and `tidy config test` as real processes against a temp database,
// with the fake OpenAI server in this process (hence an asynchronous spawn). The profile commands, which
// touch no key, run in this process (test/support/cli-inproc.ts); removing a profile (its key goes too)
// runs the process. The key must reach the server as the bearer token and nowhere else: not the database,
// its WAL, the trace, stdout or stderr.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';
import { TIDY_BIN } from '../../support/cli';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';
import { describeWithKeyring, NO_KEYCHAIN_ENV } from '../../support/keyring';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tidy --db DB …` without blocking this process (the fake server lives here). */
function tidy(db: string, args: string[], opts: { input?: string; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  for (const k of ['TIDY_DB', 'TIDY_BASE_URL', 'TIDY_MODEL', ...(opts.env && 'OPENAI_API_KEY' in opts.env ? [] : ['OPENAI_API_KEY'])]) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TIDY_BIN, '--db', db, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

const newKey = (label: string): string => `sk-${label}-${randomBytes(12).toString('hex')}`;

/** Every file next to the database (the DB, -wal, -shm) and every output: the key is in none of them. */
function expectNoLeak(dir: string, runs: Run[], ...keys: string[]): void {
  const files = readdirSync(dir).map((f) => join(dir, f));
  expect(files.some((f) => f.endsWith('.db'))).toBe(true);
  for (const key of keys) {
    for (const f of files) expect(readFileSync(f).includes(key), `${f} contains the key`).toBe(false);
    for (const r of runs) expect(r.stdout + r.stderr).not.toContain(key);
  }
}

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const oneLine = (s: string): boolean => s.trimEnd().split('\n').length === 1;

let fakes: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

async function fake(models = ['fake-model']): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI({ models, handler: () => ({ text: 'Nothing to do.' }) });
  fakes.push(f);
  return f;
}

describe('tidy config profile', () => {
  it('lists, adds, switches, edits and removes; config get/set baseUrl and model follow the active profile', async () => {
    const db = join(tempDir(), 'tidy.db');
    const list = await tidyIn(db, ['config', 'profile', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      { id: 'openai', preset: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', active: true },
      { id: 'ollama', preset: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', active: false },
      { id: 'lmstudio', preset: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-7b-instruct', active: false },
      { id: 'llamacpp', preset: 'llamacpp', baseUrl: 'http://127.0.0.1:8080/v1', model: 'default', active: false },
    ]);
    expect(await tidyIn(db, ['config', 'profile', 'use', 'ollama'])).toMatchObject({
      code: 0,
      stdout: 'active profile: ollama (Ollama, http://127.0.0.1:11434/v1, model llama3.2)\n',
    });
    expect((await tidyIn(db, ['config', 'get', 'baseUrl'])).stdout).toBe('http://127.0.0.1:11434/v1\n');
    expect((await tidyIn(db, ['config', 'set', 'model', 'qwen3:8b'])).stdout).toBe('model = qwen3:8b\n');

    const added = await tidyIn(db, ['config', 'profile', 'add', 'az', '--preset', 'azure', '--base-url', 'https://res.openai.azure.com/openai/v1', '--model', 'prod', '--use']);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toBe('added profile az (Azure OpenAI, https://res.openai.azure.com/openai/v1, model prod) and made it active\nstore its key with: tidy key set --profile az\n');
    expect((await tidyIn(db, ['config', 'get', 'profile'])).stdout).toBe('az\n');
    expect((await tidyIn(db, ['config', 'profile', 'edit', 'ollama', '--base-url', 'http://127.0.0.1:11500/v1'])).stdout).toBe(
      'profile ollama: Ollama, http://127.0.0.1:11500/v1, model qwen3:8b\n',
    );

    const refused = await tidyIn(db, ['config', 'profile', 'remove', 'az']);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toBe("tidy: 'az' is the active profile — switch first: tidy config profile use openai\n");
    await tidyIn(db, ['config', 'set', 'profile', 'openai']);
    const removed = await tidy(db, ['config', 'profile', 'remove', 'az'], { env: NO_KEYCHAIN_ENV });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('removed profile az\n');
  });

  it('refuses bad input with exit 2 and one line naming what is allowed', async () => {
    const db = join(tempDir(), 'tidy.db');
    const cases: [string[], string][] = [
      [['config', 'profile', 'add', 'x', '--preset', 'bedrock'], "unknown preset 'bedrock' — use one of: openai, azure, ollama, lmstudio, llamacpp, custom"],
      [['config', 'profile', 'add', 'x', '--preset', 'custom', '--model', 'm'], 'the Custom OpenAI-compatible endpoint preset needs --base-url'],
      [['config', 'profile', 'add', 'x', '--preset', 'azure', '--base-url', 'https://r.openai.azure.com/openai', '--model', 'd'], 'baseUrl must end in /openai/v1'],
      [['config', 'profile', 'use', 'nope'], "no provider profile 'nope'"],
      [['config', 'set', 'baseUrl', 'https://u:p@h.example/v1'], 'must not contain a user name or password'],
      [['config', 'set', 'quickCaptureShortcut', 'Q'], 'needs a modifier'],
      [['config', 'set', 'maxTokens', '999999'], 'must be from 16 to 32000'],
      [['key', 'status', '--profile', 'nope'], "no provider profile 'nope'"],
      [['config', 'test', '--timeout', '0'], '--timeout "0" is not allowed'],
    ];
    for (const [args, message] of cases) {
      const r = await tidyIn(db, args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), args[1] === 'set' && args[0] === 'config' ? 1 : 2]);
      expect(oneLine(r.stderr)).toBe(true);
      expect(r.stderr).toContain(message);
    }
  });
});

describe.runIf(process.platform === 'linux')('without an OS keychain (no Secret Service on the bus)', () => {
  it('`key set` says so in one line, saves nothing anywhere, exits 1', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const key = newKey('nokeychain');
    const r = await tidy(db, ['key', 'set'], { input: `${key}\n`, env: NO_KEYCHAIN_ENV });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      "tidy: no OS keychain available (no keyring service is running); the key was not saved — start your desktop's keyring (sign in to a GNOME or KDE session), or set OPENAI_API_KEY before starting Tidy\n",
    );
    expectNoLeak(dir, [r], key);
  });

  it('`key status` and `key clear`: the reason and the fix, with exit codes', async () => {
    const db = join(tempDir(), 'tidy.db');
    const status = await tidy(db, ['key', 'status'], { env: NO_KEYCHAIN_ENV });
    expect(status.code).toBe(1);
    expect(status.stderr).toBe(
      "tidy: no API key for profile openai: no OS keychain available (no keyring service is running) — start your desktop's keyring (sign in to a GNOME or KDE session), or set OPENAI_API_KEY before starting Tidy, or pick a local server, which needs no key\n",
    );
    const withEnv = await tidy(db, ['key', 'status'], { env: { ...NO_KEYCHAIN_ENV, OPENAI_API_KEY: newKey('env') } });
    expect(withEnv).toMatchObject({ code: 0, stderr: '' });
    expect(withEnv.stdout).toContain('requests use OPENAI_API_KEY from the environment');
    // A local server needs no key: nothing to complain about.
    expect(await tidy(db, ['key', 'status', '--profile', 'ollama'], { env: NO_KEYCHAIN_ENV })).toMatchObject({ code: 0, stderr: '' });
    const clear = await tidy(db, ['key', 'clear'], { env: NO_KEYCHAIN_ENV });
    expect(clear.code).toBe(1);
    expect(oneLine(clear.stderr)).toBe(true);
    expect(clear.stderr).toContain('no OS keychain available (no keyring service is running)');
  });

  it('a key given as an argument is refused without being repeated', async () => {
    const db = join(tempDir(), 'tidy.db');
    const key = newKey('argv');
    const r = await tidy(db, ['key', 'set', key], { env: NO_KEYCHAIN_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the key is read from stdin, not from the command line');
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('`config test` falls back to OPENAI_API_KEY with one notice; the fake server sees the bearer; nothing leaks', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const server = await fake();
    const key = newKey('envfallback');
    const env = { ...NO_KEYCHAIN_ENV, OPENAI_API_KEY: key };
    const runs = [await tidy(db, ['config', 'profile', 'add', 'fake', '--preset', 'custom', '--base-url', server.url, '--model', 'fake-model', '--use'], { env })];
    const test = await tidy(db, ['config', 'test'], { env });
    runs.push(test);
    expect(test.code).toBe(0);
    expect(test.stderr).toBe('tidy: no OS keychain available (no keyring service is running); using OPENAI_API_KEY from the environment\n');
    expect(test.stdout).toContain(`profile fake: GET ${server.url}/models (key from OPENAI_API_KEY)`);
    expect(test.stdout).toMatch(/ok: connected to 127\.0\.0\.1:\d+: 1 model listed, 'fake-model' among them in \d+ ms/);
    expect(server.requests.map((q) => q.bearer)).toEqual([key]);
    expectNoLeak(dir, runs, key);
  });

  it('`config test` on a local Ollama reads the model’s context window: too small is a warning with what to do; a big one fits the budget', async () => {
    const db = join(tempDir(), 'tidy.db');
    let numCtx = 4096;
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/v1/models') return res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen3:8b' }] }));
      res.end(JSON.stringify({ parameters: `num_ctx ${numCtx}`, model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    fakes.push({ close: () => new Promise<void>((r) => server.close(() => r())) } as FakeOpenAI);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    expect((await tidy(db, ['config', 'profile', 'add', 'local', '--preset', 'ollama', '--base-url', url, '--model', 'qwen3:8b', '--use'], { env: NO_KEYCHAIN_ENV })).code).toBe(0);
    const small = await tidy(db, ['config', 'test'], { env: NO_KEYCHAIN_ENV });
    expect(small.code).toBe(0);
    expect(small.stdout).toMatch(/\nwarning: context window 4,096 tokens \(the num_ctx of the model\): too small for Tidy's prompt of about [\d,]+ tokens .*give it a bigger num_ctx .*\n$/);
    numCtx = 16_384;
    const big = await tidy(db, ['config', 'test'], { env: NO_KEYCHAIN_ENV });
    expect(big.stdout).toMatch(/\ncontext window 16,384 tokens \(the num_ctx of the model\); Tidy's prompt takes about [\d,]+, context budget 15,360 tokens\n$/);
  }, 60_000);

  it('a cloud profile with no key at all fails before sending, in one line', async () => {
    const db = join(tempDir(), 'tidy.db');
    const r = await tidy(db, ['config', 'test'], { env: NO_KEYCHAIN_ENV });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      "tidy: no API key for profile openai: no OS keychain available (no keyring service is running) — start your desktop's keyring (sign in to a GNOME or KDE session), or set OPENAI_API_KEY before starting Tidy, or pick a local server, which needs no key\n",
    );
  });

  it('`config test` explains a closed port and an HTML page in one line each', async () => {
    const db = join(tempDir(), 'tidy.db');
    const closed = await closedPort();
    const refused = await tidy(db, ['config', 'test', '--profile', 'lmstudio', '--base-url', `http://127.0.0.1:${closed}/v1`], { env: NO_KEYCHAIN_ENV });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `tidy: nothing is listening at 127.0.0.1:${closed} (connection refused) — start LM Studio's local server (Developer tab, or \`lms server start\`) or check the port\n`,
    );

    const html = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Router login</title>');
    });
    await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
    try {
      const port = (html.address() as AddressInfo).port;
      const r = await tidy(db, ['config', 'test', '--base-url', `http://127.0.0.1:${port}`, '--profile', 'ollama'], { env: NO_KEYCHAIN_ENV });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `tidy: http://127.0.0.1:${port}/models answered with HTML, not the OpenAI API — check the base URL: it usually ends in /v1 (http://127.0.0.1:11434/v1)\n`,
      );
      const json = await tidy(db, ['config', 'test', '--json', '--profile', 'ollama', '--base-url', `http://127.0.0.1:${port}/v1`], { env: NO_KEYCHAIN_ENV });
      expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, problem: 'not_openai', status: 200 });
    } finally {
      html.closeAllConnections();
      html.close();
    }
  });
});

describeWithKeyring('with the OS keychain (real process, real Secret Service)', () => {
  it('stores keys per profile from stdin; `config test` sends each profile its own key; nothing leaks', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const a = await fake();
    const b = await fake(['other-model']);
    const keyA = newKey('profile-a');
    const keyB = newKey('profile-b');
    const runs: Run[] = [];
    const run = async (args: string[], input?: string): Promise<Run> => {
      const r = await tidy(db, args, input === undefined ? {} : { input });
      runs.push(r);
      return r;
    };
    await run(['config', 'profile', 'add', 'fake-a', '--preset', 'custom', '--base-url', a.url, '--model', 'fake-model', '--use']);
    await run(['config', 'profile', 'add', 'fake-b', '--preset', 'custom', '--base-url', b.url, '--model', 'other-model']);

    const set = await run(['key', 'set'], `${keyA}\n`);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toBe(`saved the API key of profile fake-a in the OS keychain; it is sent only to http://127.0.0.1:${a.port}\n`);
    expect((await run(['key', 'set', '--profile', 'fake-b'], keyB)).code).toBe(0);

    const status = await run(['key', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toEqual({ profile: 'fake-a', stored: true, source: 'keychain', storage: 'keychain', required: false, keychain: { available: true }, problem: null });

    const testA = await run(['config', 'test']);
    expect(testA).toMatchObject({ code: 0, stderr: '' });
    expect(testA.stdout).toContain('(key from the OS keychain)');
    expect((await run(['config', 'test', '--profile', 'fake-b'])).code).toBe(0);
    expect(a.requests.map((q) => q.bearer)).toEqual([keyA]);
    expect(b.requests.map((q) => q.bearer)).toEqual([keyB]);

    // Replace, then clear: the next request goes without.
    const keyA2 = newKey('profile-a-replaced');
    await run(['key', 'set'], keyA2);
    await run(['config', 'test']);
    expect(a.requests.at(-1)?.bearer).toBe(keyA2);
    expect((await run(['key', 'clear'])).stdout).toBe('removed the API key of profile fake-a from the OS keychain\n');
    await run(['config', 'test']);
    expect(a.requests.at(-1)?.authorization).toBeUndefined();
    expect(JSON.parse((await run(['key', 'status', '--profile', 'fake-b', '--json'])).stdout)).toMatchObject({ stored: true });

    expectNoLeak(dir, runs, keyA, keyB, keyA2);
    await run(['key', 'clear', '--profile', 'fake-b']);
  });

  it('a key saved for one address is not sent after the profile is pointed at another', async () => {
    const db = join(tempDir(), 'tidy.db');
    const first = await fake();
    const second = await fake();
    const key = newKey('bound');
    await tidy(db, ['config', 'profile', 'add', 'p', '--preset', 'openai', '--base-url', first.url, '--use']);
    expect((await tidy(db, ['key', 'set'], { input: key })).code).toBe(0);
    await tidy(db, ['config', 'set', 'baseUrl', second.url]);
    const r = await tidy(db, ['config', 'test']);
    // Loopback needs no key, so the test goes through — without the key.
    expect(r.code).toBe(0);
    expect(second.requests.map((q) => q.authorization)).toEqual([undefined]);
    expect(first.requests).toEqual([]);
    await tidy(db, ['key', 'clear']);
  });
});

/** `tidy ask` is the agent's command (another part of the CLI); the leak check runs once it exists. */
const askExists = await (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-ask-probe-'));
  try {
    return existsSync(TIDY_BIN) && (await tidy(join(dir, 'tidy.db'), ['ask', '--help'])).code === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

describe.runIf(askExists)('`tidy ask` with a key: it reaches the server as the bearer token and nowhere else', () => {
  it('with OPENAI_API_KEY (no keychain)', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const server = await fake();
    const key = newKey('ask-env');
    const env = { ...NO_KEYCHAIN_ENV, OPENAI_API_KEY: key };
    const runs = [await tidy(db, ['config', 'profile', 'add', 'fake', '--preset', 'custom', '--base-url', server.url, '--model', 'fake-model', '--use'], { env })];
    runs.push(await tidy(db, ['ask', 'What is in my inbox?', '--json', '--yes'], { env }));
    expect(runs[1]!.code, runs[1]!.stderr).toBe(0);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    expect(server.chatRequests.every((q) => q.bearer === key)).toBe(true);
    runs.push(await tidy(db, ['runs', '--json'], { env }));
    const runId = (JSON.parse(runs[2]!.stdout) as { id: string }[])[0]?.id;
    if (runId) runs.push(await tidy(db, ['trace', runId, '--json'], { env }));
    expectNoLeak(dir, runs, key);
  });
});

describeWithKeyring('`tidy ask` with a key in the keychain', () => {
  it.runIf(askExists)('sends it as the bearer token and keeps it out of the database, the trace and the output', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const server = await fake();
    const key = newKey('ask-keychain');
    const runs = [await tidy(db, ['config', 'profile', 'add', 'fake', '--preset', 'custom', '--base-url', server.url, '--model', 'fake-model', '--use'])];
    runs.push(await tidy(db, ['key', 'set'], { input: key }));
    runs.push(await tidy(db, ['ask', 'What is in my inbox?', '--json', '--yes']));
    expect(runs[2]!.code, runs[2]!.stderr).toBe(0);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    expect(server.chatRequests.every((q) => q.bearer === key)).toBe(true);
    runs.push(await tidy(db, ['runs', '--json']));
    const runId = (JSON.parse(runs[3]!.stdout) as { id: string }[])[0]?.id;
    if (runId) runs.push(await tidy(db, ['trace', runId, '--json']));
    expectNoLeak(dir, runs, key);
    await tidy(db, ['key', 'clear']);
  });
});
