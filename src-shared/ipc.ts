/**
 * The IPC contract between the UI and the main side: every request channel with its input and output
 * schema, and every event the main side pushes. It is the one source of truth: the handlers, both
 * transports (Electron ipcMain and the loopback WebSocket), the preload and the renderer's types are
 * derived from it, and nothing restates a payload shape.
 *
 * The renderer imports this module with `import type` only; the main side and the preload parse with it.
 */
import { z } from 'zod';
import { ActionWhat } from './actions';
import { SearchKind } from './entities';
import { ActionEntry, ActionSource, Comment, DueDate, List, ListItem, Project, Section, Task, TaskStatus } from './domain';
import { CalendarEvent, CalendarInfo, DateTimeText, FreeSlot, ImportReport } from './calendar';
import { MAX_UPLOAD_BYTES, UPLOAD_PART_BYTES } from './bounds';
import { TOPICS } from './topics';
import { DATA_TOPICS, Id, mutationOutput, Name, OPERATIONS, Ref, Text, Topic, type AnyOperationSpec } from './operations';
import { AgentEvent, ApprovalDecision, RunInfo } from './events';
import { PendingApproval } from './approvals';
import { RoutineInfo, RoutineRun } from './routines';
import { PlanArgs, PlanBlockEdit, ShownPlan } from './plan';
import { ConnectionReport, DetectedServer, KeyStatus, PresetId, ProfileId, ProviderProfile } from './providers';
import { McpServerName, McpToolInfo } from './mcp';
import { Memory, MemoryBudgetReport } from './memory';
import { ApprovalPolicy, SETTING_KEYS, SETTINGS, type SettingKey } from './settings';

export { DATA_TOPICS, Topic } from './operations';

const Empty = z.object({}).strict();

/** The channels of the logged changes, one per operation (src-shared/operations.ts), derived. */
type OperationChannels = {
  [S in AnyOperationSpec as S['channel']]: { input: S['input']; output: z.ZodObject<{ value: S['output']; actionId: z.ZodString }>; changes: readonly Topic[] };
};
const operationChannels = Object.fromEntries(
  OPERATIONS.map((s) => [s.channel, { input: s.input, output: mutationOutput(s.output), changes: [...s.changes, 'actions'] }]),
) as unknown as OperationChannels;

/** What an undo (or redo) did: the actions reversed and the new log entries that record it. */
const UndoReport = z.object({
  /** `subject`: the summary of the change an undo or redo is about (the first of its chain). */
  reversed: z.array(z.object({ id: z.string(), summary: z.string(), what: ActionWhat, subject: z.string() })),
  created: z.array(z.string()),
  /** The request undone or redone as a whole (actions.undoRequest, undoLast, redoRequest). */
  requestId: z.string().optional(),
  /** Rows that came back under another name, theirs being taken now (one line each). */
  renamed: z.array(z.string()).optional(),
});

/** One request in the action log: a user command or an agent run, with its actions newest first. */
export const ActionGroup = z.object({
  requestId: z.string(),
  source: ActionSource,
  /** For an agent run, the user's message it answered, so the log can say which request it was; null otherwise. */
  request: z.string().nullable(),
  actions: z.array(ActionEntry),
});
export type ActionGroup = z.infer<typeof ActionGroup>;

const settingShape = Object.fromEntries(SETTING_KEYS.map((k) => [k, SETTINGS[k].schema])) as {
  [K in SettingKey]: (typeof SETTINGS)[K]['schema'];
};
/** All settings, stored values over defaults. */
export const SettingsSchema = z.object(settingShape);

const ProjectWithCount = Project.extend({ openTasks: z.number().int() });

const TaskView = z.enum(['today', 'upcoming', 'completed']);
const LocalDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD');

const TaskCounts = z.object({ inbox: z.number().int(), today: z.number().int(), overdue: z.number().int(), upcoming: z.number().int() });
type TaskCounts = z.infer<typeof TaskCounts>;

export { SearchKind } from './entities';
/**
 * One match: `title` is the task's content, the name, the item's text, the event's or the conversation's
 * title; `snippet` the matching words in context (plain text, the matches between « and »);
 * `parentId`/`parent` the task's project, the item's list, the event's calendar (null otherwise); `done` a
 * completed task or a checked item; `start`, for an event only, its (first) start as an ISO 8601 instant.
 */
