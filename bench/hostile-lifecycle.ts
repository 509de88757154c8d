// The process-lifecycle families of the hostile suite (issue 28: item 1's kill -9, and the Smaller list's
// busy lock and persisted approvals): `tidy restore` killed with -9 at points through its work; a web
// host writing while another process holds the database's write lock; a run waiting for approval whose
// process is killed, then answered after a restart. Survived is said per family below.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { addTask, getTask, listRuns, newUserRequest, openDatabase, type Db } from '../src-main/core';
import { answerStoredApproval, createLiveRuns, getApproval, listApprovals, TOOLS } from '../src-main/core/agent';
import { backupsDir } from '../src-main/core/data';
import { connect, percentile, reply, until, type HostProcess } from './hostile-client';
import { ScriptedModel } from '../test/fakes/scripted-model';
import { ms } from './util';

const REPO = join(import.meta.dirname, '..');
type Outcome = [tried: number, survived: number, note: string];

const exited = (child: ChildProcess): Promise<void> => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

async function kill9(child: ChildProcess): Promise<void> {
  const gone = exited(child);
  child.kill('SIGKILL');
  await gone;
}

/** `n` tasks of about 2,000 characters (a 2 MB page per 1,000), and one marker task. */
function seeded(path: string, n: number, marker: string): void {
  const db = openDatabase(path);
  db.transaction(() => {
    for (let i = 0; i < n; i++) addTask(db, newUserRequest(db), { content: `Task ${i} ${'x'.repeat(1_990)}` });
    addTask(db, newUserRequest(db), { content: marker });
  })();
  db.close();
}

const sleep = (msToWait: number): Promise<void> => new Promise((r) => setTimeout(r, msToWait));

// --- kill -9 during tidy restore ------------------------------------------------------------------

/** Where a restore is, seen from outside: its copy beside the database, the kept copy, the swap. */
interface RestoreWatch {
  dir: string;
  db: string;
  inode: number;
  backupBytes: number;
  dbBytes: number;
}

const staged = (w: RestoreWatch): string | undefined => readdirSync(w.dir).find((n) => /^\.tidy\.db\.\d+\.\d+\.tmp$/.test(n));
const kept = (w: RestoreWatch): string | undefined => (existsSync(backupsDir(w.db)) ? readdirSync(backupsDir(w.db)).find((n) => n.startsWith('tidy-before-restore-')) : undefined);
const size = (path: string): number => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** Kill points: a condition polled every millisecond from the restore's start, or a delay. */
const KILL_POINTS: [name: string, when: ((w: RestoreWatch) => boolean) | number][] = [
  ['at once', 0],
  ['its copy of the backup begun', (w) => staged(w) !== undefined],
  ['that copy whole (being checked)', (w) => { const s = staged(w); return s !== undefined && size(join(w.dir, s)) >= w.backupBytes; }],
  // The old database is copied beside it under a second temporary name, then renamed into backups/.
  ['the current database being kept aside', (w) => readdirSync(w.dir).filter((n) => /^\.tidy\.db\.\d+\.\d+\.tmp$/.test(n)).length >= 2],
  ['the kept copy in backups/', (w) => kept(w) !== undefined],
  ['the swap done', (w) => (statSync(w.db, { throwIfNoEntry: false })?.ino ?? w.inode) !== w.inode],
];
/** Delays as shares of an unkilled restore's time, measured first in the same run. */
const SHARES = [0.25, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0];

/**
 * `tidy restore` (the CLI, a process of its own) killed with -9 at each point; then the next start opens
 * the database. Survived: it opens, integrity_check is ok, it is either the old database or the backup
 * (exactly one of their marker tasks), and no restore copy is left beside it.
 */
