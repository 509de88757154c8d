// The wikipedia tool against a loopback server replaying MediaWiki API replies (formatversion=2 shapes as
// en.wikipedia.org sends them): search + extracts, no results, disambiguation, API error, HTTP error,
// slow, offline, redirect, oversized; the one-day cache; offered only while the setting is on.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, readSettings, writeSetting, type Db } from '../../../src-main/core';
import { createToolServices, offeredTools, TOOLS } from '../../../src-main/core/tools';
import { invokeTool } from '../../../src-main/core/tools/invoke';
import { EXTRACT_CHARS, trimExtract, WIKIPEDIA_TIMEOUT_MS } from '../../../src-main/core/tools/wikipedia';
import { tidy } from '../../support/cli';
import { tempDb, userCtx } from '../../support/db';

const ENGLAND =
  'England is a country that is part of the United Kingdom. It is located on the island of Great Britain, of which it covers about 62%, and over 100 smaller adjacent islands. It shares a land border with Scotland to the north and another land border with Wales to the west.';

const search = (...titles: string[]) => ({
  batchcomplete: true,
  continue: { sroffset: titles.length, continue: '-||' },
  query: { searchinfo: { totalhits: titles.length * 137 }, search: titles.map((title, i) => ({ ns: 0, title, pageid: 1000 + i })) },
});
const page = (title: string, extract: string, site: string, extra: Record<string, unknown> = {}) => ({
  pageid: 9316,
  ns: 0,
  title,
  extract,
  contentmodel: 'wikitext',
  pagelanguage: 'en',
  pagelanguagehtmlcode: 'en',
  pagelanguagedir: 'ltr',
  touched: '2026-11-20T10:00:00Z',
  lastrevid: 1_260_000_000,
  length: 200_000,
  fullurl: `${site}/wiki/${title.replace(/ /g, '_')}`,
  editurl: `${site}/w/index.php?title=${title.replace(/ /g, '_')}&action=edit`,
  canonicalurl: `${site}/wiki/${title.replace(/ /g, '_')}`,
  ...extra,
});
const pages = (...p: unknown[]) => ({ batchcomplete: true, query: { pages: p } });
const apiError = {
  error: { code: 'internal_api_error_DBQueryError', info: '[7c2f] Caught exception of type Wikimedia\\Rdbms\\DBQueryError', docref: 'See https://en.wikipedia.org/w/api.php for API usage.' },
  servedby: 'mw-api-ext.codfw.main-5d8c9b7b9-abcde',
};

type Reply = (res: ServerResponse) => void;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

async function site(reply: (q: URLSearchParams, site: string) => unknown | Reply): Promise<{ url: string; hits: URLSearchParams[] }> {
  const hits: URLSearchParams[] = [];
  let url = '';
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/w/api.php') {
      res.writeHead(404).end();
      return;
    }
    hits.push(u.searchParams);
    const r = reply(u.searchParams, url);
    if (typeof r === 'function') return (r as Reply)(res);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(r));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  return { url, hits };
}

function setup(url: string, now = () => new Date()) {
  const { db } = tempDb();
  for (const [k, v] of [
    ['wikipedia', 'on'],
    ['wikipediaUrl', url],
  ])
    if (!writeSetting(db, k, v).ok) throw new Error(k);
  const services = createToolServices({ now: () => now() });
  const ask = (query: unknown) =>
    invokeTool({ tool: 'wikipedia', args: { query } }, { tools: new Map(TOOLS.map((t) => [t.name, t])), ctx: { db, action: userCtx(db), signal: new AbortController().signal, services } });
  return { db, ask };
}

