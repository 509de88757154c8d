/**
 * Sync's capture: while sync is on, triggers append every changed column of every synced table (the
 * entity registry's tables and the action log) to `sync_outbox`, unstamped, with the wall time of the
 * change; the sync layer stamps them from the device clock before it sends them or merges anything
 * received (src-main/core/sync/store-device.ts). Triggers, not application code, because undo writes rows
 * directly. They are made from the registry when a database opens (as the search index's are) and only
 * while sync is on; received changes are written with `sync_state.applying` = 1, which the triggers skip,
 * so nothing received is echoed back.
 *
 * A row's existence is a cell of its own, `_exists` (1 or 0): an undo of a creation deletes the row here,
 * and the delete travels as `_exists` = 0 under the same last-writer-wins rule as any column.
 *
 * What syncs is the user's: the registry's tables, the action log, conversations and their messages,
 * the settings of SYNCED_SETTINGS (through `synced_settings`, kept equal to `settings` by triggers made
 * here while sync is on) and routine claims. What stays on the device: agent runs and their steps (the
 * trace of a run on this device, with its model endpoint and whole tool payloads; what a run changed
 * travels in the action log, what was said in the messages), a routine's run history and state (which
 * device ran which occurrence is its own record; the claims decide who runs), approvals waiting on this
 * device, caches (model protocols and quirks, Wikipedia), MCP sessions, reminders sent, id counters.
 */
import type Database from 'better-sqlite3';
import type { SettingKey } from '../../../src-shared/settings';
import { ENTITIES } from './entities';
import { nextId } from './ids';

/** A connection (the type store/db.ts names Db; not imported from there, which imports this module). */
type Db = Database.Database;

/** The tables sync carries, in the order a new device receives them (parents before children). */
export const SYNCED_TABLES: readonly string[] = [...ENTITIES.map((e) => e.table), 'actions', 'conversations', 'messages', 'synced_settings', 'routine_claims'];
/** Columns that are this database's own and never sync (the order rows arrived in here). */
const LOCAL_COLUMNS: Record<string, readonly string[]> = { actions: ['seq'], messages: ['seq'] };
export const EXISTS_COLUMN = '_exists';
/** The longest value one sync message carries (a reader refuses longer: sync/messages.ts). */
export const MAX_VALUE_CHARS = 1_000_000;

/**
 * The settings that sync: choices that mean the same on every device (how the agent may act, working
 * hours, planning, memory on or off). Never one that names a program, a path, a key or this device's model
 * (a synced setting must never start a program or send data somewhere new without the user on that
 * device): SETTINGS_KEPT_ON_DEVICE says why each other one stays. A received row of any other key is
 * kept in `synced_settings` but never reaches `settings`.
 */
export const SYNCED_SETTINGS: readonly SettingKey[] = [
  'maxActions',
  'timeLimitSec',
  'stream',
  'bulkApproval',
  'approvals',
  'workStart',
  'workEnd',
  'workDays',
  'planMinBlock',
  'planBuffer',
  'planDefaultDuration',
  'planSplit',
  'memory',
];
export const SETTINGS_KEPT_ON_DEVICE: Readonly<Partial<Record<SettingKey, string>>> = {
  profile: "this device's model provider",
  baseUrl: "this device's model endpoint",
  model: "this device's model",
  protocol: "fits this device's model",
  temperature: "fits this device's model",
  maxTokens: "fits this device's model",
  historyLength: "fits this device's model's context",
  contextTokens: "this device's model's context window",
  memoryTokens: "fits this device's model's context",
  wikipedia: 'sends queries to a server: switched on per device',
  wikipediaUrl: 'a server address',
  mcpServers: 'starts programs',
  quickCaptureShortcut: "this device's keyboard",
  keepInTray: "this device's window behaviour",
};

/** The wall time in ms, in SQL (as close to Date.now() as SQLite's clock allows). */
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;
const ACTIVE = `(SELECT applying FROM sync_state WHERE id = 1) = 0`;
const PREFIX = 'sync_capture_';

const tableExists = (db: Db, table: string): boolean => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;