export async function restoreKills(dir: string, tasks = 2_000): Promise<Outcome> {
  const old = join(dir, 'pristine-old.db');
  const backup = join(dir, 'backup.db');
  seeded(old, tasks, 'MARKER old');
  seeded(backup, tasks, 'MARKER new');
  const work = join(dir, 'restore-kills');
  const db = join(work, 'tidy.db');
  const reset = (): RestoreWatch => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    copyFileSync(old, db);
    return { dir: work, db, inode: statSync(db).ino, backupBytes: size(backup), dbBytes: size(db) };
  };
  const restore = (): ChildProcess => spawn(process.execPath, [join(REPO, 'bin', 'tidy.mjs'), '--db', db, 'restore', backup], { stdio: 'ignore' });

  // An unkilled restore first: its time places the delays.
  reset();
  const t0 = performance.now();
  const whole = restore();
  await exited(whole);
  const fullMs = performance.now() - t0;
  const plain = whole.exitCode === 0 && (await judge(work, db)).state === 'new';

  const outcomes: { name: string; state: string; ok: boolean; why?: string }[] = [];
  let cutCopies = 0;
  const points: [string, ((w: RestoreWatch) => boolean) | number][] = [...KILL_POINTS, ...SHARES.map((s): [string, number] => [`at ${Math.round(s * 100)}% of its time`, s * fullMs])];
  for (const [name, when] of points) {
    const w = reset();
    const child = restore();
    let missed = false;
    if (typeof when === 'number') await Promise.race([sleep(when), exited(child)]);
    else {
      for (;;) {
        if (child.exitCode !== null) {
          missed = true; // the restore ended before the point was seen
          break;
        }
        try {
          if (when(w)) break;
        } catch {
          // a file went away between listing and reading it
        }
        await sleep(1);
      }
    }
    const endedFirst = child.exitCode !== null;
    await kill9(child);
    const j = await judge(work, db);
    // A cut-off copy of the old database in backups/ would be listed as the newest backup: not survived.
    const cut = damagedKeptCopy(db);
    if (cut) cutCopies++;
    const why = j.why ?? (cut ? 'a cut-off copy of the old database left in backups/' : undefined);
    outcomes.push({ name: `${name}${missed || endedFirst ? ' (ended first)' : ''}`, state: j.state, ok: j.ok && !cut, ...(why ? { why } : {}) });
  }
  const survived = outcomes.filter((o) => o.ok).length;
  const states = (s: string) => outcomes.filter((o) => o.state === s).length;
  const failed = outcomes.filter((o) => !o.ok).map((o) => `${o.name}: ${o.why}`);
  return [
    outcomes.length + 1,
    survived + (plain ? 1 : 0),
    `${tasks.toLocaleString('en')}-task files (${(size(backup) / 1024 / 1024).toFixed(0)} MB); an unkilled restore ${ms(fullMs)}${plain ? '' : ' FAILED'}; killed at ${outcomes.length} points: ` +
      `${states('old')} left the old database, ${states('new')} the backup` +
      (failed.length ? `; NOT survived: ${failed.join(' | ')}` : '; every one intact, no restore copy left after the next start') +
      `; a cut-off copy of the old database left in backups/ by ${cutCopies} of the kills`,
  ];
}

/** Whether the copy of the old database a restore keeps in backups/ was cut off by the kill (not a readable database). */
function damagedKeptCopy(db: string): boolean {
  const folder = backupsDir(db);
  if (!existsSync(folder)) return false;
  return readdirSync(folder)
    .filter((n) => /^tidy-before-restore-.*\.db$/.test(n))
    .some((n) => {
      try {
        const raw = new Database(join(folder, n), { readonly: true, fileMustExist: true });
        try {
          return String(raw.pragma('quick_check', { simple: true })) !== 'ok';
        } finally {
          raw.close();
        }
      } catch {
        return true;
      }
    });
}

