// Sync through a real WebDAV server: Debian's `rclone serve webdav`, started by the test on 127.0.0.1 with
// a random port (scripts/system-deps.sh installs rclone; without it this test FAILS with the hint, it is
// never skipped). Then hostile servers made here: one that lists traversal names, one that answers
// garbage, one that streams a file far larger than it claims.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import { SyncDevice, syncRound } from '../../../src-main/core/sync/round';
import { joinTarget } from '../../../src-main/core/sync/setup';
import { SAFE_NAME } from '../../../src-main/core/sync/targets/target';
import { WebDavTarget } from '../../../src-main/core/sync/targets/webdav';
import { convergeScenario, IDS, killScenario } from '../../unit/sync/scenario';
import { realStoresScenario } from './real-stores';

const USER = 'tidy';
const PASS = 'test-password';
let root: string;
let served: string;
let rclone: ChildProcess;
let url: string;

function startRclone(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const version = spawnSync('rclone', ['version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) {
    throw new Error('rclone is missing: the WebDAV sync tests need `rclone serve webdav`. Install it: `sudo apt-get install -y rclone` (scripts/system-deps.sh does).');
  }
  const child = spawn('rclone', ['serve', 'webdav', dir, '--addr', '127.0.0.1:0', '--config', '/dev/null', '--dir-cache-time', '0s', '--user', USER, '--pass', PASS], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`rclone serve webdav did not start within 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /started on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rclone serve webdav exited (${code}):\n${out}`));
    });
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tidy-sync-webdav-'));
  ({ child: rclone, url } = await startRclone(root));
}, 90_000);

afterAll(() => {
  if (rclone?.pid) process.kill(rclone.pid);
  rmSync(root, { recursive: true, force: true });
});

// each test gets its own folder on the server: a fresh target (rclone caches no listing, so files the tests
// put on its disk directly are seen at once)
let n = 0;
beforeEach(() => {
  served = `t${++n}`;
  mkdirSync(join(root, served));
});
const target = (login = { username: USER, password: PASS }): WebDavTarget => new WebDavTarget(`${url}${served}`, login);

describe('WebDAV target (rclone serve webdav)', () => {
  it('writes new files only, never overwriting, and leaves no temp file behind', async () => {
    const t = target();
    expect(await t.writeNew(`${IDS[0]}/0000000001.batch`, new Uint8Array([1, 2, 3]))).toBe('written');
    expect(await t.writeNew(`${IDS[0]}/0000000001.batch`, new Uint8Array([9]))).toBe('exists');
    expect(await t.read(`${IDS[0]}/0000000001.batch`)).toEqual(new Uint8Array([1, 2, 3]));
    expect(readdirSync(join(root, served, IDS[0]))).toEqual(['0000000001.batch']);
    expect(await t.list('')).toEqual([{ name: IDS[0], dir: true }]);
    expect(await t.read('absent.batch')).toBeNull();
    expect(await t.list('nowhere')).toEqual([]);
    await t.remove(`${IDS[0]}/0000000001.batch`);
    await t.remove(`${IDS[0]}/0000000001.batch`);
    expect(await t.list(IDS[0])).toEqual([]);
  });

  it('refuses a huge file and unsafe paths, and says a wrong login in one line', async () => {
    const t = target();
    writeFileSync(join(root, served, 'big.batch'), Buffer.alloc(64 * 1024));
    const err = await t.read('big.batch', 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).error).toMatch(/larger than/);
    await expect(t.read('../outside')).rejects.toThrow(/unsafe path/);
    const denied = await target({ username: USER, password: 'wrong' }).list('').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(DomainError);
    expect((denied as DomainError).error).toMatch(/refused the login \(401\)/);
  });

  it('sets up, joins, refuses a wrong passphrase, converges three devices, stores no plaintext', async () => {
    await convergeScenario(target());
    // what the server's disk holds: no plaintext either
    const files = spawnSync('grep', ['-rl', '-e', 'Dentist', '-e', 'Alice', join(root, served)], { encoding: 'utf8' });
    expect(files.stdout).toBe('');
  });

  it('completes on the next round after a kill after any step', async () => {
    const t = target();
    await killScenario(t, await convergeScenario(t));
  });

  it('reports a file that is not ours as a problem and syncs the rest', async () => {
    const t = target();
    const [a, b] = await convergeScenario(t);
    a!.change('tasks', 'x', 'content', 'from a');
    await syncRound(a!, t);
    writeFileSync(join(root, served, IDS[2], '0000000002.batch'), '<html>not ours</html>');
    const r = await syncRound(b!, t);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/not a Tidy batch/);
    expect(b!.cells.get('tasks\u0000x\u0000content')?.value).toBe('from a');
  });
});