export const SearchHit = z.object({
  kind: SearchKind,
  id: z.string(),
  title: z.string(),
  snippet: z.string(),
  parentId: z.string().nullable(),
  parent: z.string().nullable(),
  done: z.boolean(),
  start: z.string().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;
/** Matches grouped by kind (tasks, projects, lists, items, events, conversations; empty groups left out), each best first; `total` before the limit. */
export const SearchResults = z.object({ groups: z.array(z.object({ kind: SearchKind, hits: z.array(SearchHit) })), total: z.number().int() });
export type SearchResults = z.infer<typeof SearchResults>;

/** A reminder: the task whose due time has come. */
const ReminderDue = z.object({ task: Task });
type ReminderDue = z.infer<typeof ReminderDue>;

export const Conversation = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** When it was archived (out of the list, kept); null for a live one. */
  archivedAt: z.string().nullable().optional(),
  /** An incognito conversation neither reads nor writes memory (present only when true). */
  incognito: z.literal(true).optional(),
});
export type Conversation = z.infer<typeof Conversation>;

/** A stored message of a conversation, as the model saw it (tool calls and results included). */
const ConversationMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.string() }),
]);
type ConversationMessage = z.infer<typeof ConversationMessage>;

/** A run just started: follow it through `agent.event` (its first events may arrive before this reply). */
const StartedRun = z.object({ runId: z.string(), conversationId: z.string() });

/** The provider profiles and which one requests use. */
const Profiles = z.object({ profiles: z.array(ProviderProfile), active: ProfileId });

/** A user's message for the agent. */
const Message = z.string().trim().min(1, 'say what Tidy should do').max(20_000);

/**
 * Files from the UI (a Todoist export, an .ics calendar) go in parts (src-main/host/uploads.ts):
 * `uploads.start`, then `uploads.add` for each part in order, then the channel that uses the file names
 * the upload. A part is small enough for one frame of the web host (src-main/host/web.ts).
 */
const UploadId = z.string().regex(/^up_[A-Za-z0-9_-]{22}$/, 'not an upload id');
const UploadName = z.string().trim().min(1).max(300);

/** A Todoist CSV export or backup ZIP, sent as an upload. */
const TodoistUpload = z.object({ upload: UploadId, project: z.string().max(200).optional() });
const TodoistPreview = z.object({
  projects: z.array(z.object({ name: z.string(), isNew: z.boolean(), tasks: z.number().int(), sections: z.array(z.string()), sample: z.array(z.string()) })),
  totals: z.object({
    projects: z.number().int(),
    newProjects: z.number().int(),
    tasks: z.number().int(),
    sections: z.number().int(),
    notes: z.number().int(),
    descriptions: z.number().int(),
    subtasks: z.number().int(),
    recurring: z.number().int(),
    unreadDates: z.number().int(),
  }),
  /** The plan in words, one line each (as `tidy import todoist --dry-run` prints it). */
  lines: z.array(z.string()),
});
type TodoistPreview = z.infer<typeof TodoistPreview>;
const TodoistImported = TodoistPreview.extend({ requestId: z.string(), backup: z.string().nullable() });
const BackupFile = z.object({ path: z.string(), at: z.string(), bytes: z.number().int() });
type BackupFile = z.infer<typeof BackupFile>;

/** A label with its number of open tasks (the Labels view). */
export const LabelInfo = z.object({ id: z.string(), name: z.string(), colour: z.string().nullable(), openTasks: z.number().int() });
export type LabelInfo = z.infer<typeof LabelInfo>;
/** A named query of the filter language (the sidebar's saved filters). */
export const SavedFilter = z.object({ id: z.string(), name: z.string(), query: z.string() });
export type SavedFilter = z.infer<typeof SavedFilter>;

/** A request channel: what the caller sends, what it gets back, and which views it can make stale. */
export interface ChannelDef {
  input: z.ZodType;
  output: z.ZodType;
  changes?: readonly Topic[];
}

/**
 * What a quick-add line held that stayed in its text, as data (each box words it): a #name that is no
 * project, with the nearest project's name when one is close; a repeat Tidy does not read.
 */
export const QuickAddUnread = z.object({
  project: z.object({ name: z.string(), suggestion: z.string().nullable() }).nullable(),
  repeat: z.string().nullable(),
});
export type QuickAddUnread = z.infer<typeof QuickAddUnread>;

const logged = ['actions'] as const;

/** Every request channel. Add a channel here, then its handler in src-main/host/handlers.ts: the types force both. */
/** Sync as the window shows it (Settings → Sync, the sidebar's status line). */
export const SyncView = z.object({
  on: z.boolean(),
  kind: z.enum(['folder', 'webdav']).nullable(),
  /** The folder's path or the WebDAV URL. */
  target: z.string().nullable(),
  user: z.string().nullable(),
  /** This device's name, as the other devices list it. */
  name: z.string().nullable(),
  device: z.string().nullable(),
  lastSyncedAt: z.string().nullable(),
  /** Local changes not sent yet. */
  pending: z.number().int(),
  /** Received changes waiting: made by a newer Tidy, for a row not arrived yet, or not valid here (`waitingText` says which). */
  waiting: z.number().int(),
  /** The waiting changes and why, in one line; null when none waits. */
  waitingText: z.string().nullable().default(null),
  /** The latest names two devices both gave a row, settled by sync, newest first: one line each. */
  renamed: z.array(z.string()).default([]),
  devices: z.array(z.object({ name: z.string(), lastSeen: z.string().nullable(), self: z.boolean() })),
  running: z.boolean(),
  /** No key to sync with: the passphrase is to be entered (Settings → Sync). */
  locked: z.boolean(),
  /** The last error in one line, and what to do. */
  error: z.object({ text: z.string(), hint: z.string() }).nullable(),
  /** How to set sync up (sync is set up from the CLI). */
  setup: z.string(),
});
export type SyncView = z.infer<typeof SyncView>;

