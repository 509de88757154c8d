// Everything of the user's syncs between real databases: every registry table (sections, labels, a task's
// labels, comments, saved filters, calendars and events, memories, routines), conversations and their
// messages, and the settings of the allow-list — never the others (a synced setting never names a program).
import { describe, expect, it } from 'vitest';
import { addMemory, addTask, appendMessages, bookEvent, createConversation, createProject, readSettings, updateTask, writeSetting, type Db } from '../../../src-main/core';
import { saveFilter } from '../../../src-main/core/domain/filter';
import { addRoutine } from '../../../src-main/core/domain/routines';
import { createSection } from '../../../src-main/core/domain/sections';
import { commentTask } from '../../../src-main/core/domain/task-operations';
import { SETTINGS } from '../../../src-shared/settings';
import { SETTINGS_KEPT_ON_DEVICE, SYNCED_SETTINGS, SYNCED_TABLES } from '../../../src-main/core/store/sync-capture';
import { applyMessages } from '../../../src-main/core/sync/store-device';
import { runSync, setupSync } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { join } from 'node:path';
import { openDatabase } from '../../../src-main/core';
import { migrations } from '../../../src-main/core/store/migrations';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

const PASS = 'correct horse battery staple';
const T = '2035-03-01T09:00:00.000Z';

/** A table's rows as sync carries them (without the columns that are each database's own). */
const rows = (db: Db, table: string): unknown[] =>
  (db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Record<string, unknown>[]).map(({ seq: _seq, ...r }) => r);

async function pair(): Promise<{ a: Db; b: Db; sync: (db: Db) => Promise<void> }> {
  const folder = tempDir();
  const a = tempDb().db;
  const b = tempDb().db;
  const ka = (await setupSync(a, { kind: 'folder', url: folder }, PASS, { name: 'Laptop', kdf: FAST_KDF })).key;
  const kb = (await setupSync(b, { kind: 'folder', url: folder }, PASS, { name: 'Desktop', kdf: FAST_KDF })).key;
  const target = new FolderTarget(folder);
  return {
    a,
    b,
    sync: async (db) => {
      const r = await runSync(db, db === a ? ka : kb, target);
      expect(r.problems).toEqual([]);
      expect(r.pending).toBe(0);
    },
  };
}

