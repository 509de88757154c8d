/**
 * `wikipedia {query}` (seed 003's lookup): search the MediaWiki site the user configured (settings
 * `wikipediaUrl`, its API at /w/api.php), then read the best page's intro as plain text. Off by default
 * (settings `wikipedia`): the query leaves the machine only while the user has it on. Answers are kept in
 * SQLite for a day. A site that is offline, refuses, or is slow gives an error with a hint within
 * WIKIPEDIA_TIMEOUT_MS, never a hang.
 */
import { z } from 'zod';
import { timeLimit } from '../abort';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { readSettings } from '../settings';
import { defineTool, type ToolOutcome } from './tool';

/** Both requests of one lookup together, cancelled with the run too. */
export const WIKIPEDIA_TIMEOUT_MS = 8_000;
/** An answer is reused for this long. */
const WIKIPEDIA_CACHE_MS = 24 * 60 * 60 * 1000;
/** The intro is cut to this many characters (at a sentence end when there is one): enough to answer, cheap to carry. */
export const EXTRACT_CHARS = 1_200;
/** A reply larger than this is not read (a search and an intro are a few kB). */
const MAX_BODY_BYTES = 2_000_000;
const MAX_QUERY = 300;
/** Pages of the search read for their intro: the first that is not a disambiguation page wins. */
const CANDIDATES = 5;

interface WikiAnswer {
  title: string;
  extract: string;
  url: string;
  /** Set when the best match is a disambiguation page (a list of meanings). */
  disambiguation?: true;
}

class WikiFailure extends Error {
  constructor(
    readonly error: string,
    readonly hint: string,
  ) {
    super(error);
  }
}

const SearchReply = z.object({
  query: z.object({ search: z.array(z.object({ title: z.string() }).loose()).default([]) }).loose().optional(),
});
const Page = z
  .object({
    title: z.string(),
    missing: z.unknown().optional(),
    extract: z.string().optional(),
    fullurl: z.string().optional(),
    pageprops: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
const PagesReply = z.object({
  query: z
    .object({
      // formatversion=2 sends an array; older servers (and formatversion=1) an object keyed by page id.
      pages: z.union([z.array(Page), z.record(z.string(), Page).transform((r) => Object.values(r))]).default([]),
      redirects: z.array(z.object({ from: z.string(), to: z.string() }).loose()).optional(),
      normalized: z.array(z.object({ from: z.string(), to: z.string() }).loose()).optional(),
    })
    .loose()
    .optional(),
});
const ErrorReply = z.object({ error: z.object({ code: z.string().optional(), info: z.string().optional() }).loose() });

/** The intro, trimmed: whitespace folded, cut at a sentence end before EXTRACT_CHARS when possible. */
export function trimExtract(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= EXTRACT_CHARS) return flat;
  const cut = flat.slice(0, EXTRACT_CHARS);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end > EXTRACT_CHARS / 2 ? cut.slice(0, end + 1) : `${cut.replace(/\s+\S*$/, '')}…`;
}

async function getJson(fetchFn: typeof fetch, site: string, params: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  const url = `${site}/w/api.php?${new URLSearchParams({ ...params, format: 'json', formatversion: '2', origin: '*' }).toString()}`;
  let res: Response;
  try {
    // A redirect could take the query to a host the user never named: refused, with the way to fix it.
    res = await fetchFn(url, { signal, redirect: 'error', headers: { accept: 'application/json', 'user-agent': 'Tidy (local-first assistant)' } });
  } catch (e) {
    if (signal.aborted) throw e;
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
    throw new WikiFailure(`could not reach ${site} (${cause})`, 'the computer may be offline, or wikipediaUrl is wrong; answer without Wikipedia or tell the user');
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new WikiFailure(`${site} answered HTTP ${res.status}`, 'the site refused or failed; try again later, or answer without Wikipedia');
  }
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw new WikiFailure(`${site} sent a reply too large to read`, 'answer without Wikipedia');
  }
  const text = await readCapped(res);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WikiFailure(`${site} did not answer with MediaWiki API JSON`, 'check that wikipediaUrl is a MediaWiki site (its API at /w/api.php)');
  }
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw new WikiFailure('the Wikipedia reply was too large to read', 'answer without Wikipedia');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function apiError(body: unknown, site: string): void {
  const e = ErrorReply.safeParse(body);
  if (e.success) throw new WikiFailure(`${site} refused the query: ${(e.data.error.info ?? e.data.error.code ?? 'unknown error').slice(0, 200)}`, 'rephrase the query in plain words');
}