/** The synced columns of a table, as this database has them (id excluded: it is the row). */
export function syncedColumns(db: Db, table: string): string[] {
  const local = LOCAL_COLUMNS[table] ?? [];
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id' && !local.includes(c));
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Tables whose id may be missing (a message imported from an older export): such a row is given one when sync is set up. */
const NULLABLE_ID = new Set(['messages']);

/**
 * Columns a new row sends only when they differ from their default (the receiving insert gives it the
 * default): `actions.spilled` is 0 for every action but a large one, and sending it always made every
 * logged change one message longer (16 instead of 15 for a completed task).
 */
const SENT_WHEN_SET: Readonly<Record<string, Readonly<Record<string, string>>>> = { actions: { spilled: '0' } };

function triggersFor(db: Db, table: string): { name: string; sql: string }[] {
  const cols = syncedColumns(db, table);
  const sparse = SENT_WHEN_SET[table] ?? {};
  const row = (r: 'new' | 'old', col: string, value: string) => `(${NOW_MS}, ${q(table)}, ${r}.id, ${q(col)}, ${value})`;
  const insert =
    [row('new', EXISTS_COLUMN, '1'), ...cols.filter((c) => !Object.hasOwn(sparse, c)).map((c) => row('new', c, `new.${c}`))].join(',\n    ') +
    cols
      .filter((c) => Object.hasOwn(sparse, c))
      .map((c) => `;\n  INSERT INTO sync_outbox (at, tbl, row, col, value) SELECT ${NOW_MS}, ${q(table)}, new.id, ${q(c)}, new.${c} WHERE new.${c} IS NOT ${sparse[c]}`)
      .join('');
  const updates = cols
    .map((c) => `INSERT INTO sync_outbox (at, tbl, row, col, value) SELECT ${NOW_MS}, ${q(table)}, new.id, ${q(c)}, new.${c} WHERE old.${c} IS NOT new.${c};`)
    .join('\n  ');
  const when = (r: 'new' | 'old'): string => (NULLABLE_ID.has(table) ? `${ACTIVE} AND ${r}.id IS NOT NULL` : ACTIVE);
  return [
    { name: `${PREFIX}${table}_insert`, sql: `CREATE TRIGGER ${PREFIX}${table}_insert AFTER INSERT ON ${table} WHEN ${when('new')} BEGIN\n  INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES\n    ${insert};\nEND` },
    { name: `${PREFIX}${table}_update`, sql: `CREATE TRIGGER ${PREFIX}${table}_update AFTER UPDATE ON ${table} WHEN ${when('new')} BEGIN\n  ${updates}\nEND` },
    { name: `${PREFIX}${table}_delete`, sql: `CREATE TRIGGER ${PREFIX}${table}_delete AFTER DELETE ON ${table} WHEN ${when('old')} BEGIN\n  INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES ${row('old', EXISTS_COLUMN, '0')};\nEND` },
  ];
}

const ALLOWED = `(${SYNCED_SETTINGS.map(q).join(', ')})`;
const APPLYING = `(SELECT applying FROM sync_state WHERE id = 1) = 1`;

/**
 * `settings` ⇄ `synced_settings` for the allowed keys: a local change goes out (and is captured there like
 * any row), a received one comes in (only while applying, and only an allowed key).
 */
function settingsTriggers(): { name: string; sql: string }[] {
  const out = `INSERT INTO synced_settings (id, value) VALUES (new.key, new.value) ON CONFLICT(id) DO UPDATE SET value = excluded.value WHERE synced_settings.value IS NOT excluded.value;`;
  const into = `INSERT INTO settings (key, value) VALUES (new.id, new.value) ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE settings.value IS NOT excluded.value;`;
  const t = (name: string, event: string, on: string, when: string, body: string) => ({
    name: `${PREFIX}${name}`,
    sql: `CREATE TRIGGER ${PREFIX}${name} AFTER ${event} ON ${on} WHEN ${when} BEGIN\n  ${body}\nEND`,
  });
  return [
    t('settings_out_insert', 'INSERT', 'settings', `new.key IN ${ALLOWED}`, out),
    t('settings_out_update', 'UPDATE', 'settings', `new.key IN ${ALLOWED}`, out),
    t('settings_out_delete', 'DELETE', 'settings', `old.key IN ${ALLOWED}`, `DELETE FROM synced_settings WHERE id = old.key;`),
    t('settings_in_insert', 'INSERT', 'synced_settings', `${APPLYING} AND new.id IN ${ALLOWED}`, into),
    t('settings_in_update', 'UPDATE', 'synced_settings', `${APPLYING} AND new.id IN ${ALLOWED}`, into),
    t('settings_in_delete', 'DELETE', 'synced_settings', `${APPLYING} AND old.id IN ${ALLOWED}`, `DELETE FROM settings WHERE key = old.id;`),
  ];
}

/**
 * Before the first device sends every row: the allowed settings as they are here go into
 * `synced_settings` (exactly those), and a message without an id (imported from an older export) gets one.
 */
export function prepareFirstSync(db: Db): void {
  if (!tableExists(db, 'synced_settings')) return;
  db.exec(`DELETE FROM synced_settings WHERE id NOT IN (SELECT key FROM settings WHERE key IN ${ALLOWED})`);
  db.exec(
    `INSERT INTO synced_settings (id, value) SELECT key, value FROM settings WHERE key IN ${ALLOWED}
     ON CONFLICT(id) DO UPDATE SET value = excluded.value WHERE synced_settings.value IS NOT excluded.value`,
  );
  const give = db.prepare(`UPDATE messages SET id = ? WHERE seq = ?`);
  for (const { seq } of db.prepare(`SELECT seq FROM messages WHERE id IS NULL ORDER BY seq`).all() as { seq: number }[]) give.run(nextId(db, 'x'), seq);
}

/** Whether sync is on in this database (its tables exist and hold this device). */
export function syncOn(db: Db): boolean {
  return tableExists(db, 'sync_state') && db.prepare(`SELECT 1 FROM sync_state WHERE id = 1`).get() !== undefined;
}

const TRIGGERS = `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync\\_capture\\_%' ESCAPE '\\'`;

function wanted(db: Db): { name: string; sql: string }[] {
  if (!syncOn(db)) return [];
  return [...SYNCED_TABLES.filter((t) => tableExists(db, t)).flatMap((t) => triggersFor(db, t)), ...(tableExists(db, 'synced_settings') ? settingsTriggers() : [])];
}

export function captureTriggersCurrent(db: Db): boolean {
  const have = new Map((db.prepare(TRIGGERS).all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const want = wanted(db);
  return want.length === have.size && want.every((t) => have.get(t.name) === t.sql);
}

/** Drops every trigger named like capture's (a file's own are never run; syncCaptureTriggers makes them again). */
export function dropCaptureTriggers(db: Db): void {
  for (const { name } of db.prepare(TRIGGERS).all() as { name: string }[]) db.exec(`DROP TRIGGER "${name.replace(/"/g, '""')}"`);
}

/** Makes the capture triggers match the registry and whether sync is on (none while it is off). Call inside a transaction or alone. */
export function syncCaptureTriggers(db: Db): void {
  if (captureTriggersCurrent(db)) return;
  const run = (): void => {
    dropCaptureTriggers(db);
    for (const t of wanted(db)) db.exec(t.sql);
  };
  if (db.inTransaction) run();
  else db.transaction(run).immediate();
}