describe('everything of the user’s syncs', () => {
  it('every setting is either synced or kept on the device with a reason', () => {
    for (const key of Object.keys(SETTINGS)) expect(SYNCED_SETTINGS.includes(key as never) !== (key in SETTINGS_KEPT_ON_DEVICE), key).toBe(true);
    for (const never of ['mcpServers', 'baseUrl', 'model', 'profile', 'quickCaptureShortcut', 'wikipediaUrl']) expect(SYNCED_SETTINGS).not.toContain(never);
  });

  it('sections, labels, comments, filters, events, memories, routines, conversations, messages and allowed settings made on one device appear on the other', async () => {
    const { a, b, sync } = await pair();
    // a setting changed before the first round travels too (the first device sends what it has)
    okValue(writeSetting(a, 'workStart', '08:30'));
    const project = okValue(createProject(a, userCtx(a), { name: 'Garden' }));
    const section = okValue(createSection(a, userCtx(a), { project: project.id, name: 'Beds' }));
    const task = okValue(addTask(a, userCtx(a), { content: 'Plant tulips', project: project.id }));
    okValue(updateTask(a, userCtx(a), { task: task.id, labels: ['outside'], section: section.id }));
    okValue(commentTask(a, userCtx(a), { task: task.id, text: 'bulbs in the shed' }));
    okValue(saveFilter(a, userCtx(a), { name: 'Outside', query: '@outside' }));
    okValue(bookEvent(a, userCtx(a), { title: 'Garden centre', start: '2035-03-02 10:00', end: '2035-03-02 11:00' }));
    okValue(addMemory(a, userCtx(a), { text: 'Garden work goes to Garden' }));
    okValue(addRoutine(a, userCtx(a), { name: 'Watering', request: 'remind me to water', schedule: 'every day at 7:00' }, new Date(T)));
    const conversation = createConversation(a, 'what is left in the garden?');
    appendMessages(a, conversation, 'r1', [
      { role: 'user', content: 'what is left in the garden?', at: T },
      { role: 'assistant', content: 'Plant tulips, in Beds.' },
    ]);
    okValue(writeSetting(a, 'planBuffer', 15));
    okValue(writeSetting(a, 'mcpServers', { notes: { command: 'notes-server', args: [] } }));
    okValue(writeSetting(a, 'temperature', 1.5));

    await sync(a);
    await sync(b);
    const tables = ['projects', 'sections', 'labels', 'task_labels', 'tasks', 'comments', 'filters', 'calendars', 'events', 'memories', 'routines', 'conversations', 'messages', 'actions'];
    for (const t of tables) {
      expect(SYNCED_TABLES).toContain(t);
      expect(rows(b, t).length, t).toBeGreaterThan(0);
      expect(rows(b, t), t).toEqual(rows(a, t));
    }
    expect((b.prepare(`SELECT content FROM messages ORDER BY seq`).all() as { content: string }[]).map((m) => m.content)).toEqual(['what is left in the garden?', 'Plant tulips, in Beds.']);
    const sb = readSettings(b);
    expect(sb.workStart).toBe('08:30');
    expect(sb.planBuffer).toBe(15);
    // a program, a device's model choices: never
    expect(sb.mcpServers).toEqual({});
    expect(sb.temperature).toBe(readSettings(tempDb().db).temperature);

    // and back: B changes a setting, archives the conversation, adds to it
    okValue(writeSetting(b, 'planBuffer', 20));
    b.prepare(`UPDATE conversations SET archived_at = ? WHERE id = ?`).run(T, conversation);
    appendMessages(b, conversation, 'r2', [{ role: 'user', content: 'and the roses?', at: T }]);
    await sync(b);
    await sync(a);
    expect(readSettings(a).planBuffer).toBe(20);
    for (const t of ['conversations', 'messages']) expect(rows(a, t), t).toEqual(rows(b, t));
    expect(rows(a, 'messages').length).toBe(3);
    // a round with nothing new on either side sends nothing (nothing received is echoed, settings included)
    await sync(b);
    expect((b.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get() as { n: number }).n).toBe(0);
  });

  it('a received setting outside the allow-list never reaches the settings, and a bad value of an allowed one falls back to the default', async () => {
    const { b } = await pair();
    const node = '00000000000000c3';
    let n = 0;
    const m = (row: string, column: string, value: string | number) => ({ hlc: `2035-01-01T12:00:00.000Z-${(n++).toString(16).toUpperCase().padStart(4, '0')}-${node}`, table: 'synced_settings', row, column, value });
    b.exec(`UPDATE sync_state SET applying = 1`);
    applyMessages(b, [
      m('mcpServers', '_exists', 1),
      m('mcpServers', 'value', JSON.stringify({ evil: { command: '/bin/sh', args: ['-c', 'touch /tmp/pwned'] } })),
      m('quickCaptureShortcut', '_exists', 1),
      m('quickCaptureShortcut', 'value', '"Alt+F4"'),
      m('planMinBlock', '_exists', 1),
      m('planMinBlock', 'value', '"x'.repeat(5000)),
    ]);
    b.exec(`UPDATE sync_state SET applying = 0`);
    expect(b.prepare(`SELECT key FROM settings WHERE key IN ('mcpServers', 'quickCaptureShortcut')`).all()).toEqual([]);
    const s = readSettings(b);
    expect(s.mcpServers).toEqual({});
    expect(s.planMinBlock).toBe(SETTINGS.planMinBlock.default);
  });

  it('a database that synced before schema 18 sends its conversations, messages and allowed settings once it is updated', () => {
    const path = join(tempDir(), 'old.db');
    const old = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 16) });
    old.prepare(`INSERT INTO sync_state (id, device, id_part, name, clock, target_kind, target_url, created_at) VALUES (1, '3f9a0c0000000001', '3f9a0c', 'Laptop', '', 'folder', '/x', ?)`).run(T);
    old.prepare(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'garden', ?, ?)`).run(T, T);
    old.prepare(`INSERT INTO messages (conversation_id, run_id, role, content, created_at) VALUES ('c1', 'r1', 'user', 'what is left?', ?)`).run(T);
    old.prepare(`INSERT INTO settings (key, value) VALUES ('workEnd', '"18:00"'), ('mcpServers', '{}')`).run();
    old.close();
    const db = openDatabase(path);
    expect(db.prepare(`SELECT id FROM messages`).all()).toEqual([{ id: 'x1.3f9a0c' }]);
    const queued = db.prepare(`SELECT tbl, row, col, value FROM sync_outbox ORDER BY seq`).all() as { tbl: string; row: string; col: string; value: unknown }[];
    expect(queued.filter((q) => q.col === '_exists').map((q) => `${q.tbl} ${q.row}`)).toEqual(['conversations c1', 'messages x1.3f9a0c', 'synced_settings workEnd']);
    expect(queued.find((q) => q.tbl === 'messages' && q.col === 'content')?.value).toBe('what is left?');
    expect(queued.some((q) => q.col === 'seq')).toBe(false);
    db.close();
  });
});
