/**
 * The whole stage of an end-to-end test of the chat: the fake OpenAI-compatible model
 * (test/fakes/openai-server.ts), a fresh database seeded with seed 001's inbox and pointed at that model,
 * `tidy serve` on it, and Chromium with a page on the served UI. One call sets it up, `close` takes it down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI, type FakeServerOptions } from '../fakes/openai-server';
import { launchChromium, openPage, type OpenedPage, type PageOptions } from './browser';
import { buildRendererOnce } from './renderer';
import { seedForFake, startServe, type Served } from './serve';

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
