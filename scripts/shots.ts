// `npm run shots [scene …]`: screenshots of the screens a newcomer meets, each in light and dark at
// 1280×800 and at 800 px wide, written to a folder it prints (test-results/shots/<time>/). Not a test:
// pictures to open and look at after UI work. It starts the web host (`tidy serve`) on seeded data with
// the fake model server, drives the window in Debian's Chromium by role and name, and goes on past a
// scene that fails (said on stderr, exit code 1). Give scene names to take only those.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { addMemory, addTask, createProject, newUserRequest, openDatabase, readSettings, writeSetting } from '../src-main/core';
import { startFakeOpenAI } from '../test/fakes/openai-server';
import { launchChromium, openPage } from '../test/support/browser';
import { REPO, tidy } from '../test/support/cli';
import { localDay, startStage, type Stage } from '../test/support/e2e';
import { NO_KEYCHAIN_ENV } from '../test/support/keyring';
import { buildRendererOnce } from '../test/support/renderer';
import { startServe } from '../test/support/serve';

const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const OUT = join(REPO, 'test-results', 'shots', stamp);
const only = new Set(process.argv.slice(2));
const written: string[] = [];
const failed: string[] = [];

interface Variant {
  name: string;
  width: number;
  height: number;
  scheme: 'light' | 'dark';
}

/** Light and dark at 1280×800, and at 800 px wide. */
const VARIANTS: readonly Variant[] = [
  { name: 'light', width: 1280, height: 800, scheme: 'light' },
  { name: 'dark', width: 1280, height: 800, scheme: 'dark' },
  { name: 'light-800', width: 800, height: 800, scheme: 'light' },
  { name: 'dark-800', width: 800, height: 800, scheme: 'dark' },
];

const settle = (page: Page) => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

/**
 * The four pictures of `page` as it is now; `focus` (if given) is scrolled into view in each, since the
 * narrower window lays the screen out again. The window is back at 1280×800 light afterwards.
 */
async function shoot(page: Page, name: string, focus?: Locator, variants: readonly Variant[] = VARIANTS): Promise<void> {
  for (const v of variants) {
    await page.setViewportSize({ width: v.width, height: v.height });
    await page.emulateMedia({ colorScheme: v.scheme });
    if (focus) await focus.first().scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => undefined);
    await settle(page);
    await page.waitForTimeout(150); // transitions (a picture, not a test)
    const path = join(OUT, `${name}-${v.name}.png`);
    // The window's frame never scrolls: only its panes do. Said when it did, since the picture shows a cut-off window.
    const shifted = await page.evaluate<string>(`(() => [document.scrollingElement, document.body, document.getElementById('root'), document.querySelector('.shell')].filter((e) => e && e.scrollTop > 0).map((e) => e.tagName + '.' + e.className + ' ' + e.scrollTop + ' px').join(', '))()`);
    if (shifted) console.error(`${name}-${v.name}: the window is scrolled: ${shifted}`);
    if (shifted && process.env['SHOTS_DEBUG']) console.error(await page.evaluate<string>(`(() => {
      const out = ['doc sh=' + document.scrollingElement.scrollHeight + ' ch=' + document.scrollingElement.clientHeight];
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        const top = r.top + document.scrollingElement.scrollTop, bottom = r.bottom + document.scrollingElement.scrollTop;
        if (bottom <= innerHeight + 1 && top >= -1) continue;
        if (getComputedStyle(el).position === 'absolute') out.push(el.tagName + '.' + el.className + ' top=' + Math.round(top) + ' bottom=' + Math.round(bottom) + ' pos=' + getComputedStyle(el).position);
      }
      return out.slice(0, 15).join('\\n');
    })()`));
    await page.screenshot({ path });
    written.push(path);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** One screen's pictures; a failure is said, with a picture of where it stopped (`page`), and the next scene goes on. */
async function sceneOf(name: string, run: () => Promise<void>, page?: Page): Promise<void> {
  if (only.size && !only.has(name)) return;
  const started = Date.now();
  try {
    await run();
    console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    failed.push(name);
    await page?.screenshot({ path: join(OUT, `FAILED-${name}.png`) }).catch(() => undefined);
    console.error(`${name} FAILED: ${String(e instanceof Error ? e.message : e).split('\n').slice(0, 4).join(' | ')}`);
  }
}

const visible = (l: Locator) => l.first().waitFor({ state: 'visible', timeout: 20_000 });

/** An iCalendar file of a team calendar all in 2020. */
const OLD_ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Tidy shots//EN',
  'X-WR-CALNAME:Old team',
  ...[
    ['o1', 'Kickoff 2020', '20200204T100000Z', '20200204T110000Z'],
    ['o2', 'Retro 2020', '20200312T100000Z', '20200312T110000Z'],
  ].flatMap(([uid, title, start, end]) => ['BEGIN:VEVENT', `UID:${uid}@shots`, 'DTSTAMP:20200101T000000Z', `SUMMARY:${title}`, `DTSTART:${start}`, `DTEND:${end}`, 'END:VEVENT']),
  'END:VCALENDAR',
  '',
].join('\r\n');

