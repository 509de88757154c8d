/**
 * Routines as data (table `routines`, migration 14): a name, the request the agent gets, a schedule read
 * from quick-add repeat words ("every weekday at 8am") and stored as an RRULE, a first local start time and
 * an IANA time zone, where it writes (one conversation per routine, or a new one each run), the tools it
 * may use, on/off and what to do with missed runs. Every change is logged and undoable like any other.
 * Running them is src-main/core/routines/.
 */
import ICAL from 'ical.js';
import { parseQuickAdd } from '../../../src-shared/quickadd';
import { recurrenceWords, validRecurrence } from '../../../src-shared/repeat-rules';
import { wallIterator, wallOfLocal } from '../../../src-shared/rule-walk';
import type { ActionContext } from '../actions/log';
import { localZone, wallAt, wallToUtc } from '../calendar/zones';
import { fail } from '../fail';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { mutate, type Mutated } from './mutation';
import { assertNameFree, resolveNamed } from './named';
import { cleanName, cleanText, nameKey, now as nowIso, quote } from './text';

type ConversationMode = 'routine' | 'new';
type CatchUp = 'once' | 'skip';

export interface Routine {
  id: string;
  name: string;
  request: string;
  /** The schedule in words, as the user wrote it (or as Tidy words the rule). */
  schedule: string;
  rrule: string;
  /** The first occurrence, local wall time in `tz` (YYYY-MM-DDTHH:MM). */
  start: string;
  tz: string;
  conversation: ConversationMode;
  /** The tools it may use; null: every tool that is logged and undoable (never another app's MCP tools). */
  tools: string[] | null;
  enabled: boolean;
  catchUp: CatchUp;
  maxActions: number | null;
  timeLimitSec: number | null;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Bounds on what a routine holds: a request is a few paragraphs, a schedule a few words. */
export const ROUTINE_LIMITS = { requestChars: 2000, scheduleChars: 100, tools: 100, maxActions: 200, timeLimitSec: 1800 } as const;

const SCHEDULE_HINT = 'as in "every weekday at 8am", "every friday 4pm", "every day at 18:00" or "every 2 weeks on monday at 9am"';
const DEFAULT_TIME = '09:00';

interface RoutineRow {
  id: string;
  name: string;
  request: string;
  schedule: string;
  rrule: string;
  start: string;
  tz: string;
  conversation: ConversationMode;
  tools: string | null;
  enabled: number;
  catch_up: CatchUp;
  max_actions: number | null;
  time_limit_sec: number | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

function toRoutine(r: RoutineRow): Routine {
  let tools: string[] | null;
  try {
    const parsed = r.tools === null ? null : (JSON.parse(r.tools) as unknown);
    tools = Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : null;
  } catch {
    tools = null;
  }
  return {
    id: r.id,
    name: r.name,
    request: r.request,
    schedule: r.schedule,
    rrule: r.rrule,
    start: r.start,
    tz: r.tz,
    conversation: r.conversation,
    tools,
    enabled: r.enabled === 1,
    catchUp: r.catch_up,
    maxActions: r.max_actions,
    timeLimitSec: r.time_limit_sec,
    archived: r.archived_at !== null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

// --- schedules ----------------------------------------------------------------------------------

interface Schedule {
  rrule: string;
  start: string;
  tz: string;
  /** The schedule in words: "every weekday at 08:00". */
  words: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');
const localDateOf = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/**
 * Reads quick-add repeat words ("every weekday at 8am", "every friday 4pm") into a schedule: the RRULE,
 * the first local start on or after `now`, and the time zone (this machine's). Anything it cannot read
 * whole is one clear DomainError, never a fragment.
 */
export function parseSchedule(words: unknown, now: Date, tz: string = localZone()): Schedule {
  const text = String(words ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) fail('the schedule is empty', `say when it runs, ${SCHEDULE_HINT}`, 'invalid_arguments');
  if (text.length > ROUTINE_LIMITS.scheduleChars)
    fail(`the schedule is ${text.length} characters long (at most ${ROUTINE_LIMITS.scheduleChars})`, `a schedule is a few words, ${SCHEDULE_HINT}`, 'invalid_arguments');
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  const phrase = /^every\b/i.test(text) ? text : `every ${text}`;
  const parsed = parseQuickAdd(`x ${phrase}`, { projects: [], now });
  const onlySchedule = parsed.content === 'x' && parsed.parts.every((p) => p.kind === 'recurrence' || p.kind === 'date') && parsed.priority === null && parsed.labels.length === 0;
  if (!parsed.recurrence || !onlySchedule || !validRecurrence(parsed.recurrence))
    fail(`"${shown}" is not a schedule Tidy understands`, `write it ${SCHEDULE_HINT}`, 'invalid_arguments');
  const rrule = parsed.recurrence;
  const due = parsed.due;
  const start = due ? (due.length > 10 ? due : `${due}T${DEFAULT_TIME}`) : `${localDateOf(now)}T${DEFAULT_TIME}`;
  const time = start.slice(11, 16);
  // A schedule that never runs again (its walk finds no date ahead) is refused here, not found out later.
  if (nextRuns({ rrule, start, tz }, now.getTime(), 1).length === 0)
    fail(`"${shown}" never runs after ${start.replace('T', ' ')}`, `write it ${SCHEDULE_HINT}`, 'invalid_arguments');
  return { rrule, start, tz, words: `${recurrenceWords(rrule)} at ${time}` };
}

/** Walking a rule is bounded: a daily routine reaches decades ahead well within it. */
const MAX_STEPS = 50_000;

/**
 * The occurrences of a routine's schedule after `afterMs` (exclusive) up to `untilMs` (inclusive), as
 * UTC milliseconds, at most `max` of them (the latest ones when `latest`). Wall times are placed in the
 * routine's zone (a time that does not exist on a spring-forward day moves forward, as calendars do).
 * The rule is walked by src-shared/rule-walk.ts: a rule that finds no further date (FREQ=DAILY;INTERVAL=7;
 * BYDAY=TU from a Monday) ends the list in bounded time instead of walking for ever.
 */
export function occurrences(s: Pick<Routine, 'rrule' | 'start' | 'tz'>, afterMs: number, untilMs: number, max = 1000, latest = false): number[] {
  const out: number[] = [];
  if (!validRecurrence(s.rrule)) return out;
  const start = wallOfLocal(s.start);
  if (!start) return out;
  try {
    const it = wallIterator(ICAL.Recur.fromString(s.rrule), start, false);
    for (let i = 0; i < MAX_STEPS; i++) {
      const next = it.next();
      if (!next) break;
      const ms = wallToUtc({ ...next, s: 0 }, s.tz);
      if (ms <= afterMs) continue;
      if (ms > untilMs) break;
      out.push(ms);
      if (out.length > max) {
        if (!latest) return out.slice(0, max);
        out.shift();
      }
    }
  } catch {
    // A rule whose walk ran past its bound, or one ical.js cannot read: no further occurrences.
  }
  return out;
}

/** The next `n` runs after `nowMs`, as UTC milliseconds. */
export function nextRuns(s: Pick<Routine, 'rrule' | 'start' | 'tz'>, nowMs: number, n = 3): number[] {
  return occurrences(s, nowMs, Number.MAX_SAFE_INTEGER, n);
}

/** A run time in the routine's zone, for people: "Mon 2035-01-01 08:00". */
export function runTimeWords(ms: number, tz: string): string {
  const w = wallAt(ms, tz);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay()]!;
  return `${day} ${w.y}-${pad(w.m)}-${pad(w.d)} ${pad(w.h)}:${pad(w.mi)}`;
}

// --- reads ----------------------------------------------------------------------------------------

export function listRoutines(db: Db, opts: { all?: boolean } = {}): Routine[] {
  const rows = cached(db, `SELECT * FROM routines WHERE (? = 1 OR archived_at IS NULL) ORDER BY name_key`).all(opts.all ? 1 : 0) as RoutineRow[];
  return rows.map(toRoutine);
}

/** A routine by id or name (case-insensitive). */
export function resolveRoutine(db: Db, ref: string): Routine {
  return toRoutine(resolveNamed<RoutineRow>(db, 'routines', ref));
}

export function getRoutine(db: Db, id: string): Routine | null {
  const row = cached(db, `SELECT * FROM routines WHERE id = ?`).get(id) as RoutineRow | undefined;
  return row ? toRoutine(row) : null;
}

// --- changes (logged, undoable) -------------------------------------------------------------------

export interface RoutineInput {
  name: string;
  request: string;
  /** Repeat words; read with `parseSchedule`. */
  schedule: string;
  conversation?: ConversationMode;
  tools?: string[] | null;
  catchUp?: CatchUp;
  enabled?: boolean;
  maxActions?: number | null;
  timeLimitSec?: number | null;
}

const TOOL_NAME = /^[a-z0-9_]{1,64}$/;

function cleanTools(tools: unknown): string[] | null {
  if (tools === null || tools === undefined) return null;
  if (!Array.isArray(tools)) fail('the tools must be a list of tool names', 'name the tools, or leave them out for the default', 'invalid_arguments');
  if (tools.length > ROUTINE_LIMITS.tools) fail(`a routine lists at most ${ROUTINE_LIMITS.tools} tools`, 'leave the tools out for the default', 'invalid_arguments');
  const names = [...new Set(tools.map((t) => String(t).trim()))];
  const bad = names.find((t) => !TOOL_NAME.test(t));
  if (bad !== undefined) fail(`${quote(bad)} is not a tool name`, 'tool names are lower_snake_case, e.g. get_inbox_tasks', 'invalid_arguments');
  return names;
}

function cleanLimit(v: unknown, max: number, what: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) fail(`${what} must be a whole number from 1 to ${max}`, `or leave it out for the settings' value`, 'invalid_arguments');
  return v;
}

function cleanRequest(raw: unknown): string {
  const text = cleanText(raw, 'request');
  if (text.length > ROUTINE_LIMITS.requestChars) fail(`the request is ${text.length} characters long`, `use at most ${ROUTINE_LIMITS.requestChars}`, 'invalid_arguments');
  return text;
}

/** Adds a routine. Logged and undoable. `now` places the first run (default: the current time). */
export function addRoutine(db: Db, ctx: ActionContext, input: RoutineInput, now: Date = new Date()): Mutated<Routine> {
  return mutate(db, ctx, 'add_routine', { verb: 'added', kind: 'routine' }, input, (cs) => {
    const name = cleanName(input.name, 'routine');
    assertNameFree(db, 'routines', name);
    const request = cleanRequest(input.request);
    const s = parseSchedule(input.schedule, now);
    const t = nowIso();
    const row = cs.insert('routines', {
      id: nextId(db, 'o'),
      name,
      name_key: nameKey(name),
      request,
      schedule: s.words,
      rrule: s.rrule,
      start: s.start,
      tz: s.tz,
      conversation: input.conversation ?? 'routine',
      tools: (() => {
        const tools = cleanTools(input.tools);
        return tools === null ? null : JSON.stringify(tools);
      })(),
      enabled: input.enabled === false ? 0 : 1,
      catch_up: input.catchUp ?? 'once',
      max_actions: cleanLimit(input.maxActions, ROUTINE_LIMITS.maxActions, 'max actions'),
      time_limit_sec: cleanLimit(input.timeLimitSec, ROUTINE_LIMITS.timeLimitSec, 'the time limit'),
      archived_at: null,
      created_at: t,
      updated_at: t,
    });
    const routine = toRoutine(row as unknown as RoutineRow);
    return { value: routine, summary: `Added routine ${quote(name)}: ${s.words}` };
  });
}

type RoutinePatch = Partial<Omit<RoutineInput, 'name'>> & { routine: string; name?: string };

/** Changes a routine (name, request, schedule, mode, tools, catch-up, on/off, limits). Logged and undoable. */
export function editRoutine(db: Db, ctx: ActionContext, input: RoutinePatch, now: Date = new Date()): Mutated<Routine> {
  return mutate(db, ctx, 'edit_routine', { verb: 'updated', kind: 'routine' }, input, (cs) => {
    const r = resolveRoutine(db, input.routine);
    if (r.archived) fail(`routine ${quote(r.name)} was removed`, 'undo its removal first, or add it again');
    const patch: Record<string, string | number | null> = {};
    const said: string[] = [];
    if (input.name !== undefined) {
      const name = cleanName(input.name, 'routine');
      assertNameFree(db, 'routines', name, r.id);
      patch['name'] = name;
      patch['name_key'] = nameKey(name);
      said.push(`renamed to ${quote(name)}`);
    }
    if (input.request !== undefined) {
      patch['request'] = cleanRequest(input.request);
      said.push('request changed');
    }
    if (input.schedule !== undefined) {
      const s = parseSchedule(input.schedule, now);
      Object.assign(patch, { schedule: s.words, rrule: s.rrule, start: s.start, tz: s.tz });
      said.push(s.words);
    }
    if (input.conversation !== undefined) {
      patch['conversation'] = input.conversation;
      said.push(input.conversation === 'new' ? 'a new conversation each run' : 'one conversation');
    }
    if (input.tools !== undefined) {
      const tools = cleanTools(input.tools);
      patch['tools'] = tools === null ? null : JSON.stringify(tools);
      said.push(tools === null ? 'default tools' : `tools: ${tools.join(', ') || 'none'}`);
    }
    if (input.catchUp !== undefined) {
      patch['catch_up'] = input.catchUp;
      said.push(input.catchUp === 'once' ? 'missed runs caught up once' : 'missed runs skipped');
    }
    if (input.enabled !== undefined) {
      patch['enabled'] = input.enabled ? 1 : 0;
      said.push(input.enabled ? 'on' : 'paused');
    }
    if (input.maxActions !== undefined) patch['max_actions'] = cleanLimit(input.maxActions, ROUTINE_LIMITS.maxActions, 'max actions');
    if (input.timeLimitSec !== undefined) patch['time_limit_sec'] = cleanLimit(input.timeLimitSec, ROUTINE_LIMITS.timeLimitSec, 'the time limit');
    if (Object.keys(patch).length === 0) fail('nothing to change', 'say what to change: --every, --request, --name, --pause, --resume …');
    patch['updated_at'] = nowIso();
    const row = cs.update('routines', r.id, patch);
    const verb = input.enabled === false && said.length === 1 ? 'Paused' : input.enabled === true && said.length === 1 ? 'Resumed' : 'Changed';
    return { value: toRoutine(row as unknown as RoutineRow), summary: `${verb} routine ${quote(r.name)}${verb === 'Changed' && said.length ? `: ${said.join(', ')}` : ''}` };
  });
}

/** Removes a routine (archived: undo brings it back). Logged and undoable. */
export function removeRoutine(db: Db, ctx: ActionContext, input: { routine: string }): Mutated<Routine> {
  return mutate(db, ctx, 'remove_routine', { verb: 'removed', kind: 'routine' }, input, (cs) => {
    const r = resolveRoutine(db, input.routine);
    if (r.archived) fail(`routine ${quote(r.name)} was already removed`, 'nothing to do');
    const row = cs.update('routines', r.id, { archived_at: nowIso(), enabled: 0, updated_at: nowIso() });
    return { value: toRoutine(row as unknown as RoutineRow), summary: `Removed routine ${quote(r.name)}` };
  });
}
