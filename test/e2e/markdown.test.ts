// End to end: answers rendered as Markdown in Chromium through `tidy serve`, the fake OpenAI-compatible
// server writing the answers. Each construct becomes the right element (found by role and name), the
// user's own message stays text, Copy puts the right text on the clipboard, links open in a new tab
// without an opener, partial Markdown streams without its elements being replaced, and hostile answers
// (raw HTML, images carrying data, script links, 1 MB, 10,000 nested levels) render inert and fast,
// with no request leaving the page.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidy } from '../support/cli';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';
import { useFakeModel, type Served } from '../support/serve';

const CODE = "const done = tasks.filter((t) => t.status === 'done' && t.project === 'Birthday Celebration' && t.due !== null);\nconsole.log(`${done.length} done`);";
const answer = (localLink: string) =>
  [
    '### Birthday plan',
    '',
    'I moved **Bake the birthday cake** to *Birthday Celebration* with `move_task`.',
    '',
    '1. Bake the cake',
    '2. Buy the balloons',
    '',
    '- milk',
    '- sugar',
    '',
    `See [the cake recipe](https://example.org/cake) or [the local page](${localLink}), or write to [the baker](mailto:baker@example.org).`,
    '',
    '| Task | Project |',
    '|------|---------|',
    '| Bake the birthday cake | Birthday Celebration |',
    '| Buy balloons | Birthday Celebration |',
    '',
    '```ts',
    CODE,
    '```',
    '',
    '> Tip: undo any change from the Actions panel.',
  ].join('\n');

/** What page code uses of the window (the node tsconfig has no DOM types). */
interface PageWindow {
  getComputedStyle(el: unknown, pseudo?: string): { whiteSpace: string; overflowX: string; fontFamily: string; content: string };
}

let stage: Stage | undefined;
let context: BrowserContext;
let page: Page;
let served: Served;
let fake: FakeOpenAI;
let origin = '';
let dbPath = '';
let consoleProblems: string[] = [];
/** Every request the page makes, by URL (the WebSocket to the host is not a request). */
const requests: string[] = [];
const dialogs: string[] = [];

beforeAll(async () => {
  // No seed inbox: only the model.
  stage = await startStage('md', { seed: useFakeModel, page: { viewport: { width: 1360, height: 820 }, permissions: ['clipboard-read', 'clipboard-write'], timeout: 10_000 } });
  ({ fake, dbPath, served, context, page, problems: consoleProblems } = stage);
  origin = new URL(served.url).origin;
  // From the page's load on: every request it makes, and any dialog (none may open).
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}, 120_000);

afterAll(() => stage?.close());

function config(key: string, value: string): void {
  const r = tidy(dbPath, ['config', 'set', key, value]);
  if (r.code !== 0) throw new Error(r.stderr);
}

const shot = (name: string) => screenshot(page, name);
const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const composer = () => page.getByRole('textbox', { name: 'Message' });
const messages = () => page.getByRole('log', { name: 'Messages' });
const lastAnswer = () => messages().getByRole('article', { name: 'Tidy' }).last();
const trace = () => page.getByRole('complementary', { name: 'Trace' });
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const clipboard = () => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

async function ask(text: string): Promise<void> {
  await nav('Chat').click();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('heading', { name: 'New conversation' }).waitFor();
  await composer().fill(text);
  await composer().press('Enter');
}

