/**
 * Reminders: a task whose due date has a time ('YYYY-MM-DDTHH:MM', local) is announced once when that
 * time comes. Which due time each task was announced for is kept in `reminders_sent` (not user data, so
 * not undone), so a restart does not announce it again, while a snoozed or moved task (a new due time) is
 * announced anew. The hosts turn the announcement into a notification (src-main/host: the `reminder.due`
 * event; src-main/app: an Electron Notification).
 */
import type { Task } from '../../src-shared/domain';
import type { Db } from './store/db';
import { cached } from './store/statements';
import { getTask, localDate } from './domain/tasks';

/** The clock and timers, injectable so tests can move time by hand. */
export interface ReminderClock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: ReminderClock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending reminder never keeps a process (a CLI command, a test) alive.
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface ReminderOptions {
  clock?: ReminderClock;
  /**
   * Due times further back than this are not announced: a task that fell due while Tidy was closed for a
   * week is shown as overdue, not as a burst of old notifications. Default 12 hours.
   */
  lookBackMs?: number;
  /** The longest wait between two looks (other processes may add or move tasks meanwhile). Default 60 s. */
  pollMs?: number;
}

interface Reminders {
  /** Announces what is due now; returns those tasks. The timer calls this; hosts may after a change. */
  check(): Task[];
  stop(): void;
}

const minuteOf = (d: Date): string => `${localDate(d)}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;

// Open tasks with a due time in (from, to], not yet announced for that due time. length(due) = 16 is a time.
const DUE = `
  SELECT t.id, t.due FROM tasks t LEFT JOIN reminders_sent r ON r.task_id = t.id
  WHERE t.status = 'open' AND length(t.due) = 16 AND t.due > ? AND t.due <= ? AND (r.due IS NULL OR r.due != t.due)
  ORDER BY t.due, t.rowid LIMIT 100`;
const NEXT = `SELECT min(due) AS due FROM tasks WHERE status = 'open' AND length(due) = 16 AND due > ?`;

export function startReminders(db: Db, onDue: (task: Task) => void, options: ReminderOptions = {}): Reminders {
  const clock = options.clock ?? systemClock;
  const lookBack = options.lookBackMs ?? 12 * 3600_000;
  const poll = options.pollMs ?? 60_000;
  let timer: unknown = null;
  let stopped = false;

  function check(): Task[] {
    if (stopped || !db.open) return [];
    const now = clock.now();
    const rows = cached(db, DUE).all(minuteOf(new Date(now.getTime() - lookBack)), minuteOf(now)) as { id: string; due: string }[];
    const sent = cached(db, `INSERT INTO reminders_sent (task_id, due, sent_at) VALUES (?, ?, ?) ON CONFLICT(task_id) DO UPDATE SET due = excluded.due, sent_at = excluded.sent_at`);
    const tasks: Task[] = [];
    // Recorded before it is shown: a crash in between loses one notification rather than repeating it forever.
    db.transaction(() => {
      for (const r of rows) {
        sent.run(r.id, r.due, now.toISOString());
        tasks.push(getTask(db, r.id));
      }
    })();
    for (const t of tasks) onDue(t);
    return tasks;
  }

  function schedule(): void {
    if (stopped) return;
    const now = clock.now();
    const next = db.open ? (cached(db, NEXT).get(minuteOf(now)) as { due: string | null }).due : null;
    // The next due minute starts at HH:MM:00 local time; wake just after it, or at the next poll.
    const wait = next ? Math.max(1000, Math.min(poll, new Date(`${next}:00`).getTime() - now.getTime() + 500)) : poll;
    timer = clock.setTimeout(tick, wait);
  }

  function tick(): void {
    try {
      check();
    } catch (e) {
      console.error(`tidy: reminders could not be checked: ${e instanceof Error ? e.message : String(e)}`);
    }
    schedule();
  }

  tick();
  return {
    check,
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}
