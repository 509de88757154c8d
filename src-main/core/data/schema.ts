/**
 * Tidy's export format, version 1 (`tidy export --format json`; read back by `tidy import tidy`).
 *
 *   { "format": "tidy-export", "version": 1, "exportedAt": ISO time, "schemaVersion": the database schema
 *     that wrote it, "data": { counters, projects, tasks, lists, items, calendars, events, conversations,
 *     mcpSessions, messages, runs, steps, actions, actionEntities } }
 *
 * - Every row of those tables, in a fixed order (ids, or seq for the log and messages), every column under
 *   a camelCase name; timestamps are ISO 8601 strings as stored; `builtin` and `checked` are booleans.
 * - Columns that hold JSON (action args, result and changes, message tool calls, step payloads) are kept
 *   as the JSON text stored, so an import gives back exactly the same bytes.
 * - `counters.ids` is the next number per id kind (store/ids.ts) and `counters.sequences` the last seq of
 *   the log and of messages, so ids freed by an undo are never handed out again after an import.
 * - Not exported: settings and remembered model quirks (they belong to the machine, and API keys live in
 *   the OS keychain), the search index (rebuilt from the rows), the reminders already shown and the
 *   wikipedia tool's cache.
 * A new column or table is a new version of this format; a reader refuses versions newer than it knows.
 * Version 2 (schema 12): tasks gain description, parentId, sectionId, deadline, durationMin; new
 * collections sections, labels, taskLabels, comments and filters (absent from a version 1 file: read as empty).
 * Schema 13 adds, still as version 2, the collection memories and the conversations' incognito (a file
 * without them has no memories and no incognito conversation; when a memory was last used is not exported).
 * Schema 14's routines are exported with their history: the collections routineState (failures in a row, the
 * conversation a routine writes to), routineRuns (each claimed occurrence: run, catch-up, skip, with its
 * run and result) and approvals (waiting and answered; the card and arguments as the JSON text stored).
 * A file written before has none of them (read as empty).
 * Schema 18 gives messages an id (sync carries them); a file written before has none, and the import gives
 * its messages the first free ones. Sync's own tables (this device's state, its copy of the settings that
 * sync, routine claims) are never exported.
 * (Schema 6 added the tasks' recurrence, position and completedAt, schema 9 the conversations' archivedAt, as
 * optional fields of version 1: a file without them is read as one of an older schema, which `schemaVersion` says.)
 */
import { MAX_COUNTER } from '../store/trust';
import { z } from 'zod';

export const EXPORT_FORMAT = 'tidy-export';
/** Version 2 (schema 12) adds the tasks' rich fields and the sections, labels, taskLabels and comments collections; version 1 files are still read. */
export const EXPORT_VERSION = 2;

const text = z.string();
const maybe = z.string().nullable();
const id = z.string().min(1).max(200);
const int = z.number().int();

