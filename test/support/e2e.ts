/**
 * The whole stage of an end-to-end test. Of the chat (`startStage`): the fake OpenAI-compatible model
 * (test/fakes/openai-server.ts), a fresh database seeded with seed 001's inbox and pointed at that model,
 * `tidy serve` on it, and Chromium with a page on the served UI. Of the data views (`startDataStage`): a
 * fresh database the test fills through the core's own operations, `tidy serve`, and Chromium with the
 * window open. One call sets it up, `close` takes it down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI, type FakeServerOptions } from '../fakes/openai-server';
import { launchChromium, openPage, type OpenedPage, type PageOptions } from './browser';
import { buildRendererOnce } from './renderer';
import { seedForFake, startServe, type Served } from './serve';
import { newUserRequest, openDatabase, type ActionContext, type Db } from '../../src-main/core';

/** A local date `days` from today as stored, with `time` (HH:MM) if given: computed from now, so true on any day. */
export function localDay(days: number, time?: string): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  const iso = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return time ? `${iso}T${time}` : iso;
}

export interface DataStage extends OpenedPage {
  dir: string;
  dbPath: string;
  served: Served;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * A data views' stage: `seed` fills a fresh database (each change its own user request, `ctx()`), then
 * `tidy serve` on it and the window in Chromium (1280×800 unless `page` says otherwise), ready once its
 * Message box shows. `name` names the temporary folder (tidy-e2e-<name>-…).
 */
export async function startDataStage(name: string, seed: (db: Db, ctx: () => ActionContext) => void, pageOptions: PageOptions = {}): Promise<DataStage> {
  await buildRendererOnce();
  const dir = mkdtempSync(join(tmpdir(), `tidy-e2e-${name}-`));
  const dbPath = join(dir, 'tidy.db');
  let served: Served | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await served?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const db = openDatabase(dbPath);
    try {
      seed(db, () => newUserRequest(db));
    } finally {
      db.close();
    }
    served = await startServe(dbPath);
    browser = await launchChromium();
    const opened = await openPage(browser, served.url, { viewport: { width: 1280, height: 800 }, timeout: 20_000, ...pageOptions });
    await opened.page.getByRole('textbox', { name: 'Message' }).waitFor();
    return { ...opened, dir, dbPath, served, browser, close };
  } catch (e) {
    await close();
    throw e;
  }
}

export interface Stage extends OpenedPage {
  fake: FakeOpenAI;
  dir: string;
  dbPath: string;
  served: Served;
  browser: Browser;
  /** The seeded inbox tasks' ids by content (empty when the test seeds its own way). */
  ids: Map<string, string>;
  close(): Promise<void>;
}

export interface StageOptions {
  fake?: FakeServerOptions;
  /** Seeds the database instead of seed 001's inbox (it must point Tidy at `fakeUrl` itself, see seedForFake). */
  seed?: (dbPath: string, fakeUrl: string) => void;
  page?: PageOptions;
}

/** Sets the stage; `name` names the temporary folder (tidy-e2e-<name>-…). */
export async function startStage(name: string, { fake: fakeOptions, seed, page: pageOptions }: StageOptions = {}): Promise<Stage> {
  const [, fake] = await Promise.all([buildRendererOnce(), startFakeOpenAI(fakeOptions)]);
  const dir = mkdtempSync(join(tmpdir(), `tidy-e2e-${name}-`));
  const dbPath = join(dir, 'tidy.db');
  let ids = new Map<string, string>();
  let served: Served | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await served?.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (seed) seed(dbPath, fake.url);
    else ids = seedForFake(dbPath, fake.url);
    served = await startServe(dbPath);
    browser = await launchChromium();
    const opened = await openPage(browser, served.url, pageOptions);
    return { ...opened, fake, dir, dbPath, served, browser, ids, close };
  } catch (e) {
    await close();
    throw e;
  }
}
