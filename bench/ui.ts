// UI benchmark, in Chromium through the web host (`tidy serve`), on data seeded through the core API:
// opening the Actions panel with 100k log entries (and scrolling/paging through them), and rendering a
// 1,000-message conversation. Timings are taken inside the page (performance.now, to the next frame).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { addTask, openDatabase } from '../src-main/core';
import { createConversation, createTraceWriter } from '../src-main/core/agent';
import { AgentEvent, type AgentEventBody } from '../src-shared/events';
import { buildRendererOnce } from '../test/support/renderer';
import { startServe } from '../test/support/serve';
import { report, time } from './util';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ENTRIES = 100_000;
const PER_RUN = 10;
const TURNS = 500; // a request and its answer each: 1,000 messages
const RUNS = 5;

/** Page code (a string: bench/ is type-checked without DOM types). Resolves after the frame that shows `selector`. */
const untilShown = (selector: string) => `new Promise((resolve) => {
  const check = () => (document.querySelector(${JSON.stringify(selector)}) ? requestAnimationFrame(() => setTimeout(resolve, 0)) : requestAnimationFrame(check));
  check();
})`;

/** Clicks the sidebar entry `view` and measures until `selector` has been painted. */
const openView = (view: string, selector: string) => `(async () => {
  const button = [...document.querySelectorAll('nav[aria-label="Main"] button')].find((b) => b.textContent.trim().startsWith(${JSON.stringify(view)}));
  const t0 = performance.now();
  button.click();
  await ${untilShown(selector)};
  return performance.now() - t0;
})()`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function seed(path: string): void {
  const db = openDatabase(path);
  db.transaction(() => {
    for (let r = 0; r < ENTRIES / PER_RUN; r++) {
      const ctx = { requestId: `rb${r}`, source: 'agent' as const };
      for (let i = 0; i < PER_RUN; i++) addTask(db, ctx, { content: `Bench task ${r * PER_RUN + i}: ${'call the florist about the flowers '.slice(0, 10 + (i % 7) * 4)}` });
    }
  })();

  // A conversation of 500 runs, written the way a live run writes its trace.
  const trace = createTraceWriter(db);
  const conversationId = createConversation(db, 'A very long conversation');
  const start = Date.parse('2026-03-01T09:00:00.000Z');
  for (let t = 0; t < TURNS; t++) {
    const runId = `rc${t}`;
    const request = `Request number ${t}: what is left in the birthday project?`;
    const answer = Array.from({ length: 1 + (t % 5) }, (_, k) => `Line ${k + 1} of answer ${t}: Buy milk, bake the cake and call the florist.`).join('\n');
    const at = (s: number) => new Date(start + t * 60_000 + s * 1000).toISOString();
    const bodies: AgentEventBody[] = [
      { type: 'run_started', conversationId, request, model: 'bench-model', baseUrl: 'http://127.0.0.1:9/v1', protocol: 'native' },
      { type: 'answer', text: answer },
      { type: 'run_finished', status: 'done', actions: 0, usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 } },
    ];
    trace.messages(conversationId, runId, [
      { role: 'user', content: request },
      { role: 'assistant', content: answer },
    ]);
    // run_finished writes the batch (and the messages with it).
    bodies.forEach((b, seq) => trace.event(AgentEvent.parse({ ...b, runId, seq, at: at(seq) })));
  }
  db.close();
}