export const projectRow = z.strictObject({
  id,
  name: text,
  nameKey: text,
  builtin: z.boolean(),
  archivedAt: maybe,
  createdAt: text,
  updatedAt: text,
});
export const taskRow = z.strictObject({
  id,
  content: text,
  projectId: id,
  priority: int.min(1).max(4),
  due: maybe,
  // Since schema 6 (priority 1 = most urgent); files of older schemas have none of these and the old
  // priorities, which the import turns around (store/migrations.ts, upgradeTasksTo6).
  recurrence: maybe.optional(),
  position: z.number().optional(),
  status: z.enum(['open', 'done', 'archived']),
  completedAt: maybe.optional(),
  createdAt: text,
  updatedAt: text,
  // Since schema 12 (export version 2).
  description: maybe.optional(),
  parentId: id.nullable().optional(),
  sectionId: id.nullable().optional(),
  deadline: maybe.optional(),
  durationMin: int.nullable().optional(),
});
export const sectionRow = z.strictObject({ id, projectId: id, name: text, nameKey: text, position: z.number(), archivedAt: maybe, createdAt: text, updatedAt: text });
export const labelRow = z.strictObject({ id, name: text, nameKey: text, colour: maybe, createdAt: text, updatedAt: text });
export const taskLabelRow = z.strictObject({ id, taskId: id, labelId: id });
export const filterRow = z.strictObject({ id, name: text, nameKey: text, query: text, createdAt: text, updatedAt: text });
export const routineRow = z.strictObject({
  id,
  name: text,
  nameKey: text,
  request: text,
  schedule: text,
  rrule: text,
  start: text,
  tz: text,
  conversation: z.enum(['routine', 'new']),
  tools: maybe,
  enabled: int.min(0).max(1),
  catchUp: z.enum(['once', 'skip']),
  maxActions: int.nullable(),
  timeLimitSec: int.nullable(),
  archivedAt: maybe,
  createdAt: text,
  updatedAt: text,
});
export const routineStateRow = z.strictObject({ routineId: id, failures: int.min(0).max(1_000_000), conversationId: id.nullable(), pausedNote: maybe });
export const routineRunRow = z.strictObject({
  routineId: id,
  occurrence: z.string().min(1).max(200),
  kind: z.enum(['scheduled', 'catch_up', 'skipped', 'manual', 'continued']),
  claimedAt: text,
  claimedBy: text,
  runId: id.nullable(),
  status: z.enum(['running', 'done', 'error', 'cancelled', 'limit', 'waiting', 'skipped']),
  message: maybe,
  finishedAt: maybe,
});
export const approvalRow = z.strictObject({
  id,
  runId: id,
  conversationId: id,
  callId: text,
  tool: text,
  args: text,
  card: text,
  mode: z.enum(['live', 'detached']),
  ownerPid: int.nullable(),
  routineId: id.nullable(),
  createdAt: text,
  decidedAt: maybe,
  decision: z.enum(['approve', 'decline', 'always', 'expired']).nullable(),
  decidedArgs: maybe,
  continuedRunId: id.nullable(),
});
export const commentRow = z.strictObject({ id, taskId: id, text, createdAt: text, updatedAt: text });
export const listRow = z.strictObject({ id, name: text, nameKey: text, archivedAt: maybe, createdAt: text, updatedAt: text });
export const itemRow = z.strictObject({
  id,
  listId: id,
  text,
  checked: z.boolean(),
  archivedAt: maybe,
  position: int,
  createdAt: text,
  updatedAt: text,
});
export const calendarRow = z.strictObject({
  id,
  name: text,
  nameKey: text,
  kind: z.enum(['local', 'imported']),
  personName: maybe,
  personEmail: maybe,
  colour: text,
  source: maybe,
  prodid: maybe,
  archivedAt: maybe,
  createdAt: text,
  updatedAt: text,
});
export const eventRow = z.strictObject({
  id,
  calendarId: id,
  uid: text,
  recurrenceId: maybe,
  title: text,
  start: text,
  end: text,
  allDay: z.boolean(),
  tz: maybe,
  startMs: int,
  endMs: int,
  untilMs: int.nullable(),
  rrule: maybe,
  exdates: maybe,
  location: maybe,
  notes: maybe,
  attendees: text,
  busy: z.boolean(),
  taskId: maybe,
  cancelledAt: maybe,
  createdAt: text,
  updatedAt: text,
  // Added with schema 15 (plan blocks); an export written before has none.
  planId: maybe.default(null),
  pinned: z.boolean().default(false),
});
export const conversationRow = z.strictObject({ id, title: text, createdAt: text, updatedAt: text, archivedAt: maybe.optional(), incognito: z.boolean().optional() });
/** A memory (schema 13): conversationId and runId are where it came from (null: by hand), plain references. */
export const memoryRow = z.strictObject({
  id,
  text,
  projectId: id.nullable(),
  conversationId: id.nullable(),
  runId: id.nullable(),
  createdAt: text,
  updatedAt: text,
  archivedAt: maybe,
});
/** A session of another AI app through `tidy mcp`: the name its request carries in the action log. */
export const mcpSessionRow = z.strictObject({ id, clientName: text, clientVersion: maybe, startedAt: text });
export const messageRow = z.strictObject({
  seq: int.min(1),
  // schema 18: a message's id (sync carries it); a file from before has none, and the import gives them
  id: id.nullable().optional(),
  conversationId: id,
  runId: id.nullable(),
  role: z.enum(['user', 'assistant', 'tool']),
  content: maybe,
  toolCalls: maybe,
  toolCallId: maybe,
  createdAt: text,
});
export const runRow = z.strictObject({
  id,
  conversationId: id,
  status: z.enum(['running', 'done', 'error', 'cancelled', 'limit']),
  request: text,
  answer: maybe,
  message: maybe,
  model: text,
  baseUrl: text,
  protocol: z.enum(['native', 'json']),
  actions: int,
  promptTokens: int,
  completionTokens: int,
  totalTokens: int,
  startedAt: text,
  finishedAt: maybe,
  pid: int.nullable(),
  stopReason: maybe,
  cachedTokens: int,
});
export const stepRow = z.strictObject({ runId: id, seq: int, kind: text, payload: text });
export const actionRow = z.strictObject({
  seq: int.min(1),
  id,
  requestId: id,
  source: text,
  tool: text,
  args: text,
  result: maybe,
  changes: text,
  summary: text,
  /** JSON ActionWhat; absent in files of schema 10 and before (written on import, as migration 11 does). */
  what: maybe.optional(),
  createdAt: text,
  undoneAt: maybe,
  undoes: id.nullable(),
  /** How many of its changes were kept beside it (schema 21; absent before): action_rows is not exported, so such an action cannot be undone after an import. */
  spilled: int.min(0).optional(),
});
export const actionEntityRow = z.strictObject({ entity: text, actionSeq: int.min(1) });