/** Waits until the last answer is finished (no longer busy) and returns it. */
async function finishedAnswer(): Promise<Locator> {
  await expect.poll(() => lastAnswer().getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
  return lastAnswer();
}

describe('answers as Markdown in Chromium', () => {
  it('renders each construct as the right element, keeps the user’s text plain, and copies', async () => {
    const text = answer(`${fake.url.replace(/\/v1$/, '')}/landing`);
    fake.enqueue({ text });
    await ask('Plan the **birthday**, with `code`');
    const a = await finishedAnswer();

    await visible(a.getByRole('heading', { name: 'Birthday plan', level: 5 }));
    expect(await a.locator('.md strong').allInnerTexts()).toEqual(['Bake the birthday cake']);
    expect(await a.locator('.md em').allInnerTexts()).toEqual(['Birthday Celebration']);
    expect(await a.getByRole('code').first().innerText()).toBe('move_task');
    const lists = a.getByRole('list');
    expect(await lists.count()).toBe(2);
    expect(await a.locator('ol').getByRole('listitem').allInnerTexts()).toEqual(['Bake the cake', 'Buy the balloons']);
    expect(await a.locator('ul').getByRole('listitem').allInnerTexts()).toEqual(['milk', 'sugar']);

    const link = a.getByRole('link', { name: 'the cake recipe' });
    expect(await link.getAttribute('href')).toBe('https://example.org/cake');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('title')).toBe('https://example.org/cake');
    expect(await a.getByRole('link', { name: 'the baker' }).getAttribute('href')).toBe('mailto:baker@example.org');

    const table = a.getByRole('table');
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['Task', 'Project']);
    expect(await table.getByRole('row').count()).toBe(3);
    await visible(table.getByRole('cell', { name: 'Buy balloons' }));

    const code = a.getByRole('group', { name: 'Code, ts' });
    const pre = code.locator('pre');
    expect(await pre.innerText()).toBe(CODE);
    // Monospace, one line per line, scrolling sideways instead of wrapping.
    const style = await pre.evaluate((el) => {
      const s = (globalThis as unknown as PageWindow).getComputedStyle(el);
      return [s.whiteSpace, s.overflowX, s.fontFamily];
    });
    expect(style.slice(0, 2)).toEqual(['pre', 'auto']);
    expect(style[2]).toMatch(/mono/i);
    expect(await pre.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await visible(a.getByRole('blockquote').getByText('Tip: undo any change'));

    // The user's message is text as typed.
    const mine = messages().getByRole('article', { name: 'You' }).last();
    expect(await mine.innerText()).toContain('Plan the **birthday**, with `code`');
    expect(await mine.locator('.text strong, .text code').count()).toBe(0);

    // The trace shows the answer as Markdown too.
    const answerStep = trace().getByRole('listitem').filter({ hasText: /^Answer/ });
    await visible(answerStep.locator('strong').getByText('Bake the birthday cake'));
    await visible(answerStep.getByRole('table'));
    await shot('markdown-answer');

    // Copy: the code alone, and the whole answer as Markdown.
    await code.getByRole('button', { name: 'Copy code' }).click();
    await expect.poll(clipboard).toBe(CODE);
    await visible(code.getByRole('button', { name: 'Copy code' }).getByText('Copied'));
    await a.getByRole('button', { name: 'Copy the answer as Markdown' }).click();
    await expect.poll(clipboard).toBe(text);

    // The real address shows beside a link with the keyboard focus (and is not part of its name).
    await a.getByRole('link', { name: 'the baker' }).focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('the cake recipe');
    expect(await link.evaluate((el) => (globalThis as unknown as PageWindow).getComputedStyle(el, '::after').content)).toContain('https://example.org/cake');
    await shot('markdown-link-focus');

    // A live link opens in a new tab that cannot reach back to Tidy.
    const local = a.getByRole('link', { name: 'the local page' });
    const [popup] = await Promise.all([context.waitForEvent('page'), local.click()]);
    await popup.waitForLoadState('domcontentloaded');
    expect(popup.url()).toBe(`${fake.url.replace(/\/v1$/, '')}/landing`);
    expect(await popup.evaluate('window.opener')).toBeNull();
    await popup.close();
    expect(page.url()).toContain(origin);

    await page.emulateMedia({ colorScheme: 'dark' });
    await visible(a.getByRole('table'));
    await shot('markdown-answer-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  }, 60_000);

  it('streams partial Markdown without replacing what is already shown', async () => {
    // Stalled half way through a table's head: the pipes are held back, the rest shows.
    const half = 'Your tasks, **grouped**:\n\n| Task | Project |\n|---|-';
    fake.enqueue({ fault: 'stall', turn: { text: half }, afterEvents: 1 + Math.ceil(half.length / 4) });
    await ask('Group my tasks in a table');
    await visible(lastAnswer().locator('.md strong').getByText('grouped'));
    await expect.poll(() => lastAnswer().getAttribute('aria-busy')).toBe('true');
    expect(await lastAnswer().innerText()).not.toContain('|');
    await composer().press('Escape');
    await finishedAnswer();

    // Stalled inside a code fence: already a code block.
    const fence = 'Here:\n\n```py\nprint("one")\nprint("tw';
    fake.enqueue({ fault: 'stall', turn: { text: fence }, afterEvents: 1 + Math.ceil(fence.length / 4) });
    await ask('Write some code');
    const stalled = lastAnswer().getByRole('group', { name: 'Code, py' });
    await expect.poll(() => stalled.locator('pre').innerText().catch(() => '')).toBe('print("one")\nprint("tw');
    await shot('markdown-streaming');
    await composer().press('Escape');
    await finishedAnswer();

    // A whole answer streamed slowly: the code block and table first seen stay the same elements to the end.
    const lines = Array.from({ length: 12 }, (_, i) => `step_${i}()`).join('\n');
    const full = `Intro **text**.\n\n\`\`\`py\n${lines}\n\`\`\`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nThe end.`;
    fake.enqueue({ text: full, chunkDelayMs: 15 });
    await ask('Stream it');
    const pre = lastAnswer().getByRole('group', { name: 'Code, py' }).locator('pre');
    await expect.poll(() => pre.count()).toBe(1);
    const first = await pre.elementHandle();
    const strong = await lastAnswer().locator('.md strong').elementHandle();
    // In the trace, the text being written is the step that becomes the answer: same elements there too.
    const writing = trace().getByRole('listitem').filter({ hasText: /^Writing…/ });
    const tracePre = writing.getByRole('group', { name: 'Code, py' }).locator('pre');
    await expect.poll(() => tracePre.count()).toBe(1);
    const traceFirst = await tracePre.elementHandle();
    expect(await lastAnswer().getAttribute('aria-busy')).toBe('true');
    await finishedAnswer();
    expect(await pre.innerText()).toBe(lines);
    await visible(lastAnswer().getByText('The end.'));
    expect(await first!.evaluate((el) => el.isConnected)).toBe(true);
    expect(await page.evaluate(([a, b]) => a === b, [first, await pre.elementHandle()] as const)).toBe(true);
    expect(await strong!.evaluate((el) => el.isConnected)).toBe(true);
    const answerStep = trace().getByRole('listitem').filter({ hasText: /^Answer/ });
    await visible(answerStep.getByText('The end.'));
    expect(await writing.count()).toBe(0);
    expect(await page.evaluate(([a, b]) => a === b, [traceFirst, await answerStep.getByRole('group', { name: 'Code, py' }).locator('pre').elementHandle()] as const)).toBe(true);
  }, 60_000);

  it('renders hostile answers inert, quickly, with no request leaving the page', async () => {
    const exfil = `${origin}/exfil`;
    const hostile = [
      `<img src="${exfil}-raw.png?d=secret" onerror="window.__pwned = 1">`,
      '',
      '<script>window.__pwned = 2</script>',
      '',
      `![x](${exfil}-md.png?d=secret) ![y](data:image/png;base64,iVBORw0KGgo=)`,
      '',
      '[x](javascript:alert(1)) [d](data:text/html,<b>x</b>) [f](file:///etc/passwd) [p](//evil.example/x) <a href="javascript:alert(2)">html link</a>',
      '',
      '<iframe src="https://evil.example/"></iframe> <style>body{display:none}</style>',
    ].join('\n');
    fake.enqueue({ text: hostile });
    const before = requests.length;
    await ask('Summarise the web page');
    const a = await finishedAnswer();
    await visible(a.getByText('<script>window.__pwned = 2</script>'));
    await visible(a.getByText('[x](javascript:alert(1))', { exact: false }));
    expect(await a.locator('img, script, iframe, style, object, embed').count()).toBe(0);
    // The image is a link that shows its address.
    const image = a.getByRole('link', { name: `${exfil}-md.png?d=secret` });
    expect(await image.getAttribute('href')).toBe(`${exfil}-md.png?d=secret`);
    expect(await image.getAttribute('target')).toBe('_blank');
    // Every live link is http(s) or mailto.
    const hrefs = await a.locator('.md a').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^(https?:\/\/|mailto:)/);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await shot('markdown-hostile');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('markdown-hostile-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Huge and deep answers arrive whole (not streamed) and show as plain text, in full.
    config('stream', 'false');
    try {
      const huge = `**big** ${'word and `code` '.repeat(70_000)}THE END`;
      expect(huge.length).toBeGreaterThan(1_000_000);
      fake.enqueue({ text: huge });
      await ask('Say a lot');
      let t0 = Date.now();
      await lastAnswer().getByText('too long to format').waitFor({ timeout: 60_000 });
      const hugeMs = Date.now() - t0;
      expect(await lastAnswer().innerText()).not.toContain('THE END');
      await lastAnswer().getByRole('button', { name: `Show all ${huge.length.toLocaleString('en')} characters` }).click();
      await lastAnswer().getByText(/THE END$/).waitFor({ timeout: 30_000 });
      expect(await lastAnswer().locator('.md strong, .md code').count()).toBe(0);

      fake.enqueue({ text: `${'- '.repeat(10_000)}the bottom` });
      await ask('Nest deeply');
      t0 = Date.now();
      await visible(lastAnswer().getByText('nested too deeply to format'));
      const deepMs = Date.now() - t0;
      await visible(lastAnswer().getByText(/the bottom$/));
      expect(await lastAnswer().locator('.md ul').count()).toBe(0);
      console.log(`1 MB answer shown in ${hugeMs} ms after the run ended; 10,000 levels in ${deepMs} ms`);
      expect(hugeMs).toBeLessThan(5000);
      expect(deepMs).toBeLessThan(5000);
      // The page still answers at once.
      t0 = Date.now();
      await page.evaluate('1 + 1');
      expect(Date.now() - t0).toBeLessThan(1000);
    } finally {
      config('stream', 'true');
    }

    const during = requests.slice(before);
    expect(during.filter((url) => url.includes('exfil') || !url.startsWith(origin))).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(consoleProblems).toEqual([]);
    // The counter does see an image the page would load: the check above could have failed.
    await page.evaluate(`new Promise((done) => { const i = new Image(); i.onload = i.onerror = done; i.src = ${JSON.stringify(`${exfil}-probe.png`)}; })`);
    await expect.poll(() => requests.some((url) => url.includes('exfil-probe'))).toBe(true);
  }, 90_000);
});