/** A server that answers every request with `answer`. */
async function fakeServer(answer: (method: string, path: string) => { status: number; body: string | Buffer; headers?: Record<string, string> }): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    const a = answer(req.method ?? 'GET', req.url ?? '/');
    res.writeHead(a.status, a.headers ?? {});
    res.end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const collection = (href: string): string =>
  `<d:response><d:href>${href}</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
const file = (href: string): string =>
  `<d:response><d:href>${href}</d:href><d:propstat><d:prop><d:resourcetype/><d:getcontentlength>3</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;

describe('hostile WebDAV servers', () => {
  it('skips traversal and hidden names in a listing', async () => {
    const hrefs = ['/..', '/../../etc', '/.hidden', '/a%2F..%2F..%2Fetc%2Fpasswd', '/%2E%2E', `/${IDS[1]}/`, '/x%00y', '/&lt;script&gt;', `/${'n'.repeat(300)}`];
    const body = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">${collection('/')}${hrefs.map((h, i) => (i % 2 ? collection(h) : file(h))).join('')}${file('/..%2Fsecret.batch')}</d:multistatus>`;
    const { server, url: u } = await fakeServer(() => ({ status: 207, body, headers: { 'content-type': 'application/xml' } }));
    try {
      const entries = await new WebDavTarget(u).list('');
      for (const e of entries) expect(e.name).toMatch(SAFE_NAME);
      expect(entries).toContainEqual({ name: IDS[1], dir: true });
      expect(entries.map((e) => e.name)).not.toContain('..');
    } finally {
      server.close();
    }
  });

  it('turns garbage answers into one line that names the server', async () => {
    const { server, url: u } = await fakeServer((method) =>
      method === 'PROPFIND' ? { status: 207, body: '\u0000\u0001garbage<<<>>>', headers: { 'content-type': 'application/xml' } } : { status: 200, body: '<html>hello</html>' },
    );
    try {
      const t = new WebDavTarget(u);
      const err = await t.list(IDS[0]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).error).toMatch(/did not answer as a WebDAV server/);
      expect((err as DomainError).error).not.toContain('\n');
      const join = await joinTarget(t, 'pw').catch((e: unknown) => e);
      expect((join as DomainError).error).toMatch(/not a Tidy sync header/);
      const d = new SyncDevice(IDS[0], new Uint8Array(32));
      await expect(syncRound(d, t)).rejects.toBeInstanceOf(DomainError);
      const down = await new WebDavTarget('http://127.0.0.1:9/').list('').catch((e: unknown) => e);
      expect(down).toBeInstanceOf(DomainError);
    } finally {
      server.close();
    }
  });

  it('stops reading a file far larger than the limit, whatever the server claims', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 1);
    const { server, url: u } = await fakeServer(() => ({ status: 200, body: big, headers: { 'content-length': String(big.length) } }));
    try {
      const err = await new WebDavTarget(u).read(`${IDS[0]}/0000000001.batch`, 64 * 1024).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).error).toMatch(/larger than/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('real databases and the real `tidy sync` through rclone serve webdav', () => {
  it('sets up, joins, refuses a wrong passphrase, carries 10,000 changes, survives kill -9 mid-round at fixed and timed points, and leaves no plaintext', async () => {
    await realStoresScenario({ kind: 'webdav', url: `${url}${served}`, user: USER, password: PASS }, join(root, served), { cli: true });
  }, 120_000);
});