// Never near the end of the range: a database with such a counter is refused at open (store/trust.ts).
const counter = int.min(0).max(MAX_COUNTER);
export const countersSchema = z.strictObject({
  ids: z.record(z.string().regex(/^[a-z]$/), counter),
  sequences: z.strictObject({ actions: counter, messages: counter }),
});

export const exportSchema = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.union([z.literal(1), z.literal(EXPORT_VERSION)]),
  exportedAt: text,
  schemaVersion: int.min(1),
  data: z.strictObject({
    counters: countersSchema,
    projects: z.array(projectRow),
    // Added with schema 12 (export version 2); a version 1 file has none.
    sections: z.array(sectionRow).default([]),
    tasks: z.array(taskRow),
    labels: z.array(labelRow).default([]),
    taskLabels: z.array(taskLabelRow).default([]),
    comments: z.array(commentRow).default([]),
    filters: z.array(filterRow).default([]),
    // Added with schema 13 (still export version 2: a file without them has none).
    memories: z.array(memoryRow).default([]),
    // Added with schema 14; an export written before has none.
    routines: z.array(routineRow).default([]),
    lists: z.array(listRow),
    items: z.array(itemRow),
    // Added with schema 7; an export written before has none (the Personal calendar comes with the database).
    calendars: z.array(calendarRow).default([]),
    events: z.array(eventRow).default([]),
    conversations: z.array(conversationRow),
    // Added with schema 8; an export written before has none.
    mcpSessions: z.array(mcpSessionRow).default([]),
    messages: z.array(messageRow),
    runs: z.array(runRow),
    steps: z.array(stepRow),
    actions: z.array(actionRow),
    actionEntities: z.array(actionEntityRow),
    // Added with schema 14 (still export version 2): routines' history and approvals; a file written before has none.
    routineState: z.array(routineStateRow).default([]),
    routineRuns: z.array(routineRunRow).default([]),
    approvals: z.array(approvalRow).default([]),
  }),
});
export type TidyExport = z.infer<typeof exportSchema>;
export type ExportData = TidyExport['data'];
export type Collection = Exclude<keyof ExportData, 'counters'>;

/**
 * How each collection maps to its table: export key → column, in the order written. `bools` are 0/1 in
 * the table and true/false in the file. The order is the order of import (references point backwards).
 */
