// Sync benchmark (`npm run bench sync`): the passphrase's key derivation at the default Argon2id cost,
// merging 10,000 remote changes (pure merge, and a whole receive round through a folder: read, decrypt,
// check, merge), one local change synced, encryption throughput, and encrypted bytes per changed field.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBatch, encodeBatch } from '../src-main/core/sync/batch';
import { createHeader, decryptBatch, DEFAULT_KDF, encryptBatch, type KdfParams } from '../src-main/core/sync/crypto';
import { batchPath } from '../src-main/core/sync/layout';
import { merge, type Message } from '../src-main/core/sync/messages';
import { SyncDevice, syncRound } from '../src-main/core/sync/round';
import { setupTarget } from '../src-main/core/sync/setup';
import { FolderTarget } from '../src-main/core/sync/targets/folder';
import { addTask, completeTask, importCalendar, newUserRequest, openDatabase, type Db } from '../src-main/core';
import { runSync, setupSync } from '../src-main/core/sync/service';
import { snapshotPath } from '../src-main/core/sync/snapshot';
import { median, report, time } from './util';

const A = '00000000000000a1';
const B = '00000000000000b2';
const FAST: KdfParams = { name: 'argon2id', memoryKiB: 64, iterations: 1, parallelism: 1 };
const COLUMNS = ['content', 'description', 'priority', 'due', 'project_id', 'section_id', 'done', 'archived', 'position', 'labels'];

/** The n-th of 10,000 realistic column changes: 1,000 tasks × 10 columns. */
function change(d: SyncDevice, i: number): void {
  const col = COLUMNS[i % COLUMNS.length]!;
  const row = `t${Math.floor(i / COLUMNS.length) + 1}`;
  const value = col === 'content' ? `Call the dentist about appointment ${i}` : col === 'description' ? `Notes for ${i}: bring the insurance card` : col === 'priority' ? (i % 4) + 1 : col === 'done' || col === 'archived' ? i % 2 === 0 : col === 'due' ? '2035-01-01' : col === 'position' ? i : `p${i % 50}`;
  d.change('tasks', row, col, value);
}

