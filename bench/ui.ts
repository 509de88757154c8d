// UI benchmark, in Chromium through the web host (`tidy serve`), on data seeded through the core API:
// opening the Actions panel with 100k log entries (and scrolling/paging through them), rendering a
// 1,000-message conversation with plain-text answers and one with Markdown answers (and their ratio),
// and streaming a 2,000-token Markdown answer from the fake model server (the longest frame).
// Timings are taken inside the page (performance.now, to the next frame).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import type { Browser, Page } from 'playwright-core';
import { addTask, openDatabase } from '../src-main/core';
import { createConversation, createTraceWriter } from '../src-main/core/agent';
import { AgentEvent, type AgentEventBody } from '../src-shared/events';
import { startFakeOpenAI } from '../test/fakes/openai-server';
import { launchChromium } from '../test/support/browser';
import { tidy } from '../test/support/cli';
import { buildRendererOnce } from '../test/support/renderer';
import { startServe } from '../test/support/serve';
import { benchCalendarWeek } from './calendar-ui';
import { report, time } from './util';

const ENTRIES = 100_000;
const PER_RUN = 10;
const TURNS = 500; // a request and its answer each: 1,000 messages
const RUNS = 5;
const PLAIN = 'A very long conversation';
const MARKDOWN = 'A very long Markdown conversation';
const STREAM_TOKENS = 2000;
/** `BENCH_UI=stream npm run bench ui`: only the streaming figure, on an empty database (minutes faster). */
const STREAM_ONLY = process.env['BENCH_UI'] === 'stream';

/** An answer of 1 to 5 lines of plain text, as models without Markdown write. */
const plainAnswer = (t: number): string =>
  Array.from({ length: 1 + (t % 5) }, (_, k) => `Line ${k + 1} of answer ${t}: Buy milk, bake the cake and call the florist.`).join('\n');

/** An answer of 1 to 5 Markdown blocks of about the same length: emphasis, code, a list, a link, a table, a code block. */
const MD_BLOCKS = [
  'I moved **Bake the cake** to *Birthday* with `move_task` and `create_project`.',
  '- Buy **milk** for the cake\n- Call the [florist](https://example.org/florist)',
  '| Task | Project |\n|------|---------|\n| Buy milk | Birthday |',
  '```ts\nconst done = tasks.filter((t) => t.done);\n```',
  '> Undo any change from the **Actions** panel.',
];
const markdownAnswer = (t: number): string => [`This is answer ${t}: done.`, ...MD_BLOCKS.slice(0, 1 + (t % 5))].join('\n\n');

/** A Markdown answer of at least `tokens` tokens: headings, paragraphs, lists, tables and code, like a long real one. */
function longMarkdownAnswer(tokens: number): string {
  const parts: string[] = [];
  for (let i = 1; countTokens(parts.join('\n\n')) < tokens; i++) {
    parts.push(
      `## Step ${i}`,
      `For step ${i} I read your **inbox**, grouped the *related* tasks and called \`move_task\` for each; see [the guide](https://example.org/guide/${i}).`,
      `- Buy milk for the cake (${i})\n- Call the florist about the flowers\n  - ask for tulips\n- Book the room`,
      `| Task | Project | Due |\n|------|---------|-----|\n| Bake the cake | Birthday | Friday |\n| Slides | PyData | Monday |`,
      `\`\`\`ts\nconst moved${i} = tasks.filter((t) => t.project === 'Inbox').map((t) => move(t.id, 'Birthday'));\n\`\`\``,
    );
  }
  return parts.join('\n\n');
}

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

  // Two conversations of 500 runs each, written the way a live run writes its trace: plain answers and Markdown ones.
  const trace = createTraceWriter(db);
  for (const [title, answerOf, prefix, start] of [
    [PLAIN, plainAnswer, 'rc', Date.parse('2026-03-01T09:00:00.000Z')],
    [MARKDOWN, markdownAnswer, 'rm', Date.parse('2026-03-02T09:00:00.000Z')],
  ] as const) {
    seedConversation(trace, createConversation(db, title), answerOf, prefix, start);
  }
  db.close();
}