/** A value lost to a concurrent edit on another device (or, `merged`, two texts kept as one). */
export const SyncConflict = z.object({
  column: z.string(),
  lostValue: z.union([z.string(), z.number(), z.null()]),
  lostAt: z.string(),
  lostDevice: z.string(),
  wonAt: z.string(),
  wonDevice: z.string(),
  merged: z.boolean(),
});
export type SyncConflict = z.infer<typeof SyncConflict>;
/** The tables whose rows have a sync history in the window (each shown where that row is edited). */
export const SyncHistoryTable = z.enum(['tasks', 'events', 'projects', 'lists', 'routines']);
export type SyncHistoryTable = z.infer<typeof SyncHistoryTable>;

export const channels = {
  ...operationChannels,

  // --- tasks --------------------------------------------------------------------------------------
  /**
   * A project's tasks in their manual order (capture order unless reordered; tasks of all projects in
   * capture order), with the total before paging. `project`
   * is an id or name (e.g. 'inbox'). A `view` instead of a status: `today` open tasks due today or before
   * (overdue ones first), `upcoming` open tasks due from today to the 7th day, both by due date;
   * `completed` done tasks, the most recently completed first. `today` is the caller's local date
   * (YYYY-MM-DD), the host's by default.
   */
  'tasks.list': {
    input: z.object({
      project: Ref.optional(),
      status: z.union([TaskStatus, z.literal('all')]).optional(),
      view: TaskView.optional(),
      today: LocalDate.optional(),
      limit: z.number().int().min(0).max(10_000).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    output: z.object({ tasks: z.array(Task), total: z.number().int() }),
  },
  /** The sidebar's numbers: open tasks in the inbox, due today or before (`today`), before today (`overdue`), and in Upcoming. */
  'tasks.counts': { input: z.object({ today: LocalDate.optional() }), output: TaskCounts },

  // --- rich tasks in the window: filters, labels, sections, comments, subtask progress (schema 12) ---
  /**
   * The tasks a query of the filter language (src-main/core/domain/filter.ts) matches: open ones unless
   * `status` says otherwise, by due date (undated last), priority and manual order; with the total. A bad
   * query is refused with one line naming the position and what was expected.
   */
  'tasks.find': {
    input: z.object({
      filter: z.string().max(4000),
      status: z.enum(['open', 'done', 'all']).optional(),
      today: LocalDate.optional(),
      limit: z.number().int().min(0).max(10_000).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    output: z.object({ tasks: z.array(Task), total: z.number().int() }),
  },
  /** A task's comments, oldest first. */
  'tasks.comments': { input: z.object({ task: Id }), output: z.array(Comment) },
  /** For each task: how many of its direct subtasks there are (archived ones aside) and how many are done ("2/5"). */
  'tasks.progress': {
    input: z.object({ tasks: z.array(Id).max(10_000) }),
    output: z.array(z.object({ id: z.string(), done: z.number().int(), total: z.number().int() })),
  },
  /** A project's live sections in their order (archived ones too when asked). */
  'sections.list': { input: z.object({ project: Ref, includeArchived: z.boolean().optional() }), output: z.array(Section) },
  /** Every label with its number of open tasks, by name. */
  'labels.list': { input: Empty, output: z.array(LabelInfo) },
  /** Saved filters, by name. */
  'filters.list': { input: Empty, output: z.array(SavedFilter) },
  /** Saves a named filter (or gives a saved one a new query); the query must compile. Logged and undoable. */
  'filters.save': { input: z.object({ name: Name, query: z.string().max(4000) }), output: mutationOutput(SavedFilter), changes: ['tasks', ...logged] },
  /** Deletes a saved filter (by id or name). Logged and undoable. */
  'filters.delete': { input: z.object({ filter: Ref }), output: mutationOutput(SavedFilter), changes: ['tasks', ...logged] },

  // --- search -------------------------------------------------------------------------------------
  /**
   * Words over tasks, projects, lists, list items and conversations (titles, the user's messages and the
   * answers), best matches first, grouped by kind. Any text is a safe query (FTS5 syntax is not interpreted).
   */
  'search.query': { input: z.object({ query: z.string().max(10_000), limit: z.number().int().min(1).max(200).optional() }), output: SearchResults },

  // --- projects -----------------------------------------------------------------------------------
  /** Live projects (Inbox first, then by name) with their number of open tasks; archived ones when asked. */
  'projects.list': { input: z.object({ includeArchived: z.boolean().optional() }), output: z.array(ProjectWithCount) },

  // --- lists --------------------------------------------------------------------------------------
  'lists.list': { input: z.object({ includeArchived: z.boolean().optional() }), output: z.array(List) },
  /** One list and its items in order. */
  'lists.items': {
    input: z.object({ list: Ref, includeArchived: z.boolean().optional() }),
    output: z.object({ list: List, items: z.array(ListItem) }),
  },

  // --- calendar (src-shared/calendar.ts) ---------------------------------------------------------
  /**
   * The occurrences overlapping [from, to) in every live calendar, earliest first, recurring events
   * expanded; at most 5,000 (`truncated` says when there were more).
   */
  'events.list': {
    input: z.object({ from: DateTimeText, to: DateTimeText, includeCancelled: z.boolean().optional() }),
    output: z.object({ events: z.array(CalendarEvent), truncated: z.boolean() }),
  },
  /** Imports an uploaded .ics file (UTF-8), as `calendars.import` does with its text. */
  'calendars.importUpload': {
    input: z.object({ upload: UploadId, person: z.string().trim().max(200).optional() }),
    output: mutationOutput(ImportReport),
    changes: ['events', 'actions'],
  },
  /**
   * The first occurrence starting at or after `at` (`next`), or the last one starting before it
   * (`previous`), in every live calendar; null when there is none (within 50 years).
   */
  'events.adjacent': {
    input: z.object({ at: DateTimeText, direction: z.enum(['next', 'previous']) }),
    output: CalendarEvent.nullable(),
  },
  /** Live calendars: Personal first, then imported ones by name. */
  'calendars.list': { input: Empty, output: z.array(CalendarInfo) },
  /**
   * Free time in working hours (settings workStart, workEnd, workDays) between from and to (default: now
   * to 14 days on), never in the past, at least `durationMin` long (default 30), when the user and every
   * attendee (a person's name or email, whose calendar was imported) are free. Earliest first, at most 50.
   */
  'events.free': {
    input: z.object({
      from: DateTimeText.optional(),
      to: DateTimeText.optional(),
      durationMin: z.number().int().min(5).max(1440).optional(),
      attendees: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
    }),
    output: z.object({ slots: z.array(FreeSlot), total: z.number().int() }),
  },

  /**
   * A proposed plan (nothing written): tasks by id or filter (neither: those due or with a deadline by
   * `to`) placed into free working time in [from, to); `plan` re-plans that plan. The approval card of
   * plan_tasks shows it; approving sends the blocks back as the tool's `blocks`.
   */
  'plans.propose': { input: PlanArgs.extend({ plan: Id.optional() }), output: ShownPlan },
  /**
   * Applies a plan as the user left it on a card outside the chat (Today's "Plan my day"): the blocks to
   * write (dropped ones left out), as one undoable request; `plan` re-plans that plan.
   */
  'plans.apply': {
    input: z.object({ blocks: z.array(PlanBlockEdit).max(2000), plan: Id.optional() }),
    output: mutationOutput(z.object({ plan: z.string(), created: z.number(), moved: z.number(), cancelled: z.number(), kept: z.number() })),
    changes: ['events', 'tasks', ...logged],
  },
  /**
   * Plan blocks missed in the last 7 days (ended while their task is open, and the task has no block
   * still to come), earliest first, at most 500: Today offers them for re-planning; nothing is moved.
   */
  'plans.missed': {
    input: Empty,
    output: z.array(z.object({ event_id: z.string(), task_id: z.string(), task: z.string(), plan: z.string(), start: z.string(), end: z.string() })),
  },

  // --- quick capture ------------------------------------------------------------------------------
  /**
   * The one way a box adds a task (every add field of the window and the quick-capture window): the
   * text as typed, read with the quick-add grammar (src-shared/quickadd.ts) on the main side as `tidy add`
   * reads it: a date, #Project, p1–p4, every …. `project`, `section` and `due` are the box's defaults (a
   * project view's project and section, Today's date): the text's own #Project or date wins over them.
   * `createProject`: a #name that is no project becomes one, in the same request as the add (undone together).
   * `unread` says as data what stayed in the text (a #name that is no project, with the nearest
   * project's name; a repeat not read); `note` says it in words for a terminal.
   */
  'capture.add': {
    input: z.object({ text: Text, project: Ref.optional(), section: Ref.optional(), due: DueDate.optional(), createProject: z.boolean().optional() }),
    output: mutationOutput(Task).extend({ note: z.string().nullable(), unread: QuickAddUnread, createdProject: z.string().nullable(), requestId: z.string().optional() }),
    changes: ['tasks', 'projects', ...logged],
  },

  /** Sends the text to the agent instead, in a new conversation. */
  'capture.ask': { input: z.object({ text: Message }), output: StartedRun, changes: ['conversations', 'runs'] },
  /**
   * "Open in Tidy" from the quick-capture window: the main window comes to the front with this
   * conversation open (the `app.open` event tells it which).
   */
  'app.open': { input: z.object({ conversationId: Id }), output: z.object({ opened: z.boolean() }) },

  // --- the agent ----------------------------------------------------------------------------------
  /**
   * Starts a run for a message, in a conversation (or a new one). Refused at once, with what to do, when
   * the model cannot be reached for lack of a key. Every step then arrives as an `agent.event`.
   */
  'agent.send': { input: z.object({ message: Message, conversationId: Id.optional() }), output: StartedRun, changes: ['conversations', 'runs'] },
  /** Cancels a run of this app by id; false when it is not running (any more). */
  'agent.cancel': { input: z.object({ runId: Id }), output: z.object({ cancelled: z.boolean() }) },
  /**
   * Answers an approval a run waits for; `always` also stops asking for that tool. False when nothing waits.
   * `args`: the tool's arguments as the user edited them on the approval card (approve or always only); they
   * are checked against the tool's schema (a `failed` reply with reason `invalid_arguments` leaves the
   * approval waiting), the tool runs with them, and the model is told in words what the user changed.
   */
  'agent.approve': {
    input: z.object({ runId: Id, approvalId: Id, decision: ApprovalDecision, args: z.record(z.string(), z.json()).optional() }),
    output: z.object({ answered: z.boolean() }),
    changes: ['settings'],
  },
  /**
   * The agent's tools: what each does, whether it changes data (those can be set to ask first:
   * `approvals.<tool>`), and whether it asks unless the user says otherwise.
   */
  'agent.tools': {
    input: Empty,
    /** `alwaysAsks`: the tool asks every time whatever the settings say (create_routine); not configurable. */
    output: z.array(z.object({ name: z.string(), description: z.string(), changes: z.boolean(), approval: ApprovalPolicy, alwaysAsks: z.literal(true).optional() })),
  },

  // --- memory (the changes are operations: memory.add, memory.update, memory.forget) ---------------
  /**
   * Memories, oldest first (forgotten ones after the live ones when asked), with whether memory is on and
   * what a request's prompt carries now under the budget (how many were left out).
   */
  'memory.list': {
    input: z.object({ query: z.string().max(500).optional(), includeArchived: z.boolean().optional(), conversationId: Id.optional() }),
    output: z.object({ memories: z.array(Memory), enabled: z.boolean(), budget: MemoryBudgetReport }),
  },

  // --- conversations and runs ---------------------------------------------------------------------
  /** Conversations, the most recently active first: the live ones, or (`archived`) only the archived ones. */
  'conversations.list': {
    input: z.object({ limit: z.number().int().min(1).max(10_000).optional(), archived: z.boolean().optional() }),
    output: z.array(Conversation),
  },
  'conversations.create': { input: z.object({ title: Name.optional(), incognito: z.boolean().optional() }), output: Conversation, changes: ['conversations'] },
  'conversations.rename': { input: z.object({ id: Id, title: Name }), output: Conversation, changes: ['conversations'] },
  /** Moves a conversation out of the list (kept, with its runs and traces), or back into it. */
  /** `forgetMemories`: also forget the memories this conversation made (each a logged, undoable change of one request). */
  'conversations.archive': { input: z.object({ id: Id, forgetMemories: z.boolean().optional() }), output: Conversation, changes: ['conversations', 'memory', 'actions'] },
  'conversations.unarchive': { input: z.object({ id: Id }), output: Conversation, changes: ['conversations'] },
  /** A conversation's stored messages, oldest first. */
  'conversations.messages': { input: z.object({ id: Id }), output: z.array(ConversationMessage) },
  /** A conversation as a file to save: Markdown to read, or JSON with every run and its full trace. */
  'conversations.export': {
    input: z.object({ id: Id, format: z.enum(['markdown', 'json']) }),
    output: z.object({ filename: z.string(), mimeType: z.string(), content: z.string() }),
  },
  /** Runs, newest first; of one conversation when given. */
  'runs.list': { input: z.object({ conversationId: Id.optional(), limit: z.number().int().min(1).max(10_000).optional() }), output: z.array(RunInfo) },
  /** One run and its trace: the events as they were shown live (streamed text pieces aside). */
  'runs.trace': { input: z.object({ runId: Id }), output: z.object({ run: RunInfo, events: z.array(AgentEvent) }) },

  // --- the action log and undo --------------------------------------------------------------------
  /**
   * The action log, newest first, grouped by request. Pass the previous page's `nextBefore` as
   * `before` for the next page; a request cut by the page size continues (same requestId) on the next one.
   */
  'actions.list': {
    input: z.object({ limit: z.number().int().min(1).max(1000).optional(), before: Id.optional(), requestId: Id.optional() }),
    output: z.object({ groups: z.array(ActionGroup), nextBefore: z.string().nullable() }),
  },
  /** Undo one action; with `cascade`, first the later actions that touched the same data. */
  'actions.undo': { input: z.object({ actionId: Id, cascade: z.boolean().optional() }), output: UndoReport, changes: DATA_TOPICS },
  /** Undo everything a request (a user command or an agent run) changed, all or nothing. */
  'actions.undoRequest': { input: z.object({ requestId: Id, cascade: z.boolean().optional() }), output: UndoReport, changes: DATA_TOPICS },
  /** Undo the most recent request that still has changes in effect. */
  'actions.undoLast': { input: Empty, output: UndoReport, changes: DATA_TOPICS },
  /**
   * Redo an undone action (the id of the action that shows as undone): undoes its undo; with `cascade`,
   * first the later actions that touched the same data.
   */
  'actions.redo': { input: z.object({ actionId: Id, cascade: z.boolean().optional() }), output: UndoReport, changes: DATA_TOPICS },
  /** Redo every undone change of a request (oldest first), all or nothing. */
  'actions.redoRequest': { input: z.object({ requestId: Id, cascade: z.boolean().optional() }), output: UndoReport, changes: DATA_TOPICS },

  // --- files from the UI, in parts ------------------------------------------------------------------
  /** Announces a file of `size` bytes; its id for the parts and for the channel that uses it. */
  'uploads.start': { input: z.object({ name: UploadName, size: z.number().int().min(0).max(MAX_UPLOAD_BYTES) }), output: z.object({ upload: UploadId }) },
  /** Appends one part at `offset` (the bytes sent so far); returns the bytes received. */
  'uploads.add': {
    input: z.object({
      upload: UploadId,
      offset: z.number().int().min(0).max(MAX_UPLOAD_BYTES),
      base64: z.string().max((UPLOAD_PART_BYTES / 3) * 4).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64'),
    }),
    output: z.object({ received: z.number().int() }),
  },

  // --- data in and out: Todoist import, backups ------------------------------------------------------
  /** What importing this Todoist CSV or backup ZIP would create; changes nothing. */
  'data.todoistPreview': { input: TodoistUpload, output: TodoistPreview },
  /** Imports it (a backup first, then one transaction, one undoable request). */
  'data.todoistImport': { input: TodoistUpload, output: TodoistImported, changes: DATA_TOPICS },
  /** The newest backup in the backups folder beside the database, or null. */
  'data.lastBackup': { input: Empty, output: BackupFile.nullable() },
  /** A checked backup now, in the backups folder. */
  'data.backupNow': { input: Empty, output: BackupFile },
  /** Everything as one file to save: the versioned JSON export (`tidy import tidy` reads it back) or Markdown. */
  'data.export': {
    input: z.object({ format: z.enum(['json', 'markdown']) }),
    output: z.object({ filename: z.string(), mimeType: z.string(), content: z.string() }),
  },

  // --- settings -----------------------------------------------------------------------------------
  'settings.get': { input: Empty, output: SettingsSchema },
  /**
   * Sets one setting, validated by its schema (a bad value is refused with the allowed range);
   * `approvals.<tool>` sets one tool's approval policy. Returns all settings after the change.
   */
  'settings.set': {
    input: z.object({ key: z.string().min(1).max(100), value: z.json() }),
    output: SettingsSchema,
    changes: ['settings'],
  },

  // --- MCP servers the agent may use (settings `mcpServers`) -------------------------------------
  /** Starts one configured server (within a time limit), lists the tools it offers, and ends it. */
  'mcp.tools': { input: z.object({ server: McpServerName }), output: z.array(McpToolInfo) },

  // --- provider profiles and API keys -------------------------------------------------------------
  // Presets (labels, default URLs, help) are static: the UI imports PRESETS from src-shared/providers.
  'providers.list': { input: Empty, output: Profiles },
  /** Makes a profile the one requests use. */
  'providers.use': { input: z.object({ id: Id }), output: Profiles, changes: ['providers', 'settings', 'secrets'] },
  /** Adds a profile from a preset; the preset fills in what is left out. */
  'providers.add': {
    input: z.object({ id: Id, preset: z.string().max(40), baseUrl: z.string().max(2000).optional(), model: z.string().max(200).optional(), apiVersion: z.string().max(40).optional() }),
    output: ProviderProfile,
    changes: ['providers'],
  },
  /** Changes a profile's endpoint, model or Azure api-version (null removes it). */
  'providers.update': {
    input: z.object({ id: Id, baseUrl: z.string().max(2000).optional(), model: z.string().max(200).optional(), apiVersion: z.string().max(40).nullable().optional() }),
    output: ProviderProfile,
    changes: ['providers', 'settings', 'secrets'],
  },
  /** Removes a profile (not the active one) and its stored key. */
  'providers.remove': { input: z.object({ id: Id }), output: ProviderProfile, changes: ['providers', 'secrets'] },
  /**
   * Tries the profile's endpoint (the active one by default): what is wrong in one line, or the models it
   * lists; for a local server, the model's context window against Tidy's prompt, and for the active profile
   * the context budget (setting contextTokens) fitted to it.
   */
  'providers.test': { input: z.object({ id: Id.optional() }), output: ConnectionReport, changes: ['settings'] },
  /**
   * First run: the local model servers (Ollama, LM Studio, llama.cpp) answering on their default ports
   * (Ollama's OLLAMA_HOST moves its port), each with the models it lists. Takes at most about 2 s.
   */
  'providers.detect': { input: Empty, output: z.array(DetectedServer) },
  /** The models an endpoint lists (GET {baseUrl}/models, without a key), or what is wrong: for a URL not yet saved as a profile. */
  'providers.models': { input: z.object({ baseUrl: z.string().max(2000), preset: PresetId.optional() }), output: ConnectionReport },
  /** Whether a usable key is there for a profile (the active one by default). Never the key. */
  'keys.status': { input: z.object({ profile: Id.optional() }), output: KeyStatus },
  /**
   * Stores a profile's key in the OS keychain (or, with keep: 'session', in memory only, forgotten when
   * Tidy quits). The key goes in here and never comes out: the reply is its status.
   */
  'keys.set': { input: z.object({ profile: Id.optional(), key: z.string().min(1).max(4096), keep: z.enum(['keychain', 'session']).optional() }), output: KeyStatus, changes: ['secrets'] },
  'keys.clear': { input: z.object({ profile: Id.optional() }), output: KeyStatus, changes: ['secrets'] },

  /** Approvals waiting for the user: runs waiting in place, and those routines' runs left behind (oldest first). */
  'approvals.list': { input: Empty, output: z.array(PendingApproval) },
  /**
   * Answers a waiting approval by its id (w…): a run waiting in place gets it; a detached one goes on in a
   * new run of its conversation (`runId`), which this does not wait for.
   */
  'approvals.answer': {
    input: z.object({ id: Id, decision: ApprovalDecision, args: z.record(z.string(), z.json()).optional() }),
    output: z.object({ continued: z.boolean(), runId: z.string().nullable() }),
    changes: ['routines', 'runs', 'conversations', 'settings'],
  },
  /** The routines, with their next runs and last result. */
  'routines.list': { input: Empty, output: z.array(RoutineInfo) },
  /** Adds a routine from repeat words ("every weekday at 8am"); logged and undoable. */
  'routines.add': {
    input: z.object({
      name: Name,
      request: z.string().min(1).max(2000),
      schedule: z.string().min(1).max(100),
      conversation: z.enum(['routine', 'new']).optional(),
      catchUp: z.enum(['once', 'skip']).optional(),
    }),
    output: z.object({ value: RoutineInfo, actionId: z.string() }),
    changes: ['routines', 'actions'],
  },
  /** Changes a routine (pause and resume are `enabled`); logged and undoable. */
  'routines.edit': {
    input: z.object({
      routine: Id,
      name: Name.optional(),
      request: z.string().min(1).max(2000).optional(),
      schedule: z.string().min(1).max(100).optional(),
      enabled: z.boolean().optional(),
      conversation: z.enum(['routine', 'new']).optional(),
      catchUp: z.enum(['once', 'skip']).optional(),
      /** The tools it may use; null: every tool that is logged and undoable. */
      tools: z.array(z.string().max(64)).max(100).nullable().optional(),
      /** Its own limits; null: the settings'. */
      maxActions: z.number().int().min(1).max(200).nullable().optional(),
      timeLimitSec: z.number().int().min(1).max(1800).nullable().optional(),
    }),
    output: z.object({ value: RoutineInfo, actionId: z.string() }),
    changes: ['routines', 'actions'],
  },
  /** Removes a routine (undoable). */
  'routines.remove': { input: z.object({ routine: Id }), output: z.object({ value: RoutineInfo, actionId: z.string() }), changes: ['routines', 'actions'] },
  /** Runs a routine now and answers when the run has ended (or waits for an approval). */
  'routines.runNow': {
    input: z.object({ routine: Id }),
    output: z.object({ status: z.string(), runId: z.string().nullable(), message: z.string().nullable(), waitingFor: z.string().nullable() }),
    changes: ['routines', 'runs', 'conversations', ...DATA_TOPICS],
  },
  /** A routine's runs (or every routine's), newest first. */
  'routines.history': { input: z.object({ routine: Id.optional(), limit: z.number().int().min(1).max(500).optional() }), output: z.array(RoutineRun) },
  /**
   * Replaces the database with an uploaded backup (a .db Tidy made) or JSON export: checked first (a bad
   * file changes nothing), refused while another Tidy process has the database open; the current database
   * is kept aside (`keptAt`), and every view reloads. A restored file's MCP servers come in switched off.
   */
  'data.restore': {
    input: z.object({ upload: UploadId }),
    output: z.object({ keptAt: z.string().nullable(), schemaVersion: z.number().int(), from: z.enum(['backup', 'export']) }),
    changes: TOPICS,
  },
  /** Reads schedule words as a routine would (changes nothing): the schedule in words and its next three runs, or the parser's one-line error. */
  'routines.preview': { input: z.object({ schedule: z.string().max(100) }), output: z.object({ words: z.string(), nextRuns: z.array(z.string()) }) },
  /** Sync on this device: where to, as whom, when it last synced, what waits, the devices, the last error and what to do. */
  'sync.status': { input: Empty, output: SyncView },
  /**
   * "Sync now": one round as soon as none runs; answers when it has ended (a failure is in the status, not a
   * refusal). `focus`: the window gained focus, a round only when none ran for a while; answers at once.
   */
  'sync.now': { input: z.object({ focus: z.boolean().optional() }), output: SyncView, changes: ['sync'] },
  /**
   * Unlocks sync for this session with the target's passphrase (and its WebDAV password), when the key is not
   * in the OS keychain: the key is held in memory only, never in the database. A wrong passphrase is one line.
   */
  'sync.unlock': {
    input: z.object({ passphrase: z.string().min(1).max(1024), password: z.string().max(1024).optional() }),
    output: SyncView,
    changes: ['sync'],
  },
  /**
   * A row's sync conflicts (a task, an event, a project…), newest first: a value of it written on one device
   * and overwritten by a concurrent edit on another ("changed on Laptop at 10:02, overwritten by Desktop at
   * 10:03"). Restore is an ordinary edit through that row's own operation (tasks.update, events.move,
   * projects.rename…) with the lost value: logged and undoable.
   */
  'sync.conflicts': { input: z.object({ table: SyncHistoryTable, row: Id }), output: z.array(SyncConflict) },
} as const satisfies Record<string, ChannelDef>;

/** Views may be stale: refetch what shows these topics. */
export const DataChanged = z.object({ topics: z.array(Topic).min(1) });
export type DataChanged = z.infer<typeof DataChanged>;

/** Every event the main side pushes to every window (and every web client). */
const events = {
  /** Every step of every agent run, live: the same events the trace stores. */
  'agent.event': AgentEvent,
  'data.changed': DataChanged,
  /** Show this conversation in the main window (asked for by the quick-capture window's "Open in Tidy"). */
  'app.open': z.object({ conversationId: z.string() }),
  /** A task's due time has come (once per due time, also across restarts): show a notification. */
  'reminder.due': ReminderDue,
  /** A routine's run changed something, waits for an answer, or the routine was paused: show a notice. */
  'routine.notice': z.object({
    kind: z.enum(['changed', 'waiting', 'paused', 'failed']),
    routineId: z.string(),
    routineName: z.string(),
    text: z.string(),
    runId: z.string().optional(),
    approvalId: z.string().optional(),
  }),
} as const satisfies Record<string, z.ZodType>;

type Channels = typeof channels;
export type ChannelName = keyof Channels;
/** What the caller passes (before parsing: optional fields may be left out). */
export type Input<C extends ChannelName> = z.input<Channels[C]['input']>;
/** What the handler receives (after parsing). */
export type ParsedInput<C extends ChannelName> = z.output<Channels[C]['input']>;
export type Output<C extends ChannelName> = z.output<Channels[C]['output']>;

type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

export const isChannelName = (name: unknown): name is ChannelName => typeof name === 'string' && Object.hasOwn(channels, name);
export const isEventName = (name: unknown): name is EventName => typeof name === 'string' && Object.hasOwn(events, name);

/** The web transport's request frame (JSON text, client → host). The host answers `{id, reply}` or pushes `{event, payload}`. */
export const WsRequest = z.object({ id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), channel: z.string().max(100), input: z.unknown() });
export type WsRequest = z.infer<typeof WsRequest>;

/** Electron's ipc channel names for the contract's channels and events (one ipcMain handler per channel). */
export const electronInvokeName = (channel: ChannelName): string => `tidy:${channel}`;
export const electronEventName = (event: EventName): string => `tidy-event:${event}`;
