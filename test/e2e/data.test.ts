// End to end: Settings → Your data in Chromium through `tidy serve`. The last backup and "Back up now";
// importing a Todoist backup ZIP with the file picker (a preview first, nothing written until Import),
// the import undone as one request; a malformed CSV refused with a message that says what to do; a file
// many times one WebSocket frame imported whole (sent in parts, src-renderer/lib/upload.ts); Restore from a
// JSON export taking back a later change, and a bad file refused in one line.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, createProject, newUserRequest, openDatabase, updateTask } from '../../src-main/core';
import { disableSync, runSync, setupSync } from '../../src-main/core/sync/service';
import { FolderTarget } from '../../src-main/core/sync/targets/folder';
import { FAST_KDF } from '../unit/sync/scenario';
import { REPO } from '../support/cli';
import { launchChromium, openPage, screenshot, SHOTS } from '../support/browser';
import { buildRendererOnce } from '../support/renderer';
import { startServe, type Served } from '../support/serve';

const FIXTURES = join(REPO, 'test', 'fixtures', 'todoist');

let browser: Browser;
let page: Page;
let served: Served;
let dir = '';
let dbPath = '';
let pageErrors: string[] = [];

const count = (sql: string): number => {
  const db = openDatabase(dbPath);
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  await buildRendererOnce();
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-data-'));
  dbPath = join(dir, 'tidy.db');
  openDatabase(dbPath).close();
  served = await startServe(dbPath);
  browser = await launchChromium();
  ({ page, problems: pageErrors } = await openPage(browser, served.url, { viewport: { width: 1360, height: 1000 }, timeout: 15_000 }));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'Your data', level: 2, exact: true }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Settings → Your data', () => {
  it('Back up now makes a backup in the backups folder, and the section then shows it as the last one', async () => {
    const backups = page.getByRole('group', { name: 'Backups' });
    const before = existsSync(join(dir, 'backups')) ? readdirSync(join(dir, 'backups')).length : 0;
    await backups.getByRole('button', { name: 'Back up now' }).click();
    await expect.poll(() => (existsSync(join(dir, 'backups')) ? readdirSync(join(dir, 'backups')).length : 0)).toBe(before + 1);
    await backups.getByText(/^Last backup: /).waitFor();
    const made = readdirSync(join(dir, 'backups')).find((n) => n.startsWith('tidy-backup-'));
    expect(made).toBeDefined();
    await backups.getByText(made!, { exact: false }).waitFor();
  });

  it('imports a Todoist backup ZIP: preview first (nothing written), then Import, then Undo takes it all back', async () => {
    const part = page.getByRole('group', { name: 'Import from Todoist' });
    await part.getByLabel('Todoist CSV or backup ZIP').setInputFiles(join(FIXTURES, 'todoist-backup.zip'));
    const preview = part.getByRole('region', { name: 'Import preview' });
    await preview.getByText('11 tasks into 3 projects').waitFor();
    await preview.getByText('Home Renovation', { exact: true }).waitFor();
    await preview.getByText('Buy paint, primer and brushes @errands').waitFor();
    await preview.getByText(/3 descriptions and 2 comments/).waitFor();
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(0);
    await screenshot(page.getByRole('region', { name: 'Your data', exact: true }), 'data-import-preview');

    await preview.getByRole('button', { name: 'Import 11 tasks' }).click();
    await part.getByRole('status').getByText('Imported 11 tasks into 3 projects.').waitFor();
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(11);
    expect(count(`SELECT count(DISTINCT request_id) AS n FROM actions WHERE source = 'import'`)).toBe(1);
    expect(readdirSync(join(dir, 'backups')).some((n) => n.startsWith('tidy-before-import-'))).toBe(true);
    await screenshot(page.getByRole('region', { name: 'Your data', exact: true }), 'data-import-done');

    await part.getByRole('button', { name: 'Undo the import' }).click();
    await expect.poll(() => count(`SELECT count(*) AS n FROM tasks`)).toBe(0);
  });

  it('a malformed CSV is refused with the row named, and nothing is imported', async () => {
    const part = page.getByRole('group', { name: 'Import from Todoist' });
    await part.getByLabel('Todoist CSV or backup ZIP').setInputFiles({
      name: 'Broken.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT\ntask,fine,,1,1\ntask,bad,,9,1\n'),
    });
    await part.getByRole('alert').getByText(/Broken\.csv, line 3: PRIORITY "9" is not 1, 2, 3 or 4/).waitFor();
    await expect(part.getByRole('region', { name: 'Import preview' }).count()).resolves.toBe(0);
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(0);
  });

  it('Restore: export, change something, restore the export: the change is gone; a bad file gives one line and changes nothing', async () => {
    const data = page.getByRole('region', { name: 'Your data', exact: true });
    const [download] = await Promise.all([page.waitForEvent('download'), data.getByRole('button', { name: 'Export as JSON' }).click()]);
    const exported = join(dir, download.suggestedFilename());
    await download.saveAs(exported);

    // The change: a task added in the Inbox, after the export.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('button', { name: /^Inbox/ }).click();
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('Added after the export');
    await page.getByRole('textbox', { name: 'New inbox task' }).press('Enter');
    const inboxRow = page.getByRole('list', { name: 'Inbox tasks' }).getByRole('checkbox', { name: 'Added after the export', exact: true });
    await inboxRow.waitFor();
    const before = count(`SELECT count(*) AS n FROM tasks`);

    await nav.getByRole('button', { name: 'Settings' }).click();
    const part = page.getByRole('group', { name: 'Restore' });
    // A bad file: one line, and nothing changes.
    await part.getByLabel('Backup or JSON export to restore').setInputFiles({ name: 'notes.db', mimeType: 'application/octet-stream', buffer: Buffer.from('not a database at all') });
    await part.getByRole('region', { name: 'Restore' }).getByRole('button', { name: 'Restore from notes.db' }).click();
    await part.getByRole('alert').getByText(/^notes\.db is neither a Tidy backup/).waitFor();
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(before);

    await part.getByLabel('Backup or JSON export to restore').setInputFiles(exported);
    const confirm = part.getByRole('region', { name: 'Restore' });
    await confirm.getByText(`Replace everything with ${download.suggestedFilename()}?`).waitFor();
    await screenshot(page.getByRole('region', { name: 'Your data', exact: true }), 'data-restore-confirm');
    await confirm.getByRole('button', { name: `Restore from ${download.suggestedFilename()}` }).click();
    await part.getByRole('status').getByText(`Restored from ${download.suggestedFilename()}.`).waitFor({ timeout: 30_000 });
    await part.getByText(/kept at .*tidy-before-restore-/).waitFor();
    expect(count(`SELECT count(*) AS n FROM tasks WHERE content = 'Added after the export'`)).toBe(0);
    expect(readdirSync(join(dir, 'backups')).some((n) => n.startsWith('tidy-before-restore-'))).toBe(true);

    // The open views reload: the Inbox no longer shows it, and the host goes on working on the restored file.
    await nav.getByRole('button', { name: /^Inbox/ }).click();
    await page.getByRole('textbox', { name: 'New inbox task' }).waitFor();
    await expect.poll(() => inboxRow.count()).toBe(0);
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('Added after the restore');
    await page.getByRole('textbox', { name: 'New inbox task' }).press('Enter');
    await expect.poll(() => count(`SELECT count(*) AS n FROM tasks WHERE content = 'Added after the restore'`)).toBe(1);
    await nav.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Your data', level: 2, exact: true }).waitFor();
  });

  it('Settings → Sync: off, it says how to set up; set up, the sidebar says locked · Open; a wrong passphrase is one line; the right one syncs ("Synced …"); a concurrent edit on another device shows in the task’s sync history, and Restore brings it back; a name both devices made is said under "Settled by sync"', async () => {
    const section = page.getByRole('region', { name: 'Sync', exact: true });
    await section.getByText('Sync is off on this device.').waitFor();
    await section.getByText(/^tidy sync setup --folder PATH/).waitFor();
    const folder = join(dir, 'sync-target');
    /** A change to this window's database by another connection (as another Tidy process on this computer would). */
    const onLaptop = async <T,>(f: (db: ReturnType<typeof openDatabase>) => T | Promise<T>): Promise<T> => {
      const db = openDatabase(dbPath);
      try {
        return await f(db);
      } finally {
        db.close();
      }
    };
    const task = await onLaptop((db) => {
      const r = addTask(db, newUserRequest(db), { content: 'Plan the trip' });
      if (!r.ok) throw new Error(r.error);
      return r.value;
    });
    await onLaptop((db) => setupSync(db, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Laptop', kdf: FAST_KDF }));
    const desktop = openDatabase(join(dir, 'desktop.db'));
    try {
      // tidy serve sees the change and tries a round by itself; with no key in the keychain the sidebar says so
      const line = page.getByRole('status', { name: 'Sync status' });
      await line.getByText('Sync locked').waitFor({ timeout: 30_000 });
      await line.getByRole('button', { name: 'Open' }).click();
      await section.getByText(/not in this computer’s keychain/).waitFor();
      await section.getByLabel('Sync passphrase').fill('wrong');
      await section.getByRole('button', { name: 'Unlock' }).click();
      await section.getByRole('alert').getByText('Wrong passphrase for this sync target.').waitFor({ timeout: 30_000 });
      await section.getByLabel('Sync passphrase').fill('pass phrase');
      await section.getByRole('button', { name: 'Unlock' }).click();
      await line.getByText(/^Synced /).waitFor({ timeout: 60_000 });
      await section.getByRole('cell', { name: 'Laptop (this device)' }).waitFor();
      await section.getByText('0 changes').waitFor();
      expect(readdirSync(folder)).toContain('tidy-sync.json');
      await section.getByRole('button', { name: 'Sync now' }).click();
      await line.getByText(/^Synced /).waitFor({ timeout: 60_000 });
      await screenshot(section, 'sync-settings');
      await page.setViewportSize({ width: 800, height: 1000 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, 'sync-settings-dark-800');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1360, height: 1000 });

      // A second device (Desktop) joins; the task is edited on both before either has seen the other's edit.
      const target = new FolderTarget(folder);
      const joined = await setupSync(desktop, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Desktop', kdf: FAST_KDF });
      await runSync(desktop, joined.key, target);
      await onLaptop((db) => updateTask(db, newUserRequest(db), { task: task.id, content: 'Plan the trip to Lyon' }));
      await new Promise((r) => setTimeout(r, 20)); // Desktop's edit is the later one
      updateTask(desktop, newUserRequest(desktop), { task: task.id, content: 'Plan the trip to Porto' });
      await section.getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => count(`SELECT count(*) AS n FROM sync_outbox`), { timeout: 60_000 }).toBe(0);
      await runSync(desktop, joined.key, target); // Desktop's edit goes out; Laptop's arrives, loses, and is recorded
      await runSync(desktop, joined.key, target); // the record goes out
      await section.getByRole('button', { name: 'Sync now' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Inbox/ }).click();
      await page.getByRole('button', { name: 'Edit: Plan the trip to Porto' }).click({ timeout: 60_000 });
      const form = page.getByRole('form', { name: 'Edit task: Plan the trip to Porto' });
      const history = form.getByRole('list', { name: 'Sync history of Plan the trip to Porto' });
      await history.getByText(/^Title changed on Laptop at .+ to “Plan the trip to Lyon”, overwritten by Desktop at .+ · Restore$/).waitFor({ timeout: 30_000 });
      await screenshot(form, 'sync-task-history');
      await history.getByRole('button', { name: 'Restore title “Plan the trip to Lyon”' }).click();
      // the task's title is Laptop's again, and the editor stays open on it
      await page.getByRole('form', { name: 'Edit task: Plan the trip to Lyon' }).getByRole('status').getByText('Restored the title written on Laptop. Undo it in Actions.').waitFor();
      // the editor's field shows the restored title (a Save now keeps it)
      expect(await page.getByRole('form', { name: 'Edit task: Plan the trip to Lyon' }).getByRole('textbox', { name: 'Task' }).inputValue()).toBe('Plan the trip to Lyon');
      await expect.poll(() => count(`SELECT count(*) AS n FROM tasks WHERE id = '${task.id}' AND content = 'Plan the trip to Lyon'`)).toBe(1);

      // A project renamed on both devices at once ("Chores" on Desktop lost to "Errands" here, as sync records it):
      // its page shows the history under its name, and Restore renames it back (logged, undoable).
      await onLaptop((db) => {
        const p = createProject(db, newUserRequest(db), { name: 'Errands' });
        if (!p.ok) throw new Error(p.error);
        const laptop = (db.prepare(`SELECT device FROM sync_state`).get() as { device: string }).device;
        const at = (ms: number, n: number, device: string) => `${new Date(ms).toISOString()}-000${n}-${device}`;
        const lostAt = Date.now() - 120_000;
        const record = db.prepare(`INSERT INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, recorded_at) VALUES ('projects', ?, ?, ?, ?, ?, ?, ?, ?)`);
        record.run(p.value.id, 'name', 'Chores', at(lostAt, 0, joined.device), joined.device, at(lostAt + 60_000, 0, laptop), laptop, new Date().toISOString());
        record.run(p.value.id, 'name_key', 'chores', at(lostAt, 1, joined.device), joined.device, at(lostAt + 60_000, 1, laptop), laptop, new Date().toISOString());
      });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Projects/ }).click();
      await page.getByRole('button', { name: /^Errands/ }).click();
      const projectHistory = page.getByRole('list', { name: 'Sync history of Errands' });
      await projectHistory.getByText(/^Name changed on Desktop at .+ to “Chores”, overwritten by Laptop at .+ · Restore$/).waitFor({ timeout: 30_000 });
      expect(await projectHistory.getByRole('listitem').count()).toBe(1); // the name's key is not said again
      await screenshot(page.getByRole('region', { name: 'Project Errands' }), 'sync-project-history');
      await projectHistory.getByRole('button', { name: 'Restore name “Chores”' }).click();
      await page.getByRole('heading', { name: 'Chores', level: 2 }).waitFor();
      await page.getByRole('region', { name: 'Project Chores' }).getByRole('status').getByText('Restored the name written on Desktop. Undo it in Actions.').waitFor();
      expect(count(`SELECT count(*) AS n FROM actions WHERE tool = 'rename_project' AND undone_at IS NULL`)).toBe(1);
      expect(count(`SELECT count(*) AS n FROM actions WHERE tool = 'update_task' AND undone_at IS NULL AND changes LIKE '%Plan the trip to Lyon%'`)).toBeGreaterThan(0);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();

      // Both devices make a project "Groceries" before either has seen the other's: sync renames the later-made,
      // Desktop's, on both, and Settings → Sync says so under "Settled by sync".
      await onLaptop((db) => createProject(db, newUserRequest(db), { name: 'Groceries' }));
      await new Promise((r) => setTimeout(r, 20)); // Desktop's is made later (creation times have ms precision)
      const groceries = createProject(desktop, newUserRequest(desktop), { name: 'Groceries' });
      if (!groceries.ok) throw new Error(groceries.error);
      await section.getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => count(`SELECT count(*) AS n FROM sync_outbox`), { timeout: 60_000 }).toBe(0);
      const desktopRound = await runSync(desktop, joined.key, target); // Laptop's arrives: Desktop's own is renamed
      expect(desktopRound.renamed).toEqual(['Two devices made a project “Groceries”; Desktop\'s is now “Groceries (Desktop)”']);
      await section.getByRole('button', { name: 'Sync now' }).click(); // Desktop's arrives here: the same rename
      const renamed = section.getByRole('list', { name: 'Settled by sync' });
      await renamed.getByRole('listitem').filter({ hasText: 'Two devices made a project “Groceries”; Desktop\'s is now “Groceries (Desktop)”' }).waitFor({ timeout: 60_000 });
      expect(await renamed.getByRole('listitem').count()).toBe(1);
      await expect.poll(() => count(`SELECT count(*) AS n FROM projects WHERE name = 'Groceries (Desktop)' AND id = '${groceries.value.id}'`)).toBe(1);
      await renamed.scrollIntoViewIfNeeded();
      await screenshot(section, 'sync-settings-renamed');
      await page.setViewportSize({ width: 800, height: 1000 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await renamed.scrollIntoViewIfNeeded();
      await screenshot(page, 'sync-settings-renamed-dark-800');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1360, height: 1000 });
      expect(pageErrors).toEqual([]);
    } finally {
      desktop.close();
      // the tests after this one import thousands of tasks: not to be queued for sync
      const db = openDatabase(dbPath);
      try {
        disableSync(db);
      } finally {
        db.close();
      }
    }
    await page.getByRole('status', { name: 'Sync status' }).waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('a 1 MB CSV (12,000 tasks) goes in parts, far past one frame of the web host, and imports whole', async () => {
    const head = readFileSync(join(FIXTURES, 'Home Renovation.csv'), 'utf8').split(/\r?\n/)[0]!;
    const rows = Array.from({ length: 12_000 }, (_, i) => `task,"Task ${i} of the big move, with enough words to be a real one",,${1 + (i % 4)},1,,,,,,,,,`);
    const buffer = Buffer.from([head, ...rows, ''].join('\n'));
    expect(buffer.length).toBeGreaterThan(900_000);
    const before = count(`SELECT count(*) AS n FROM tasks`);
    const part = page.getByRole('group', { name: 'Import from Todoist' });
    await part.getByLabel('Todoist CSV or backup ZIP').setInputFiles({ name: 'Big Move.csv', mimeType: 'text/csv', buffer });
    const preview = part.getByRole('region', { name: 'Import preview' });
    await preview.getByText('12000 tasks into 1 project').waitFor({ timeout: 30_000 });
    await preview.getByRole('button', { name: 'Import 12000 tasks' }).click();
    await part.getByRole('status').getByText('Imported 12000 tasks into 1 project.').waitFor({ timeout: 30_000 });
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(before + 12_000);
    expect(count(`SELECT count(*) AS n FROM tasks t JOIN projects p ON p.id = t.project_id WHERE p.name = 'Big Move' AND t.content = 'Task 11999 of the big move, with enough words to be a real one'`)).toBe(1);
    expect(pageErrors).toEqual([]);
    expect(readFileSync(join(SHOTS, 'data-import-preview.png')).length).toBeGreaterThan(1000);
  });
});