export async function benchUi(): Promise<void> {
  console.log('UI (Chromium through tidy serve)');
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-ui-'));
  const dbPath = join(dir, 'ui.db');
  const served = await Promise.all([buildRendererOnce(), time(() => seed(dbPath))]).then(async ([, seeded]) => {
    report(`seed ${ENTRIES.toLocaleString('en')} log entries and a ${TURNS * 2}-message conversation`, seeded, 'ms');
    return startServe(dbPath);
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await page.goto(`${served.url}#/inbox`);
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();

    // --- the Actions panel --------------------------------------------------------------------------
    const opens: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      opens.push((await page.evaluate(openView('Actions', '[aria-label="Action log"] [role="listitem"] button'))) as number);
      await page.evaluate(openView('Inbox', '[aria-label="Inbox tasks"]'));
    }
    report(`open the Actions panel (${ENTRIES.toLocaleString('en')} entries), first`, opens[0]!, 'ms', { max: 500, label: '500 ms' });
    report(`open the Actions panel, median of ${RUNS}`, median(opens), 'ms', { max: 200, label: '200 ms' });

    // Scroll through the log a screenful per frame (far faster than a person): the panel pages older
    // entries in as the end comes near. Frame times are recorded until 5,000 entries are loaded.
    await page.evaluate(openView('Actions', '[aria-label="Action log"] [role="listitem"] button'));
    const scroll = (await page.evaluate(`(async () => {
      const box = document.querySelector('[aria-label="Action log"]');
      const frames = [];
      const t0 = performance.now();
      let last = t0;
      const loaded = () => box.querySelectorAll('[role="listitem"]').length;
      let maxRows = 0;
      while (performance.now() - t0 < 20000) {
        box.scrollTop += box.clientHeight;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        frames.push(now - last);
        last = now;
        maxRows = Math.max(maxRows, loaded());
        const badge = document.querySelector('[aria-label$="entries loaded"]');
        const count = badge ? Number(badge.getAttribute('aria-label').split(' ')[0]) : 0;
        // The panel prefetches ahead of the scroll, so the end is never reached: stop at 5,000 loaded.
        if (count >= 5000) break;
      }
      frames.sort((a, b) => a - b);
      return { ms: performance.now() - t0, frames: frames.length, p95: frames[Math.floor(frames.length * 0.95)], max: frames[frames.length - 1], maxRows };
    })()`)) as { ms: number; frames: number; p95: number; max: number; maxRows: number };
    report(`scroll until 5,000 entries are loaded (${scroll.frames} frames, a screenful each)`, scroll.ms, 'ms');
    report('  frame time while scrolling, 95th percentile', scroll.p95, 'ms', { max: 50, label: '50 ms' });
    report('  longest frame (includes a page arriving)', scroll.max, 'ms');
    console.log(`  ${'rows in the DOM at most (virtualised)'.padEnd(58)} ${scroll.maxRows}`);

    // --- a 1,000-message conversation ---------------------------------------------------------------
    const renders: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.evaluate(openView('Chat', 'nav[aria-label="Conversations"] li button'));
      // Start from the empty "new conversation" screen each time, then open the long one.
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByRole('heading', { name: 'New conversation' }).waitFor();
      renders.push(
        (await page.evaluate(`(async () => {
          const item = [...document.querySelectorAll('nav[aria-label="Conversations"] li button')].find((b) => b.textContent.includes('A very long conversation'));
          const t0 = performance.now();
          item.click();
          await new Promise((resolve) => {
            const check = () => {
              const log = document.querySelector('[aria-label="Messages"]');
              const done = log && log.textContent.includes('answer ${TURNS - 1}:') && log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
              if (done) requestAnimationFrame(() => setTimeout(resolve, 0));
              else requestAnimationFrame(check);
            };
            check();
          });
          return performance.now() - t0;
        })()`)) as number,
      );
    }
    const rows = (await page.evaluate(`document.querySelectorAll('[aria-label="Messages"] article').length`)) as number;
    report(`render a ${TURNS * 2}-message conversation (open, scrolled to the end), first`, renders[0]!, 'ms', { max: 500, label: '500 ms' });
    report(`render a ${TURNS * 2}-message conversation, median of ${RUNS}`, median(renders), 'ms', { max: 250, label: '250 ms' });
    console.log(`  ${'messages in the DOM (virtualised)'.padEnd(58)} ${rows} of ${TURNS * 2}`);
  } finally {
    await browser.close();
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