/** The next start after a kill: opens the database and checks what it finds. */
async function judge(dir: string, db: string): Promise<{ ok: boolean; state: 'old' | 'new' | 'neither'; why?: string }> {
  try {
    openDatabase(db, { holder: 'the hostile suite' }).close();
  } catch (e) {
    return { ok: false, state: 'neither', why: `the next start refused it: ${(e as Error).message.slice(0, 120)}` };
  }
  const raw = new Database(db, { readonly: true });
  let integrity: string;
  let markers: string[];
  try {
    integrity = String(raw.pragma('integrity_check', { simple: true }));
    markers = (raw.prepare(`SELECT content FROM tasks WHERE content LIKE 'MARKER %'`).all() as { content: string }[]).map((r) => r.content);
  } finally {
    raw.close();
  }
  await Promise.resolve();
  const state = markers.length === 1 ? (markers[0] === 'MARKER old' ? 'old' : 'new') : 'neither';
  const left = readdirSync(dir).filter((n) => /^\.tidy\.db\.\d+\.\d+\.tmp/.test(n));
  const why = [integrity !== 'ok' ? `integrity: ${integrity.slice(0, 80)}` : '', state === 'neither' ? `markers: ${markers.join(', ') || 'none'}` : '', left.length ? `left: ${left.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  return { ok: why === '', state, ...(why ? { why } : {}) };
}

// --- the event loop while another process holds the write lock ------------------------------------

/** Another process that takes the database's write lock (BEGIN IMMEDIATE) and keeps it until let go. */
async function lockHolder(db: string): Promise<{ release: () => Promise<void> }> {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)}); db.pragma('busy_timeout = 10000'); db.exec('BEGIN IMMEDIATE'); console.log('locked');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the lock holder ended (${code})`)));
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
  });
  child.removeAllListeners('exit');
  return {
    release: async () => {
      const gone = exited(child);
      child.stdin.write('go\n');
      await gone;
    },
  };
}

/** The longest the host's loop may stall while a write waits: a write that blocked the thread for its lock (the old 5 s busy timeout) stalls it for seconds. */
export const BUSY_LOOP_BOUND_MS = 1_000;

/**
 * The web host (its own process, opened as `tidy serve` opens the database) gets writes while another
 * process holds the write lock: once for 2 s (the writes wait and then go through), once past the
 * host's retries (they give up). Reads on another connection go on all the while. Survived: each write
 * answered ok and on disk, or refused in one line ("the database is busy … nothing was changed") and not
 * on disk; each read answered; and the host's event loop never stalled longer than the bound, which is
 * BUSY_LOOP_BOUND_MS or, on a loaded machine, five times the stall the same host showed without the lock
 * in the same run.
 */