describe('wikipedia', () => {
  it('searches, then returns the best page’s intro, trimmed, with its URL', async () => {
    const s = await site((q, url) => (q.get('list') === 'search' ? search('England', 'England national football team') : pages(page('England', `${ENGLAND}\n\n${'More. '.repeat(400)}`, url))));
    const { ask } = setup(s.url);
    const r = await ask('What does England share borders with?');
    expect(r).toMatchObject({ ok: true, value: { title: 'England', url: `${s.url}/wiki/England` } });
    const extract = (r as { value: { extract: string } }).value.extract;
    expect(extract.startsWith(ENGLAND)).toBe(true);
    expect(extract.length).toBeLessThanOrEqual(EXTRACT_CHARS);
    expect(s.hits[0]!.get('srsearch')).toBe('What does England share borders with?');
    expect(s.hits[1]!.get('prop')).toBe('extracts|info|pageprops');
    expect(s.hits[1]!.get('exintro')).toBe('1');
  });

  it('skips disambiguation pages for the first real article, and says so when there is none', async () => {
    const s = await site((q, url) =>
      q.get('list') === 'search'
        ? search(q.get('srsearch') === 'Mercury' ? 'Mercury' : 'Mercury', ...(q.get('srsearch') === 'Mercury' ? ['Mercury (planet)'] : []))
        : pages(
            page('Mercury', 'Mercury commonly refers to: Mercury (planet), Mercury (element)…', url, { pageprops: { disambiguation: '' } }),
            ...(q.get('titles')!.includes('planet') ? [page('Mercury (planet)', 'Mercury is the first planet from the Sun.', url)] : []),
          ),
    );
    const { ask } = setup(s.url);
    expect(await ask('Mercury')).toMatchObject({ ok: true, value: { title: 'Mercury (planet)', extract: 'Mercury is the first planet from the Sun.' } });
    expect(await ask('Mercury only')).toMatchObject({ ok: true, value: { title: 'Mercury', disambiguation: true, hint: expect.stringContaining('more specific') } });
  });

  it('follows MediaWiki’s normalised and redirected titles (formatversion 1 pages too)', async () => {
    const s = await site((q, url) =>
      q.get('list') === 'search'
        ? search('UK')
        : { batchcomplete: '', query: { redirects: [{ from: 'UK', to: 'United Kingdom' }], pages: { '31717': page('United Kingdom', 'The United Kingdom is a country in Europe.', url) } } },
    );
    const { ask } = setup(s.url);
    expect(await ask('UK')).toMatchObject({ ok: true, value: { title: 'United Kingdom' } });
  });

  it('no results is an error observation with a hint', async () => {
    const s = await site(() => ({ batchcomplete: true, query: { searchinfo: { totalhits: 0 }, search: [] } }));
    const { ask } = setup(s.url);
    expect(await ask('qwxzv nothing')).toMatchObject({ ok: false, error: expect.stringContaining('no article matches'), hint: expect.stringContaining('other or fewer words') });
  });

  it('an API error, an HTTP error, a redirect and a non-JSON reply are errors with hints', async () => {
    let mode = 'api';
    const s = await site(() => (res: ServerResponse) => {
      if (mode === 'api') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(apiError));
      else if (mode === 'http') res.writeHead(503, { 'retry-after': '10' }).end('Service Unavailable');
      else if (mode === 'redirect') res.writeHead(302, { location: 'https://elsewhere.example/w/api.php' }).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
    });
    const { ask } = setup(s.url);
    expect(await ask('England')).toMatchObject({ ok: false, error: expect.stringContaining('refused the query: [7c2f]') });
    mode = 'http';
    expect(await ask('England 2')).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 503'), hint: expect.any(String) });
    mode = 'redirect';
    expect(await ask('England 3')).toMatchObject({ ok: false, error: expect.stringContaining('could not reach') });
    mode = 'html';
    expect(await ask('England 4')).toMatchObject({ ok: false, error: expect.stringContaining('did not answer with MediaWiki API JSON') });
  });

  it('a site that is offline, or too slow, is an error within the time limit, never a hang', async () => {
    const closed = await site(() => ({}));
    const port = closed.url;
    await new Promise((r) => server!.close(r));
    server = undefined;
    const offline = setup(port);
    expect(await offline.ask('England')).toMatchObject({ ok: false, error: expect.stringContaining('could not reach'), hint: expect.stringContaining('offline') });

    const slow = await site(() => () => {}); // never answers
    const { ask } = setup(slow.url);
    const t0 = Date.now();
    expect(await ask('England')).toMatchObject({ ok: false, error: expect.stringContaining('did not answer within') });
    expect(Date.now() - t0).toBeLessThan(WIKIPEDIA_TIMEOUT_MS + 3_000);
    // Each of the two calls may take up to its time limit (a freed port can be taken by another test's
    // server before the offline call, which then waits too), so the test's own budget covers both. The time
    // limit itself holds under garbage collection (src-main/core/abort.ts; this test used to hang without it).
  }, 2 * (WIKIPEDIA_TIMEOUT_MS + 3_000) + 5_000);

  it('refuses an oversized reply without reading it all', async () => {
    const s = await site(() => (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"query":{"search":[${'{"title":"x"},'.repeat(300_000)}{"title":"y"}]}}`);
    });
    const { ask } = setup(s.url);
    expect(await ask('big')).toMatchObject({ ok: false, error: expect.stringContaining('too large') });
  });

  it('keeps answers for a day', async () => {
    let now = new Date('2026-11-23T10:00:00Z');
    const s = await site((q, url) => (q.get('list') === 'search' ? search('England') : pages(page('England', ENGLAND, url))));
    const { ask, db } = setup(s.url, () => now);
    await ask('England');
    await ask('england');
    expect(s.hits).toHaveLength(2); // one search + one extract, then the cache
    now = new Date('2026-11-24T11:00:00Z');
    await ask('England');
    expect(s.hits).toHaveLength(4);
    expect(count(db)).toBe(1);
  });

  it('takes hostile queries as data', async () => {
    const s = await site(() => ({ batchcomplete: true, query: { search: [] } }));
    const { ask } = setup(s.url);
    await ask('a&action=edit&title=Main_Page|x');
    expect(s.hits[0]!.get('srsearch')).toBe('a&action=edit&title=Main_Page|x');
    expect(s.hits[0]!.get('action')).toBe('query');
    expect(await ask('x'.repeat(5000))).toMatchObject({ ok: false, code: 'invalid_arguments' });
    expect(await ask('   ')).toMatchObject({ ok: false, code: 'invalid_arguments' });
  });

  it('is offered only while the setting is on, and `tidy config set wikipedia on` turns it on', () => {
    const { db, path } = tempDb();
    expect(offeredTools(TOOLS, readSettings(db)).map((t) => t.name)).not.toContain('wikipedia');
    db.close();
    expect(tidy(path, ['config', 'set', 'wikipedia', 'on']).stdout).toContain('wikipedia = true');
    expect(tidy(path, ['config', 'set', 'wikipediaUrl', 'https://de.wikipedia.org/']).stdout).toContain('wikipediaUrl = https://de.wikipedia.org');
    const bad = tidy(path, ['config', 'set', 'wikipediaUrl', 'https://user:pw@evil.example']);
    expect(bad.code).toBe(1);
    const reopened = openDatabase(path);
    try {
      expect(readSettings(reopened).wikipediaUrl).toBe('https://de.wikipedia.org');
      expect(offeredTools(TOOLS, readSettings(reopened)).map((t) => t.name)).toContain('wikipedia');
    } finally {
      reopened.close();
    }
  });

  it('trims at a sentence end', () => {
    const long = `${'A short sentence. '.repeat(100)}`;
    const t = trimExtract(long);
    expect(t.endsWith('.')).toBe(true);
    expect(t.length).toBeLessThanOrEqual(EXTRACT_CHARS);
    expect(trimExtract('  a\n\n b ')).toBe('a b');
  });
});

const count = (db: Db): number => (db.prepare(`SELECT COUNT(*) AS n FROM wikipedia_cache`).get() as { n: number }).n;