function seedConversation(trace: ReturnType<typeof createTraceWriter>, conversationId: string, answerOf: (t: number) => string, prefix: string, start: number): void {
  for (let t = 0; t < TURNS; t++) {
    const runId = `${prefix}${t}`;
    const request = `Request number ${t}: what is left in the birthday project?`;
    const answer = answerOf(t);
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
}

export async function benchUi(): Promise<void> {
  console.log('UI (Chromium through tidy serve)');
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-ui-'));
  const dbPath = join(dir, 'ui.db');
  const fake = await startFakeOpenAI();
  const served = await Promise.all([buildRendererOnce(), time(() => (STREAM_ONLY ? openDatabase(dbPath).close() : seed(dbPath)))]).then(async ([, seeded]) => {
    report(`seed ${ENTRIES.toLocaleString('en')} log entries and two ${TURNS * 2}-message conversations`, seeded, 'ms');
    for (const [key, value] of [
      ['baseUrl', fake.url],
      ['model', 'fake-model'],
    ] as const) {
      const r = tidy(dbPath, ['config', 'set', key, value]);
      if (r.code !== 0) throw new Error(r.stderr);
    }
    return startServe(dbPath);
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await page.goto(`${served.url}#/inbox`);
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();

    // --- the Actions panel --------------------------------------------------------------------------
    if (!STREAM_ONLY) {
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

      // --- a 1,000-message conversation, plain and Markdown ------------------------------------------
      // Both in the same run, taking turns, so the machine's load weighs on both alike.
      const renders: Record<string, number[]> = { [PLAIN]: [], [MARKDOWN]: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const title of [PLAIN, MARKDOWN]) renders[title]!.push(await openConversation(page, title));
      }
      const rows = (await page.evaluate(`document.querySelectorAll('[aria-label="Messages"] article').length`)) as number;
      const plain = renders[PLAIN]!;
      const markdown = renders[MARKDOWN]!;
      report(`render a ${TURNS * 2}-message conversation (open, scrolled to the end), first`, plain[0]!, 'ms', { max: 500, label: '500 ms' });
      report(`render a ${TURNS * 2}-message conversation, median of ${RUNS}`, median(plain), 'ms', { max: 250, label: '250 ms' });
      report(`  the same with Markdown answers, first`, markdown[0]!, 'ms');
      report(`  the same with Markdown answers, median of ${RUNS}`, median(markdown), 'ms');
      report('  Markdown / plain text, first', markdown[0]! / plain[0]!, '×');
      report('  Markdown / plain text, medians', median(markdown) / median(plain), '×', { max: 1.5, label: '1.5×' });
      console.log(`  ${'messages in the DOM (virtualised)'.padEnd(58)} ${rows} of ${TURNS * 2}`);

    }

    // --- streaming a long Markdown answer ------------------------------------------------------------
    const answer = longMarkdownAnswer(STREAM_TOKENS);
    if (STREAM_ONLY) await page.locator('nav[aria-label="Main"] button', { hasText: 'Chat' }).first().click();
    fake.enqueue({ text: answer, chunkDelayMs: 5 });
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('Plan the birthday, step by step');
    // Every frame from the message sent to the answer finished: the time between two animation frames.
    await page.evaluate(`(() => {
      const frames = (window.__frames = []);
      const start = performance.now();
      let last = start;
      const tick = () => {
        const now = performance.now();
        // The frame's length, and when it ended (ms after the message was sent).
        frames.push([now - last, now - start]);
        last = now;
        if (!window.__stopFrames) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })()`);
    // What the page's main thread did meanwhile (Chrome's own counters): layouts and style recalculations
    // are counts, so they compare across runs on a busy machine where frame times are noisy.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async (): Promise<Record<string, number>> =>
      Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
    const m0 = await metrics();
    const t0 = Date.now();
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    // Done when the answer is no longer busy; polled from here (the page's CSP forbids waitForFunction's eval).
    const finished = `(() => {
      const answer = [...document.querySelectorAll('[aria-label="Messages"] article[aria-label="Tidy"]')].at(-1);
      return answer?.getAttribute('aria-busy') === 'false' && answer.textContent.includes('Step 1');
    })()`;
    while (!(await page.evaluate(finished))) {
      if (Date.now() - t0 > 120_000) throw new Error('the streamed answer did not finish in 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const last = page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Tidy' }).last();
    const streamMs = Date.now() - t0;
    const timed = (await page.evaluate(`(() => { window.__stopFrames = true; return window.__frames.slice(1); })()`)) as [number, number][];
    const frames = timed.map(([ms]) => ms);
    const longest = timed.reduce((a, b) => (b[0] > a[0] ? b : a));
    const m1 = await metrics();
    const tables = await last.locator('table').count();
    frames.sort((a, b) => a - b);
    console.log(`  ${`stream a ${countTokens(answer).toLocaleString('en')}-token Markdown answer (${answer.length.toLocaleString('en')} chars)`.padEnd(58)} ${(streamMs / 1000).toFixed(1)} s, ${frames.length} frames, ${tables} tables`);
    report('  frame time while streaming, 95th percentile', frames[Math.floor(frames.length * 0.95)]!, 'ms');
    report('  longest frame while streaming', frames[frames.length - 1]!, 'ms', { max: 50, label: '50 ms' });
    // When it came (as the message went, while the answer grew, or as it finished) says where to look.
    console.log(`  ${'    when it came'.padEnd(58)} ${(longest[1] / 1000).toFixed(2)} s after the message was sent`);
    const d = (k: string): number => (m1[k] ?? 0) - (m0[k] ?? 0);
    console.log(`  ${'  layouts / style recalculations while streaming'.padEnd(58)} ${d('LayoutCount')} / ${d('RecalcStyleCount')} (${frames.length} frames)`);
    report('  main-thread script time while streaming', d('ScriptDuration') * 1000, 'ms');
    report('  main-thread layout time while streaming', d('LayoutDuration') * 1000, 'ms');
    // What this machine does to frames anyway: the same count of frames of a page doing nothing.
    const idle = await idleFrames(browser, frames.length);
    report(`  longest frame of an idle page, over ${idle.length} frames (the floor here)`, idle[idle.length - 1]!, 'ms');
  } finally {
    await browser.close();
    await served.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  await benchCalendarWeek();
}

/** `count` frame times of an empty page, sorted. */
async function idleFrames(browser: Browser, count: number): Promise<number[]> {
  const page = await browser.newPage();
  try {
    await page.setContent('<p>idle</p>');
    const frames = (await page.evaluate(`new Promise((done) => {
      const frames = [];
      let last = performance.now();
      const tick = () => {
        const now = performance.now();
        frames.push(now - last);
        last = now;
        if (frames.length < ${count}) requestAnimationFrame(tick);
        else done(frames);
      };
      requestAnimationFrame(tick);
    })`)) as number[];
    return frames.sort((a, b) => a - b);
  } finally {
    await page.close();
  }
}

/** Opens the conversation `title` from the empty "new conversation" screen; ms until its end is painted. */
async function openConversation(page: Page, title: string): Promise<number> {
  await page.evaluate(openView('Chat', 'nav[aria-label="Conversations"] li button'));
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('heading', { name: 'New conversation' }).waitFor();
  return (await page.evaluate(`(async () => {
          const item = [...document.querySelectorAll('nav[aria-label="Conversations"] li button')].find((b) => b.textContent.includes(${JSON.stringify(title)}));
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
        })()`)) as number;
}