export async function busyLock(host: HostProcess, dbPath: string): Promise<Outcome> {
  const reader = await connect(host.port);
  const writer = await connect(host.port);
  let readId = 0;
  const reads: { sent: number; ms?: number; ok?: boolean }[] = [];
  let reading = true;
  const readLoop = (async () => {
    while (reading) {
      const id = ++readId;
      const r = { sent: performance.now() } as (typeof reads)[number];
      reads.push(r);
      reader.ws.send(JSON.stringify({ id, channel: 'tasks.list', input: { limit: 5 } }));
      await until(() => reader.replies.has(id), 60_000);
      r.ms = performance.now() - r.sent;
      r.ok = reply(reader, id)?.ok === true;
      await sleep(50);
    }
  })();
  // The same reads with no lock held: the host's own stall on this machine now.
  await sleep(1_000);
  const baseline = (await host.stats()).maxDelayMs;
  const bound = Math.max(BUSY_LOOP_BOUND_MS, 5 * baseline);
  await host.reset();

  let writeId = 0;
  const writes: { id: number; content: string; phase: 'waits' | 'gives up' }[] = [];
  const write = (phase: 'waits' | 'gives up', i: number) => {
    const w = { id: ++writeId, content: `busy ${phase} ${i}`, phase };
    writes.push(w);
    writer.ws.send(JSON.stringify({ id: w.id, channel: 'tasks.add', input: { content: w.content } }));
  };
  const readsFrom = reads.length;
  // Held 2 s: every write waits for it, then goes through.
  let holder = await lockHolder(dbPath);
  for (let i = 0; i < 20; i++) write('waits', i);
  await sleep(2_000);
  const readsWhileHeld = reads.slice(readsFrom).filter((r) => r.ms !== undefined && r.ok).length;
  await holder.release();
  await until(() => writes.every((w) => writer.replies.has(w.id)), 60_000);
  // Held past the host's retries (about 10 s): the writes give up in one line.
  holder = await lockHolder(dbPath);
  for (let i = 0; i < 5; i++) write('gives up', i);
  await until(() => writes.every((w) => writer.replies.has(w.id)), 120_000);
  await holder.release();
  reading = false;
  await readLoop;
  const { maxDelayMs } = await host.stats();
  reader.ws.terminate();
  writer.ws.terminate();

  const raw = new Database(dbPath, { readonly: true });
  const stored = new Set((raw.prepare(`SELECT content FROM tasks WHERE content LIKE 'busy %'`).all() as { content: string }[]).map((r) => r.content));
  raw.close();
  let writesOk = 0;
  const outcomes = { waits: [0, 0], 'gives up': [0, 0] } as Record<string, [went: number, refused: number]>;
  for (const w of writes) {
    const r = reply(writer, w.id);
    if (r?.ok && stored.has(w.content)) {
      writesOk++;
      outcomes[w.phase]![0]++;
    } else if (r && !r.ok && /^the database is busy: .*; nothing was changed$/.test(r.error) && !r.error.includes('\n') && !stored.has(w.content)) {
      writesOk++;
      outcomes[w.phase]![1]++;
    }
  }
  const measured = reads.slice(readsFrom);
  const loopOk = maxDelayMs <= bound;
  const readsOk = loopOk ? measured.filter((r) => r.ok).length : 0;
  const latencies = measured.map((r) => r.ms ?? Infinity);
  return [
    writes.length + measured.length,
    writesOk + readsOk,
    `20 writes while the lock is held 2 s: ${outcomes['waits']![0]} went through once it was let go; 5 while it is held past the retries: ${outcomes['gives up']![1]} refused in one line, nothing stored; ` +
      `${measured.length} reads meanwhile (${readsWhileHeld} answered during the 2 s hold): median ${ms(percentile(latencies, 0.5))}, max ${ms(Math.max(...latencies))}; ` +
      `loop stall max ${ms(maxDelayMs)} against a bound of ${ms(bound)} (baseline without the lock ${ms(baseline)})${loopOk ? '' : ' — EXCEEDED'}`,
  ];
}

// --- persisted approvals ---------------------------------------------------------------------------

interface ChildLine {
  waiting?: string;
  runId?: string;
  resumed?: unknown;
}

/** bench/hostile-approval-child.ts in a process of its own; resolves with its first line of JSON (or its end). */
function approvalChild(args: string[]): { child: ChildProcess; first: Promise<ChildLine | { ended: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'hostile-approval-child.ts'), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // A child that never reaches its point is ended, and judged by what it left.
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  child.once('exit', () => clearTimeout(timer));
  const lines = createInterface({ input: child.stdout! });
  const first = new Promise<ChildLine | { ended: number | null; stderr: string }>((resolve) => {
    lines.on('line', (line) => line.startsWith('{') && resolve(JSON.parse(line) as ChildLine));
    child.once('exit', (code) => resolve({ ended: code, stderr }));
  });
  return { child, first };
}

/** Complete actions on a task that were not undone: how many times the approved call ran. */
const runsOf = (db: Db, task: string): number =>
  (db.prepare(`SELECT count(*) AS n FROM actions WHERE tool IN ('complete_task', 'tasks.complete') AND instr(args, ?) > 0 AND undoes IS NULL`).get(task) as { n: number }).n;