export async function benchSync(): Promise<void> {
  console.log('Sync');
  const kdf = await median(3, () => createHeader('correct horse battery staple', DEFAULT_KDF));
  report(`derive the key, Argon2id ${DEFAULT_KDF.memoryKiB / 1024} MiB × ${DEFAULT_KDF.iterations} (once per device)`, kdf, 'ms');

  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-sync-'));
  try {
    const target = new FolderTarget(dir);
    const key = await setupTarget(target, 'pw', FAST);
    const a = new SyncDevice(A, key);
    for (let i = 0; i < 10_000; i++) change(a, i);
    const messages: Message[] = [...a.outbox];
    const pure = await median(5, () => merge(new Map(), messages));
    report('merge 10,000 remote changes (in memory)', pure, 'ms', { max: 1_000, label: '1 s' });

    const send = await time(() => syncRound(a, target));
    report('send 10,000 changes (encode, encrypt, write 2 files)', send, 'ms');
    const b = new SyncDevice(B, key);
    const cold = await time(() => syncRound(b, target));
    if (b.cells.size !== a.cells.size) throw new Error(`bench: b has ${b.cells.size} cells, a ${a.cells.size}`);
    report('receive + merge 10,000 remote changes, first round of the process', cold, 'ms');
    let fresh = 0xc0;
    const receive = await median(3, () => syncRound(new SyncDevice(`00000000000000${(fresh++).toString(16)}`, key), target));
    report('receive + merge 10,000 remote changes (read, decrypt, check, merge)', receive, 'ms', { max: 1_000, label: '1 s' });

    let n = 10_000;
    const one = await median(15, async () => {
      change(a, n++);
      await syncRound(a, target);
    });
    report('one local change synced to a folder (change, encrypt, write, list)', one, 'ms', { max: 100, label: '100 ms' });

    const single = (await target.read(batchPath(A, a.nextSeq() - 1)))!.length;
    report('encrypted bytes for one changed field (a batch of one)', single, ' B');
    const fullBatch = (await target.read(batchPath(A, 1)))!.length;
    report('encrypted bytes per changed field in a batch of 5,000', fullBatch / 5_000, ' B');

    const chunk = messages.slice(0, 5_000);
    const place = { device: A, seq: 1 };
    const file = encodeBatch(key, place, chunk);
    const encode = await median(5, () => encodeBatch(key, place, chunk));
    const decode = await median(5, () => decodeBatch(key, place, file));
    report('encode + encrypt a batch of 5,000 changes', encode, 'ms');
    report('decrypt + decode + check a batch of 5,000 changes', decode, 'ms');
    const raw = new Uint8Array(16 * 1024 * 1024).fill(7);
    const sealed = encryptBatch(key, place, raw);
    const enc = await median(3, () => encryptBatch(key, place, raw));
    const dec = await median(3, () => decryptBatch(key, place, sealed));
    report('XChaCha20-Poly1305 encrypt throughput', 16 / (enc / 1000), ' MB/s');
    report('XChaCha20-Poly1305 decrypt throughput', 16 / (dec / 1000), ' MB/s');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await benchStores();
  await benchLargeAction();
}

/** `n` one-hour events in 2035, one a day at most 28 days apart (a calendar export of that size). */
function calendarOf(n: number): string {
  const pad = (x: number): string => String(x).padStart(2, '0');
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN', 'X-WR-CALNAME:Big'];
  for (let i = 0; i < n; i++) {
    const d = `2035${pad(1 + (i % 12))}${pad(1 + (i % 28))}`;
    lines.push('BEGIN:VEVENT', `UID:big-${i}@bench`, `DTSTART:${d}T${pad(8 + (i % 9))}0000Z`, `DTEND:${d}T${pad(9 + (i % 9))}0000Z`, `SUMMARY:Meeting ${i}`, `DESCRIPTION:Agenda item ${i}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

/** A large action's traffic: the encrypted batches one 20,000-event import sends (its rows and its compact undo record, sync/action-rows.ts). */
export async function benchLargeAction(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-sync-large-'));
  try {
    const folder = join(dir, 'target');
    const db = openDatabase(join(dir, 'a.db'));
    const s = await setupSync(db, { kind: 'folder', url: folder }, 'pw', { kdf: FAST });
    const target = new FolderTarget(folder);
    await runSync(db, s.key, target);
    const r = importCalendar(db, newUserRequest(db), { fileName: 'big.ics', text: calendarOf(20_000) });
    if (!r.ok) throw new Error(r.error);
    const pages = (db.prepare(`SELECT COUNT(*) AS n, SUM(length(value)) AS chars FROM sync_outbox WHERE tbl = 'action_rows'`).get() as { n: number; chars: number });
    let bytes = 0;
    const write = target.writeNew.bind(target);
    target.writeNew = (path, data) => {
      bytes += data.length;
      return write(path, data);
    };
    await runSync(db, s.key, target);
    report(`encrypted bytes a 20,000-event .ics import sends (its undo record beside the rows: ${pages.n} pages, ${(pages.chars / 1e3).toFixed(0)} k characters)`, bytes / 1e6, ' MB');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A database of `tasks` tasks written straight into the tables (a bench of sync, not of adding tasks). */
function fill(db: Db, tasks: number): void {
  const at = '2035-01-01T12:00:00.000Z';
  const insert = db.prepare(`INSERT INTO tasks (id, content, project_id, priority, position, status, created_at, updated_at) VALUES (?, ?, 'inbox', 4, ?, 'open', ?, ?)`);
  db.transaction(() => {
    for (let i = 1; i <= tasks; i++) insert.run(`t${i}`, `Call the dentist about appointment ${i}`, i, at, at);
    db.prepare(`INSERT INTO id_counters (kind, next) VALUES ('t', ?) ON CONFLICT(kind) DO UPDATE SET next = excluded.next`).run(tasks + 1);
  })();
}

/** Sync on real databases: a receive that writes rows, one local change, and the first sync of a large database. */
async function benchStores(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-sync-db-'));
  try {
    const folder = join(dir, 'target');
    const spec = { kind: 'folder' as const, url: folder };
    const target = new FolderTarget(folder);
    const a = openDatabase(join(dir, 'a.db'));
    const ka = (await setupSync(a, spec, 'pw', { kdf: FAST })).key;
    // about 10,000 column changes: tasks added through the domain (each a row of ~14 columns and its logged action)
    let cells = 0;
    while (cells < 10_000) {
      addTask(a, newUserRequest(a), { content: `Buy milk ${cells}` });
      cells = (a.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get() as { n: number }).n;
    }
    await runSync(a, ka, target);
    // the median of three new databases receiving it (one run alone swings by a tenth and more on a busy machine)
    const receives: number[] = [];
    for (let i = 0; i < 3; i++) {
      const b = openDatabase(join(dir, `b${i}.db`));
      const kb = (await setupSync(b, spec, 'pw', { kdf: FAST })).key;
      receives.push(await time(() => runSync(b, kb, target)));
      b.close();
    }
    const received = receives.sort((x, y) => x - y)[1]!;
    report(`receive + merge ${cells.toLocaleString()} remote changes into a database (read, decrypt, check, write rows)`, received, 'ms', { max: 1_000, label: '1 s' });
    let k = 0;
    const tasks = (a.prepare(`SELECT id FROM tasks WHERE status = 'open' ORDER BY rowid`).all() as { id: string }[]).map((r) => r.id);
    const one = await median(9, async () => {
      completeTask(a, newUserRequest(a), { task: tasks[k++]! });
      await runSync(a, ka, target);
    });
    report('one local change (complete a task) synced from a database to a folder', one, 'ms', { max: 100, label: '100 ms' });
    a.close();

    const big = openDatabase(join(dir, 'big.db'));
    const N = Number(process.env['TIDY_BENCH_SYNC_TASKS'] ?? 100_000);
    fill(big, N);
    const bigFolder = join(dir, 'big-target');
    let fields = 0;
    let device = '';
    const first = await time(async () => {
      const s = await setupSync(big, { kind: 'folder', url: bigFolder }, 'pw', { kdf: FAST });
      fields = s.queued;
      device = s.device;
      await runSync(big, s.key, new FolderTarget(bigFolder));
    });
    report(`first sync of a ${N.toLocaleString()}-task database (stamp every cell in bulk, snapshot, encrypt, write)`, first, 'ms', { max: 30_000, label: '30 s' });
    const snapshotBytes = statSync(join(bigFolder, snapshotPath(device, 1))).size;
    report(`its snapshot: ${(snapshotBytes / 1e6).toFixed(1)} MB for ${fields.toLocaleString()} fields, encrypted bytes per field`, snapshotBytes / fields, ' B');
    const joiner = openDatabase(join(dir, 'joiner.db'));
    const kj = (await setupSync(joiner, { kind: 'folder', url: bigFolder }, 'pw', { kdf: FAST })).key;
    const join1 = await time(() => runSync(joiner, kj, new FolderTarget(bigFolder)));
    report(`a new device receives that ${N.toLocaleString()}-task database (from the snapshot)`, join1, 'ms', { max: 30_000, label: '30 s' });
    big.close();
    joiner.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