/** Searches, then reads the intros of the top matches and picks the first real article. */
async function lookUp(fetchFn: typeof fetch, site: string, query: string, signal: AbortSignal): Promise<WikiAnswer | null> {
  const searched = await getJson(fetchFn, site, { action: 'query', list: 'search', srsearch: query, srlimit: String(CANDIDATES), srprop: '' }, signal);
  apiError(searched, site);
  const hits = SearchReply.safeParse(searched);
  if (!hits.success) throw new WikiFailure(`${site} sent a search reply Tidy cannot read`, 'check that wikipediaUrl is a MediaWiki site');
  const titles = (hits.data.query?.search ?? []).map((h) => h.title).slice(0, CANDIDATES);
  if (titles.length === 0) return null;
  const read = await getJson(
    fetchFn,
    site,
    { action: 'query', prop: 'extracts|info|pageprops', exintro: '1', explaintext: '1', exlimit: String(CANDIDATES), inprop: 'url', ppprop: 'disambiguation', redirects: '1', titles: titles.join('|') },
    signal,
  );
  apiError(read, site);
  const pages = PagesReply.safeParse(read);
  if (!pages.success) throw new WikiFailure(`${site} sent a page reply Tidy cannot read`, 'check that wikipediaUrl is a MediaWiki site');
  const q = pages.data.query;
  const rename = new Map([...(q?.normalized ?? []), ...(q?.redirects ?? [])].map((r) => [r.from, r.to]));
  const byTitle = new Map((q?.pages ?? []).filter((p) => p.missing === undefined && p.extract).map((p) => [p.title, p]));
  const resolve = (title: string): string => {
    let t = title;
    for (let i = 0; i < 3 && rename.has(t); i++) t = rename.get(t)!; // normalised, then redirected
    return t;
  };
  const ordered = titles.map((t) => byTitle.get(resolve(t))).filter((p) => p !== undefined);
  const best = ordered.find((p) => !p.pageprops || !('disambiguation' in p.pageprops)) ?? ordered[0];
  if (!best) return null;
  const url = best.fullurl && /^https?:\/\//.test(best.fullurl) ? best.fullurl : `${site}/wiki/${encodeURIComponent(best.title.replace(/ /g, '_'))}`;
  const disambiguation = best.pageprops !== undefined && 'disambiguation' in best.pageprops;
  return { title: best.title, extract: trimExtract(best.extract ?? ''), url, ...(disambiguation ? { disambiguation: true as const } : {}) };
}

function fromCache(db: Db, site: string, query: string, now: Date): WikiAnswer | null | undefined {
  const row = cached(db, `SELECT result, fetched_at FROM wikipedia_cache WHERE site = ? AND query = ?`).get(site, query) as { result: string; fetched_at: string } | undefined;
  if (!row || now.getTime() - Date.parse(row.fetched_at) > WIKIPEDIA_CACHE_MS) return undefined;
  return JSON.parse(row.result) as WikiAnswer | null;
}

function remember(db: Db, site: string, query: string, answer: WikiAnswer | null, now: Date): void {
  cached(db, `INSERT INTO wikipedia_cache (site, query, result, fetched_at) VALUES (?, ?, ?, ?) ON CONFLICT(site, query) DO UPDATE SET result = excluded.result, fetched_at = excluded.fetched_at`).run(
    site,
    query,
    JSON.stringify(answer),
    now.toISOString(),
  );
  // Old answers go when new ones come: the table never grows past a day of lookups.
  cached(db, `DELETE FROM wikipedia_cache WHERE fetched_at < ?`).run(new Date(now.getTime() - WIKIPEDIA_CACHE_MS).toISOString());
}

const shape = (a: WikiAnswer): Record<string, unknown> =>
  a.disambiguation ? { ...a, hint: 'this is a disambiguation page listing meanings; call wikipedia again with a more specific query' } : { ...a };

export const wikipediaTool = defineTool({
  name: 'wikipedia',
  description: "Look something up on Wikipedia: the best-matching article's title, the start of its introduction, and its URL.",
  input: z.strictObject({ query: z.string().trim().min(1).max(MAX_QUERY) }),
  effect: 'read',
  available: (settings) => settings.wikipedia,
  async run({ query }, ctx): Promise<ToolOutcome> {
    const site = readSettings(ctx.db).wikipediaUrl;
    const key = query.normalize('NFC').toLowerCase();
    const now = ctx.services.now();
    const hit = fromCache(ctx.db, site, key, now);
    if (hit !== undefined) return hit ? { ok: true, value: shape(hit) } : noMatch(query);
    const { signal } = timeLimit(WIKIPEDIA_TIMEOUT_MS, [ctx.signal]);
    try {
      const answer = await lookUp(ctx.services.fetch, site, query, signal);
      remember(ctx.db, site, key, answer, now);
      return answer ? { ok: true, value: shape(answer) } : noMatch(query);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      if (e instanceof WikiFailure) return { ok: false, code: 'failed', error: `wikipedia: ${e.error}`, hint: e.hint };
      if (signal.aborted)
        return { ok: false, code: 'failed', error: `wikipedia: ${site} did not answer within ${WIKIPEDIA_TIMEOUT_MS / 1000} s`, hint: 'the site is slow or unreachable; answer without Wikipedia' };
      return { ok: false, code: 'failed', error: `wikipedia: ${e instanceof Error ? e.message : String(e)}`, hint: 'answer without Wikipedia' };
    }
  },
});

function noMatch(query: string): ToolOutcome {
  return { ok: false, code: 'failed', error: `wikipedia: no article matches "${query.slice(0, 80)}"`, hint: 'try other or fewer words, or the name in the language of the site' };
}