/** The first run: a fresh database, no keychain, an Ollama (the fake) whose model has a 4k context. */
async function firstRun(browser: Browser): Promise<void> {
  const ollama = await startFakeOpenAI({ models: ['qwen3:8b', 'llama3.2:latest'], routes: { 'POST /api/show': { parameters: 'num_ctx 4096', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } } } });
  const dir = mkdtempSync(join(tmpdir(), 'tidy-shots-firstrun-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...NO_KEYCHAIN_ENV, OLLAMA_HOST: `127.0.0.1:${ollama.port}` };
  for (const k of ['OPENAI_API_KEY', 'TIDY_BASE_URL', 'TIDY_MODEL']) delete env[k];
  const served = await startServe(join(dir, 'tidy.db'), env);
  try {
    const { context, page } = await openPage(browser, served.url, { viewport: { width: 1280, height: 800 }, timeout: 20_000, locale: 'en-US' });
    const welcome = page.getByRole('region', { name: 'Welcome to Tidy' });
    await visible(welcome.getByRole('radio', { name: /A local server\s*1 found/ }));
    await shoot(page, 'firstrun-welcome');
    await welcome.getByRole('radio', { name: /^OpenAI/ }).check();
    await welcome.getByRole('textbox', { name: 'API key' }).fill('sk-shots-0123456789abcdef');
    await welcome.getByRole('button', { name: 'Save key and test' }).click();
    const keep = welcome.getByRole('button', { name: 'Keep it for this session only' });
    await visible(keep);
    await shoot(page, 'firstrun-no-keychain', keep);
    await welcome.getByRole('radio', { name: /A local server/ }).check();
    await welcome.getByRole('combobox', { name: 'Model' }).selectOption('qwen3:8b');
    await welcome.getByRole('button', { name: 'Test and use' }).click();
    const anyway = welcome.getByRole('button', { name: 'Use it anyway' });
    await visible(anyway);
    await shoot(page, 'firstrun-context-warning', anyway);
    await context.close();
  } finally {
    await served.stop();
    await ollama.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Everything else, on one database: seed 001's inbox pointed at the fake model, and more data through the core and the CLI. */
async function theApp(stage: Stage): Promise<void> {
  const { page, fake, dbPath, ids } = stage;
  const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
  const main = () => page.getByRole('main');
  const row = (content: string) => page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: content, exact: true }) });
  const section = async (name: string) => {
    await nav('Settings').click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name, exact: true }).click();
    return page.getByRole('heading', { name, exact: true });
  };
  const scene = (name: string, run: () => Promise<void>) => sceneOf(name, run, page);
  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const send = async (text: string) => {
    await nav('Chat').click();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await composer().fill(text);
    await composer().press('Enter');
  };

  await scene('settings', async () => {
    await nav('Settings').click();
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await visible(sections);
    await shoot(page, 'settings-sections');
    const provider = await section('Model provider');
    await visible(provider);
    const more = page.getByRole('button', { name: /^More providers/ });
    if (await more.count()) await more.click();
    await shoot(page, 'settings-provider-more-providers', page.getByRole('list', { name: 'Profiles' }));
  });

  await scene('settings-keys', async () => {
    await section('Model provider');
    const keyField = page.getByRole('textbox', { name: 'API key' });
    await keyField.fill('sk-shots-0123456789abcdef');
    await page.getByRole('button', { name: 'Save key', exact: true }).click();
    const keep = page.getByRole('button', { name: 'Keep it for this session only' });
    await visible(keep);
    await shoot(page, 'settings-key-no-keychain', keep);
    await keep.click();
    await visible(page.getByRole('status', { name: 'Key status' }).filter({ hasText: 'for this session only' }));
    await shoot(page, 'settings-key-session-only', page.getByRole('status', { name: 'Key status' }));
    await page.getByRole('button', { name: 'Clear key' }).click();
  });

  await scene('settings-mcp', async () => {
    const heading = await section('MCP servers');
    await visible(heading);
    await page.getByRole('textbox', { name: 'Server name' }).fill('My Notes');
    await page.getByRole('textbox', { name: 'Command or URL' }).fill('npx -y notes-server');
    await page.getByRole('textbox', { name: 'Environment' }).fill('NOTES_TOKEN=secret-token-123\nREGION=eu');
    await visible(page.getByRole('note').filter({ hasText: 'Switched off' }));
    await shoot(page, 'settings-mcp', page.getByRole('note').filter({ hasText: 'Switched off' }));
    await shoot(page, 'settings-mcp-add-form', page.getByRole('button', { name: 'Add server' }));
  });

  await scene('settings-data', async () => {
    const heading = await section('Your data');
    await visible(heading);
    await shoot(page, 'settings-your-data', page.getByRole('group', { name: 'Restore' }));
  });

  await scene('settings-tray', async () => {
    const heading = await section('Tray');
    await visible(heading);
    await shoot(page, 'settings-tray', heading);
  });

  await scene('approval', async () => {
    const d = new Date();
    const day = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 7);
    const at = (h: number, m = 0) => new Date(day.getFullYear(), day.getMonth(), day.getDate(), h, m);
    const local = (t: Date) => `${localDay(7)}T${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}`;
    fake.enqueue(
      { toolCalls: [{ name: 'book_event', arguments: { title: 'Sync with Alice and Bob', start: at(11).toISOString(), end: at(11, 30).toISOString(), attendees: ['Alice'] } }] },
      { text: 'Booked it.' },
    );
    await send('Book a 30-minute meeting with Alice and Bob next week');
    const card = page.getByRole('group', { name: 'Approval needed: Book event' });
    await visible(card.getByRole('textbox', { name: 'Title' }));
    await card.getByRole('textbox', { name: 'Title' }).fill('Quarterly planning');
    await card.getByLabel('Start', { exact: true }).fill(local(at(14)));
    await card.getByLabel('End', { exact: true }).fill(local(at(14, 30)));
    await shoot(page, 'chat-approval-edited', card);
    await card.getByRole('button', { name: 'Approve' }).click();
    const done = page.getByRole('group', { name: 'Approval: Book event' });
    await visible(done.getByRole('status').filter({ hasText: 'Approved with your changes' }));
    await shoot(page, 'chat-approval-approved-with-changes', done);
  });

  await scene('redo-refused', async () => {
    const cake = ids.get('Bake the birthday cake')!;
    fake.enqueue(
      { toolCalls: [{ name: 'create_project', arguments: { name: 'Party' } }] },
      { toolCalls: [{ name: 'move_task', arguments: { task_id: cake, project_id: 'Party' } }] },
      { text: 'Moved the cake into Party.' },
    );
    await send('Put the cake task into a new Party project');
    const answer = page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Tidy' }).last();
    await visible(answer.getByText('Moved the cake into Party.'));
    const changes = answer.getByRole('region', { name: 'Changes' });
    await changes.getByRole('button', { name: 'Undo all changes' }).click();
    const list = changes.getByRole('list', { name: 'Changes, newest first' });
    if (!(await list.isVisible())) await changes.getByText(/^Created 1 project/).click();
    await visible(list.getByRole('button', { name: /^Redo: Created project/ }));
    if (tidy(dbPath, ['edit', cake, '--content', 'Bake the chocolate birthday cake']).code !== 0) throw new Error('tidy edit failed');
    await list.getByRole('button', { name: /^Redo: Created project/ }).click();
    await list.getByRole('button', { name: /^Redo: Moved/ }).click();
    const refusal = changes.getByRole('alert').filter({ hasText: "Can't redo this yet" });
    await visible(refusal);
    await shoot(page, 'chat-redo-refused', refusal);
    await refusal.getByRole('button', { name: 'Redo, undoing later changes' }).click();
  });

  await scene('notices', async () => {
    await nav(/^Inbox/).click();
    const add = page.getByRole('textbox', { name: 'New inbox task' });
    await add.fill('Buy a birthday card #Family');
    await add.press('Enter');
    await visible(page.locator('.notice').filter({ hasText: 'Added to Family' }));
    await page.getByRole('checkbox', { name: 'Water the plants', exact: true }).click();
    await visible(page.locator('.notice').filter({ hasText: 'Next:' }));
    await shoot(page, 'notices-added-and-next');
  });

  await scene('editor', async () => {
    await nav(/^Inbox/).click();
    await row('Call the plumber').getByRole('button', { name: 'Edit: Call the plumber' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Call the plumber' });
    await visible(form.getByRole('textbox', { name: 'Due' }));
    await shoot(page, 'task-editor-due', form);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  await scene('actions', async () => {
    await nav(/^Actions/).click();
    await visible(page.getByRole('list', { name: 'Action log' }));
    await shoot(page, 'actions');
  });

  await scene('calendar', async () => {
    await nav('Calendar').click();
    await visible(page.getByRole('heading', { name: 'Calendar', level: 1 }));
    await main().getByRole('button', { name: '‹ Previous event' }).click();
    await visible(main().getByRole('button', { name: /^Retro 2020, / }));
    await shoot(page, 'calendar-previous-event-renamed');
    await main().getByRole('button', { name: 'Today', exact: true }).click();
  });

  await scene('capture', async () => {
    const { page: small, context } = await openPage(stage.browser, `${stage.served.url}#/capture`, { viewport: { width: 560, height: 360 }, timeout: 20_000, locale: 'en-US' });
    const box = small.getByRole('textbox', { name: 'Quick capture' });
    await box.fill('Call grandma #Famly');
    await visible(small.getByRole('button', { name: 'Use Family' }));
    const capture: Variant[] = [
      { name: 'light', width: 560, height: 360, scheme: 'light' },
      { name: 'dark', width: 560, height: 360, scheme: 'dark' },
    ];
    await shoot(small, 'capture-did-you-mean', undefined, capture);
    await box.fill('Book the hall #Reunion');
    await visible(small.getByRole('button', { name: 'Create project Reunion' }));
    await shoot(small, 'capture-create-project', undefined, capture);
    await context.close();
  });

  await scene('memory', async () => {
    await nav(/^Memory/).click();
    await visible(page.getByRole('heading', { name: 'Memory', level: 1 }));
    await shoot(page, 'memory');
  });

  await scene('routines', async () => {
    await nav(/^Routines/).click();
    const routine = page.getByRole('list', { name: 'Routines' }).getByRole('listitem', { name: 'Morning plan' });
    await routine.getByRole('button', { name: 'Edit Morning plan' }).click();
    const edit = page.getByRole('form', { name: 'Edit routine Morning plan' });
    await visible(edit);
    await shoot(page, 'routines-edit', edit);
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  await scene('plan', async () => {
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    tomorrow.setHours(0, 0, 0, 0);
    const dayAfter = new Date(tomorrow.getTime() + 86_400_000);
    const tasks = JSON.parse(tidy(dbPath, ['tasks', '--json']).stdout) as { id: string; content: string }[];
    const planned = ['Draft the budget', 'Answer the landlord'].map((c) => tasks.find((t) => t.content === c)!.id);
    fake.enqueue({ toolCalls: [{ name: 'plan_tasks', arguments: { task_ids: planned, from: tomorrow.toISOString(), to: dayAfter.toISOString() } }] }, { text: 'Your day is planned.' });
    await send('Plan my tomorrow');
    const card = page.getByRole('group', { name: /^Approval needed: Plan/ });
    await visible(card.getByRole('img', { name: /^Timeline of the plan/ }));
    await shoot(page, 'plan-card', card);
    await card.getByRole('button', { name: 'Decline' }).click();
  });

  await scene('labels', async () => {
    await nav(/^Labels/).click();
    await visible(main().getByRole('list', { name: 'Labels' }));
    await shoot(page, 'labels');
  });
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  await buildRendererOnce();
  const browser = await launchChromium();
  try {
    await sceneOf('firstrun', () => firstRun(browser));
  } finally {
    await browser.close();
  }
  const stage = await startStage('shots', {
    page: { viewport: { width: 1280, height: 800 }, locale: 'en-US', timeout: 20_000 },
  });
  try {
    seedMore(stage.dbPath);
    await stage.page.reload();
    await stage.page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 20_000 });
    await theApp(stage);
  } finally {
    await stage.close();
  }
  writeFileSync(join(OUT, 'index.txt'), `${written.map((p) => p.slice(OUT.length + 1)).join('\n')}\n`);
  console.log(`\n${written.length} screenshots in ${OUT}${failed.length ? `; failed scenes: ${failed.join(', ')}` : ''}`);
  if (failed.length) process.exitCode = 1;
}

/** Seeds through the core and the CLI, as a user would have made it (each change logged). */
function seedMore(dbPath: string): void {
  const db = openDatabase(dbPath);
  try {
    for (const name of ['Family', 'Home']) createProject(db, newUserRequest(db), { name });
    addTask(db, newUserRequest(db), { content: 'Water the plants', due: localDay(0), recurrence: 'FREQ=WEEKLY' });
    addTask(db, newUserRequest(db), { content: 'Call the plumber', due: localDay(1, '16:00') });
    addTask(db, newUserRequest(db), { content: 'Draft the budget', due: localDay(1), durationMin: 60, labels: ['work'] });
    addTask(db, newUserRequest(db), { content: 'Answer the landlord', due: localDay(1), durationMin: 30, labels: ['errands'] });
    addMemory(db, newUserRequest(db), { text: 'Groceries always go to Errands' });
    const servers = readSettings(db).mcpServers;
    writeSetting(db, 'mcpServers', { ...servers, notes: { command: 'npx', args: ['-y', 'notes-server'], env: { NOTES_TOKEN: 'secret-token-123' }, enabled: false, failures: 3 } });
  } finally {
    db.close();
  }
  const ics = join(tmpdir(), `tidy-shots-${process.pid}.ics`);
  writeFileSync(ics, OLD_ICS);
  for (const args of [
    ['config', 'set', 'workDays', 'mon,tue,wed,thu,fri,sat,sun'], // a plan for tomorrow, whatever day it is
    ['cal', 'import', ics],
    ['cal', 'rename', 'Old team', 'Team 2020'],
    ['label', 'colour', 'errands', '#2e7d32'],
    ['routines', 'add', 'Morning plan', '--every', 'weekday at 8am', '--', 'plan', 'my', 'day'],
  ]) {
    const r = tidy(dbPath, args);
    if (r.code !== 0) console.error(`seed: tidy ${args.join(' ')}: ${r.stderr.trim()}`);
  }
  rmSync(ics, { force: true });
}

await main();
