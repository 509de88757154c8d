// End to end: Settings → where data can go, Wikipedia and MCP servers, in Chromium through `tidy serve`.
// The MCP server is the tiny one from test/fakes; elements are found by role and accessible name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, writeSetting } from '../../src-main/core';
import { REPO, TIDY_BIN, tidy } from '../support/cli';
import { launchChromium, openPage, screenshot } from '../support/browser';
import { buildRendererOnce } from '../support/renderer';
import { startServe, type Served } from '../support/serve';

const FAKE = join(REPO, 'test', 'fakes', 'mcp-server.mjs');

let browser: Browser;
let page: Page;
let served: Served;
let dir = '';
let dbPath = '';
let problems: string[] = [];

beforeAll(async () => {
  await buildRendererOnce();
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-mcp-'));
  dbPath = join(dir, 'tidy.db');
  for (const args of [
    ['config', 'set', 'baseUrl', 'http://127.0.0.1:9/v1'],
    ['config', 'set', 'wikipediaUrl', 'https://de.wikipedia.org'],
    ['mcp', 'add', 'fake', '--', process.execPath, FAKE],
  ]) {
    const r = tidy(dbPath, args);
    if (r.code !== 0) throw new Error(`tidy ${args.join(' ')}: ${r.stderr}`);
  }
  served = await startServe(dbPath);
  browser = await launchChromium();
  ({ page, problems: problems } = await openPage(browser, served.url, { viewport: { width: 1280, height: 1400 }, timeout: 10_000 }));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const destinations = () => page.getByRole('list', { name: 'Destinations' }).getByRole('listitem');
const settingsJson = () => JSON.parse(tidy(dbPath, ['config', 'get', '--json']).stdout) as Record<string, unknown>;

describe('Settings: MCP servers and Wikipedia', () => {
  it('lists where data can go: the model endpoint and each enabled server, Wikipedia only once it is on', async () => {
    await expect.poll(() => destinations().allInnerTexts()).toEqual([expect.stringContaining('http://127.0.0.1:9/v1'), expect.stringContaining('fake')]);
    const wikipedia = page.getByRole('checkbox', { name: 'Let the agent look things up on Wikipedia' });
    expect(await wikipedia.isChecked()).toBe(false);
    await expect.poll(() => page.getByText('are sent to https://de.wikipedia.org/w/api.php').count()).toBe(1);
    // A controlled box: it shows the saved value once the main side has it.
    await wikipedia.click();
    await expect.poll(() => wikipedia.isChecked()).toBe(true);
    await expect.poll(() => destinations().count()).toBe(3);
    expect(await destinations().nth(2).innerText()).toContain('https://de.wikipedia.org/w/api.php');
    expect(settingsJson()['wikipedia']).toBe(true);
  });

  it('shows the tools a server offers and sets one to always allow', async () => {
    await page.getByRole('button', { name: 'Show tools of fake' }).click();
    const table = page.getByRole('table', { name: 'Tools of fake' });
    await table.waitFor();
    expect(await table.getByRole('rowheader').allInnerTexts()).toEqual([expect.stringContaining('echo'), expect.stringContaining('saveNote')]);
    await page.getByRole('combobox', { name: 'Approval for fake__save_note' }).selectOption('auto');
    await expect.poll(() => (settingsJson()['approvals'] as Record<string, string>)['fake__save_note']).toBe('auto');
    expect(await page.getByRole('combobox', { name: 'Approval for fake__echo' }).inputValue()).toBe('ask');
  });

  it('adds a server (its name made lower_snake_case, an environment whose values are never shown back), switches one off and removes one', async () => {
    await page.getByRole('textbox', { name: 'Server name' }).fill('!!!');
    await page.getByRole('textbox', { name: 'Command or URL' }).fill('npx -y notes-server');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('alert').filter({ hasText: 'has no letters or digits' }).waitFor();
    await page.getByRole('textbox', { name: 'Server name' }).fill('My Notes');
    await page.getByText('Saved as my_notes').waitFor();
    await page.getByRole('textbox', { name: 'Environment' }).fill('NOTES TOKEN');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('alert').filter({ hasText: 'environment line 1: write NAME=value' }).waitFor();
    await page.getByRole('textbox', { name: 'Environment' }).fill('NOTES_TOKEN=secret-token-123\nREGION=eu');
    await page.getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => Object.keys(settingsJson()['mcpServers'] as object)).toEqual(['fake', 'my_notes']);
    expect((settingsJson()['mcpServers'] as Record<string, { env: Record<string, string> }>)['my_notes']!.env).toEqual({ NOTES_TOKEN: 'secret-token-123', REGION: 'eu' });
    const env = page.getByRole('list', { name: 'Environment of my_notes' });
    await env.getByText('NOTES_TOKEN').waitFor();
    expect(await env.innerText()).toContain('•••• (16 characters)');
    expect(await page.locator('body').innerText()).not.toContain('secret-token-123');
    await page.getByRole('checkbox', { name: 'Use fake' }).click();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Use fake' }).isChecked()).toBe(false);
    await expect.poll(() => destinations().allInnerTexts()).toEqual([expect.any(String), expect.stringContaining('my_notes'), expect.stringContaining('Wikipedia')]);
    await screenshot(page, 'settings-mcp', { fullPage: true });
    await page.getByRole('button', { name: 'Remove my_notes' }).click();
    await expect.poll(() => Object.keys(settingsJson()['mcpServers'] as object)).toEqual(['fake']);
    expect((settingsJson()['mcpServers'] as Record<string, { enabled: boolean }>)['fake']!.enabled).toBe(false);
    expect(problems).toEqual([]);
  });

  it('says when a server was switched off after failed starts; switching it on starts its count anew', async () => {
    const servers = settingsJson()['mcpServers'] as Record<string, Record<string, unknown>>;
    // As the core leaves it after the third failed start in a row (core/mcp/health.ts).
    const db = openDatabase(dbPath);
    try {
      expect(writeSetting(db, 'mcpServers', { ...servers, fake: { ...servers['fake'], enabled: false, failures: 3 } }).ok).toBe(true);
    } finally {
      db.close();
    }
    // Another process's change: the window notices it (data_version) and shows the note.
    await page.getByRole('note').filter({ hasText: 'Switched off: it failed to start 3 times in a row' }).waitFor({ timeout: 15_000 });
    await page.getByRole('checkbox', { name: 'Use fake' }).click();
    const fake = () => (settingsJson()['mcpServers'] as Record<string, { enabled: boolean; failures?: number }>)['fake']!;
    await expect.poll(() => fake().enabled).toBe(true);
    expect(fake().failures ?? 0).toBe(0);
    await expect.poll(() => page.getByRole('note').filter({ hasText: 'Switched off' }).count()).toBe(0);
  });

  it('brings a section into view by scrolling only the settings pane, never the window (a server row holds a hidden label)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Tray', exact: true }).click();
    await page.getByRole('heading', { name: 'Tray', exact: true }).waitFor();
    expect(await page.evaluate<number>('document.scrollingElement.scrollTop')).toBe(0);
    expect((await page.getByRole('heading', { name: 'Settings', exact: true }).boundingBox())!.y).toBeGreaterThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 1400 });
  });

  it('shows another app’s MCP session in Actions as it happens, and undoes it there', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Actions' }).click();
    const client = new Client({ name: 'Claude Desktop', version: '1.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [TIDY_BIN, '--db', dbPath, 'mcp'], stderr: 'pipe' }));
    try {
      await client.callTool({ name: 'add_tasks', arguments: { tasks: [{ content: 'Water the plants' }, { content: 'Book the dentist' }] } });
    } finally {
      await client.close();
    }
    const undo = page.getByRole('button', { name: 'Undo request: Claude Desktop (through MCP)' });
    await undo.waitFor(); // the app notices another process's commit (data_version) and reloads the log
    await screenshot(page, 'actions-mcp-session');
    await undo.click();
    await expect.poll(() => (JSON.parse(tidy(dbPath, ['tasks', '--json']).stdout) as unknown[]).length).toBe(0);
  });
});