/**
 * A run waits for the user's OK to complete a task; its process is killed with -9 (a run waiting in place,
 * and a routine's run, which has ended leaving its approval). After a restart the approval is still
 * listed; it is answered (approve, decline, or twice at once by two processes), the process that goes on
 * with it is killed too, and the next start looks. Survived: never lost (listed after the kill, answerable),
 * never run twice (the task completed exactly once when approved, never when declined), a second answer
 * refused, and no run left "running".
 */
export async function persistedApprovals(dir: string): Promise<Outcome> {
  const cases: [name: string, mode: 'wait' | 'detached', answers: ('approve' | 'decline')[]][] = [
    ['waiting in place, killed; approved after a restart', 'wait', ['approve']],
    ['waiting in place, killed; declined after a restart', 'wait', ['decline']],
    ["a routine's run, killed; approved after a restart", 'detached', ['approve']],
    ['waiting in place, killed; two processes approve at once', 'wait', ['approve', 'approve']],
    ['waiting in place, killed; approved and declined at once', 'wait', ['approve', 'decline']],
  ];
  let survived = 0;
  const failed: string[] = [];
  for (const [i, [name, mode, answers]] of cases.entries()) {
    const path = join(dir, `approvals-${i}.db`);
    const setup = openDatabase(path);
    const task = addTask(setup, newUserRequest(setup), { content: `Approve me ${i}` });
    setup.close();
    if (!task.ok) throw new Error(task.error);
    const why: string[] = [];
    const waiting = approvalChild([mode, path, task.value.id]);
    const w = await waiting.first;
    await kill9(waiting.child);
    if (!('waiting' in w) || !w.waiting) {
      failed.push(`${name}: the run did not wait (${'stderr' in w ? w.stderr.split('\n')[0] : '?'})`);
      continue;
    }
    const id = w.waiting;
    // The restart: the approval is still there, unanswered.
    let db = openDatabase(path);
    if (!listApprovals(db).some((a) => a.id === id)) why.push('not listed after the kill');
    db.close();
    const answering = answers.map((a) => approvalChild(['answer', path, id, a]));
    const firsts = await Promise.all(answering.map((c) => c.first));
    for (const c of answering) await kill9(c.child);
    const went = firsts.filter((f) => 'resumed' in f).length;
    const refused = firsts.filter((f) => 'ended' in f && /already answered|is still going on/.test(f.stderr)).length;
    if (went !== 1 || went + refused !== answers.length) why.push(`${went} answers went on, ${refused} refused of ${answers.length}`);

    db = openDatabase(path);
    try {
      const a = getApproval(db, id);
      const ran = runsOf(db, task.value.id);
      const status = getTask(db, task.value.id).status;
      const decided = a?.decision;
      if (decided === 'approve' && !(ran === 1 && status === 'done')) why.push(`approved, but the task was completed ${ran} times (${status})`);
      if (decided === 'decline' && !(ran === 0 && status === 'open')) why.push(`declined, but the task was completed ${ran} times (${status})`);
      if (decided !== 'approve' && decided !== 'decline') why.push(`the approval ends as ${String(decided)}`);
      if (!a?.continuedRunId) why.push('no run went on with it');
      // A second answer after everything: refused, nothing runs again.
      try {
        answerStoredApproval({ db, tools: TOOLS, live: createLiveRuns(), createModel: () => new ScriptedModel([]) }, id, 'approve', undefined, {}, () => {});
        why.push('a later answer was taken');
      } catch (e) {
        if (!/already answered/.test((e as Error).message)) why.push(`a later answer: ${(e as Error).message.slice(0, 60)}`);
      }
      if (runsOf(db, task.value.id) !== ran) why.push('the call ran again');
      const running = listRuns(db).filter((r) => r.status === 'running').length;
      if (running) why.push(`${running} runs still shown running`);
    } finally {
      db.close();
    }
    if (why.length) failed.push(`${name}: ${why.join(', ')}`);
    else survived++;
  }
  return [cases.length, survived, failed.length ? `NOT survived: ${failed.join(' | ')}` : cases.map(([n]) => n).join('; ')];
}