export const COLLECTIONS: { key: Collection; table: string; order: string; columns: Record<string, string>; bools?: string[] }[] = [
  {
    key: 'projects',
    table: 'projects',
    order: 'id',
    columns: { id: 'id', name: 'name', nameKey: 'name_key', builtin: 'builtin', archivedAt: 'archived_at', createdAt: 'created_at', updatedAt: 'updated_at' },
    bools: ['builtin'],
  },
  {
    key: 'sections',
    table: 'sections',
    order: 'id',
    columns: {
      id: 'id',
      projectId: 'project_id',
      name: 'name',
      nameKey: 'name_key',
      position: 'position',
      archivedAt: 'archived_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  {
    key: 'tasks',
    table: 'tasks',
    order: 'id',
    columns: {
      id: 'id',
      content: 'content',
      projectId: 'project_id',
      priority: 'priority',
      due: 'due',
      recurrence: 'recurrence',
      position: 'position',
      status: 'status',
      completedAt: 'completed_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
      description: 'description',
      parentId: 'parent_id',
      sectionId: 'section_id',
      deadline: 'deadline',
      durationMin: 'duration_min',
    },
  },
  { key: 'labels', table: 'labels', order: 'id', columns: { id: 'id', name: 'name', nameKey: 'name_key', colour: 'colour', createdAt: 'created_at', updatedAt: 'updated_at' } },
  { key: 'taskLabels', table: 'task_labels', order: 'id', columns: { id: 'id', taskId: 'task_id', labelId: 'label_id' } },
  { key: 'comments', table: 'comments', order: 'id', columns: { id: 'id', taskId: 'task_id', text: 'text', createdAt: 'created_at', updatedAt: 'updated_at' } },
  { key: 'filters', table: 'filters', order: 'id', columns: { id: 'id', name: 'name', nameKey: 'name_key', query: 'query', createdAt: 'created_at', updatedAt: 'updated_at' } },
  {
    key: 'memories',
    table: 'memories',
    order: 'id',
    columns: {
      id: 'id',
      text: 'text',
      projectId: 'project_id',
      conversationId: 'conversation_id',
      runId: 'run_id',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
      archivedAt: 'archived_at',
    },
  },
  {
    key: 'routines',
    table: 'routines',
    order: 'id',
    columns: {
      id: 'id',
      name: 'name',
      nameKey: 'name_key',
      request: 'request',
      schedule: 'schedule',
      rrule: 'rrule',
      start: 'start',
      tz: 'tz',
      conversation: 'conversation',
      tools: 'tools',
      enabled: 'enabled',
      catchUp: 'catch_up',
      maxActions: 'max_actions',
      timeLimitSec: 'time_limit_sec',
      archivedAt: 'archived_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  {
    key: 'lists',
    table: 'lists',
    order: 'id',
    columns: { id: 'id', name: 'name', nameKey: 'name_key', archivedAt: 'archived_at', createdAt: 'created_at', updatedAt: 'updated_at' },
  },
  {
    key: 'items',
    table: 'list_items',
    order: 'id',
    columns: {
      id: 'id',
      listId: 'list_id',
      text: 'text',
      checked: 'checked',
      archivedAt: 'archived_at',
      position: 'position',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
    bools: ['checked'],
  },
  {
    key: 'calendars',
    table: 'calendars',
    order: 'id',
    columns: {
      id: 'id',
      name: 'name',
      nameKey: 'name_key',
      kind: 'kind',
      personName: 'person_name',
      personEmail: 'person_email',
      colour: 'colour',
      source: 'source',
      prodid: 'prodid',
      archivedAt: 'archived_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  {
    key: 'events',
    table: 'events',
    order: 'id',
    columns: {
      id: 'id',
      calendarId: 'calendar_id',
      uid: 'uid',
      recurrenceId: 'recurrence_id',
      title: 'title',
      start: 'start',
      end: 'end',
      allDay: 'all_day',
      tz: 'tz',
      startMs: 'start_ms',
      endMs: 'end_ms',
      untilMs: 'until_ms',
      rrule: 'rrule',
      exdates: 'exdates',
      location: 'location',
      notes: 'notes',
      attendees: 'attendees',
      busy: 'busy',
      taskId: 'task_id',
      cancelledAt: 'cancelled_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
      planId: 'plan_id',
      pinned: 'pinned',
    },
    bools: ['allDay', 'busy', 'pinned'],
  },
  {
    key: 'conversations',
    table: 'conversations',
    order: 'id',
    columns: { id: 'id', title: 'title', createdAt: 'created_at', updatedAt: 'updated_at', archivedAt: 'archived_at', incognito: 'incognito' },
    bools: ['incognito'],
  },
  { key: 'mcpSessions', table: 'mcp_sessions', order: 'id', columns: { id: 'id', clientName: 'client_name', clientVersion: 'client_version', startedAt: 'started_at' } },
  {
    key: 'messages',
    table: 'messages',
    order: 'seq',
    columns: {
      seq: 'seq',
      id: 'id',
      conversationId: 'conversation_id',
      runId: 'run_id',
      role: 'role',
      content: 'content',
      toolCalls: 'tool_calls',
      toolCallId: 'tool_call_id',
      createdAt: 'created_at',
    },
  },
  {
    key: 'runs',
    table: 'runs',
    order: 'id',
    columns: {
      id: 'id',
      conversationId: 'conversation_id',
      status: 'status',
      request: 'request',
      answer: 'answer',
      message: 'message',
      model: 'model',
      baseUrl: 'base_url',
      protocol: 'protocol',
      actions: 'actions',
      promptTokens: 'prompt_tokens',
      completionTokens: 'completion_tokens',
      totalTokens: 'total_tokens',
      startedAt: 'started_at',
      finishedAt: 'finished_at',
      pid: 'pid',
      stopReason: 'stop_reason',
      cachedTokens: 'cached_tokens',
    },
  },
  { key: 'steps', table: 'steps', order: 'run_id, seq', columns: { runId: 'run_id', seq: 'seq', kind: 'kind', payload: 'payload' } },
  {
    key: 'actions',
    table: 'actions',
    order: 'seq',
    columns: {
      seq: 'seq',
      id: 'id',
      requestId: 'request_id',
      source: 'source',
      tool: 'tool',
      args: 'args',
      result: 'result',
      changes: 'changes',
      summary: 'summary',
      what: 'what',
      createdAt: 'created_at',
      undoneAt: 'undone_at',
      undoes: 'undoes',
      spilled: 'spilled',
    },
  },
  { key: 'actionEntities', table: 'action_entities', order: 'action_seq, entity', columns: { entity: 'entity', actionSeq: 'action_seq' } },
  { key: 'routineState', table: 'routine_state', order: 'routine_id', columns: { routineId: 'routine_id', failures: 'failures', conversationId: 'conversation_id', pausedNote: 'paused_note' } },
  {
    key: 'routineRuns',
    table: 'routine_runs',
    order: 'routine_id, occurrence',
    columns: {
      routineId: 'routine_id',
      occurrence: 'occurrence',
      kind: 'kind',
      claimedAt: 'claimed_at',
      claimedBy: 'claimed_by',
      runId: 'run_id',
      status: 'status',
      message: 'message',
      finishedAt: 'finished_at',
    },
  },
  {
    key: 'approvals',
    table: 'approvals',
    order: 'id',
    columns: {
      id: 'id',
      runId: 'run_id',
      conversationId: 'conversation_id',
      callId: 'call_id',
      tool: 'tool',
      args: 'args',
      card: 'card',
      mode: 'mode',
      ownerPid: 'owner_pid',
      routineId: 'routine_id',
      createdAt: 'created_at',
      decidedAt: 'decided_at',
      decision: 'decision',
      decidedArgs: 'decided_args',
      continuedRunId: 'continued_run_id',
    },
  },
];

/** Tables (and columns) deliberately left out of the export; a test checks that every other column is in it. */
export const NOT_EXPORTED = ['settings', 'model_protocols', 'model_quirks', 'search_docs', 'id_counters', 'sqlite_sequence', 'reminders_sent', 'wikipedia_cache', 'memory_uses',
  // This device's sync state (its target, clocks, outbox, cursors): per device, never exported; an import on a synced device syncs as new changes.
  'sync_state', 'sync_cells', 'sync_outbox', 'sync_cursors', 'sync_devices', 'sync_pending', 'sync_read',
  // Sync's record of values overwritten by a concurrent edit on another device: history of sync itself, kept by it.
  'sync_conflicts',
  // The row images of large actions (an import of 100,000 events), kept beside the log on this device for undo;
  // an exported action says how many it had (`spilled`), and after an import its undo refuses in one line.
  'action_rows',
  // Sync's copy of the settings that sync (settings are not exported either), and which device runs a routine.
  'synced_settings', 'routine_claims'];
