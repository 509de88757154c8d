/**
 * The handler of every channel of the IPC contract: plain functions over the core, with their
 * dependencies passed in. The same object serves the Electron transport, the web host and the tests.
 * A user's edits are logged like the CLI's: each request is one undoable entry in the action log.
 */
import type { AgentEvent } from '../../src-shared/events';
import type { Result } from '../../src-shared/result';
import { DATA_TOPICS, SettingsSchema, type ActionGroup } from '../../src-shared/ipc';
import {
  activeProfile,
  addProfile,
  ApiKeyError,
  detectLocalServers,
  listModels,
  clearApiKey,
  KeychainUnavailableError,
  createSessionSecretStore,
  listProfiles,
  removeProfile,
  resolveConnection,
  setApiKey,
  testConnection,
  updateProfile,
  useProfile,
  type Connection,
  type SecretStore,
  DomainError,
  fail,
  findFreeSlots,
  importCalendar,
  listActions,
  listCalendars,
  adjacentEvent,
  fitContextToModel,
  listEvents,
  listItems,
  localZone,
  parseInstant,
  listLists,
  listProjectsWithCounts,
  listTasks,
  newUserRequest,
  taskCounts,
  readSettings,
  redoAction,
  redoRequest,
  undoAction,
  undoLast,
  undoRequest,
  writeSetting,
  type Db,
  type Mutated,
} from '../core';
import { bytesSource } from '../core/calendar/ics-lines';
import {
  answerApproval,
  cancelRun,
  createConversation,
  getConversation,
  getRun,
  listConversations,
  listRuns,
  loadMessages,
  readTrace,
  startRunOn,
  TOOLS,
  createToolServices,
  type ToolServices,
  type Endpoint,
  type LiveRuns,
  type Tool,
} from '../core/agent';
import { archiveConversation, exportConversation, renameConversation } from '../core/conversations';
import { backupNow, describePlan, exportJson, exportMarkdown, importTodoist, lastBackup, planTodoistImport, readTodoistFiles, type RestoreResult, type TodoistPlan } from '../core/data';
import { stageRestoreFile } from './restore';
import { StoreError } from '../core/store/db';
import { connectionModel } from '../core/providers/connection';
import type { Model } from '../core/llm/port';
import type { ActionEntry } from '../../src-shared/domain';
import type { Handlers } from './dispatch';
import { OPERATIONS, type OperationChannel } from '../../src-shared/operations';
import { OPERATION_IMPLEMENTATIONS } from '../core/domain';
import { addFromText } from '../core/domain/quickadd';
import { searchAll } from '../core/domain/search';
import { deleteFilter, findTasks, listFilters, saveFilter } from '../core/domain/filter';
import { listLabels } from '../core/domain/labels';
import { listSections } from '../core/domain/sections';
import { listComments, subtaskProgress } from '../core/domain/tasks';
import { listMemories } from '../core/domain/memory';
import { memoryBudgetNow } from '../core/agent/memory';
import type { AnyOperation } from '../core/domain/operation';
import type { EventHub } from './hub';
import { createUploads, type Uploads } from './uploads';
import { sessionClient } from '../core/mcp/sessions';
import { applyPlan, missedBlocks, planQuery, proposePlan } from '../core/plan/plan';
// Static: the agent's runs load this module anyway, so a dynamic import here split nothing (INEFFECTIVE_DYNAMIC_IMPORT).
import { inspectServer } from '../core/mcp/client';
import { listApprovals } from '../core/agent/approvals';
import { addRoutine, editRoutine, getRoutine, listRoutines, removeRoutine, resolveRoutine } from '../core/domain/routines';
import { answerApprovalById, previewSchedule, routineHistory, routineInfo, runRoutineNow, type RoutineHost } from '../core/routines';
import { createSyncHost, type SyncHost } from './sync';
import { listConflicts } from '../core/sync/conflicts';

export interface HostDeps {
  db: Db;
  /** Where API keys are kept: the OS keychain (the app, `tidy serve`), or memory (tests). */
  secrets: SecretStore;
  /** Keys kept for this session only (keys.set with keep: 'session'): memory, forgotten when the host ends. A fresh one by default. */
  session?: SecretStore;
  /** The environment, for OPENAI_API_KEY standing in for the keychain; none by default. */
  env?: Record<string, string | undefined>;
  /** The model client of a run; tests pass a scripted one. Default: the OpenAI-compatible adapter. */
  createModel?: (connection: Connection, endpoint: Endpoint) => Model;
  tools?: readonly Tool[];
  /** What the agent's tools reach outside the database (calculator, clock, HTTP); one set per host. */
  services?: ToolServices;
  /** The logged operations offered as channels; every declared one by default. */
  operations?: readonly AnyOperation[];
  /** Where files from the UI arrive in parts; tests pass one with their own clock. */
  uploads?: Uploads;
  /** Who runs routines here, for their history: "tidy serve", "the Tidy app". */
  owner?: string;
  /**
   * Replaces the database with a checked Tidy database file and opens it again (the host's, host/index.ts);
   * without it `data.restore` refuses.
   */
  restore?: (path: string) => RestoreResult;
  /** The better-sqlite3 binding of the desktop app, for files a restore opens. */
  nativeBinding?: string;
  /** Sync of the host (host/sync.ts); without it, one that syncs only on Sync now. */
  sync?: SyncHost;
}

/** What the host adds: where events go, and the runs going on in this process. */
interface HandlerDeps extends HostDeps {
  hub: EventHub;
  live: LiveRuns;
}


/** A refused request becomes a DomainError, which the dispatcher turns into a `failed` reply. */
function must<T>(r: Result<T>): T {
  if (!r.ok) fail(r.error, r.hint, r.code, r.details);
  return r.value;
}

function logged<T>(r: Mutated<T>): { value: T; actionId: string } {
  if (!r.ok) fail(r.error, r.hint, r.code, r.details);
  return { value: r.value, actionId: r.actionId };
}

/**
 * Consecutive entries of one request form a group (the log is newest first, so a request's actions are
 * adjacent). `requestOf` names an agent run's request (its user message) and an MCP session's (its client).
 */
function groupByRequest(entries: ActionEntry[], requestOf: (requestId: string, source: ActionEntry['source']) => string | null = () => null): ActionGroup[] {
  const groups: ActionGroup[] = [];
  for (const e of entries) {
    const last = groups.at(-1);
    if (last && last.requestId === e.requestId) last.actions.push(e);
    else groups.push({ requestId: e.requestId, source: e.source, request: e.source === 'agent' || e.source === 'mcp' ? requestOf(e.requestId, e.source) : null, actions: [e] });
  }
  return groups;
}

/** Keychain and key problems are refusals the user can act on (store a key, unlock the keychain). */
async function keyed<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ApiKeyError) throw new DomainError(e.error, e.hint, 'no_key');
    if (e instanceof KeychainUnavailableError) throw new DomainError(`no OS keychain available (${e.reason})`, e.fix, 'keychain_unavailable');
    throw e;
  }
}

type OperationHandlers = Pick<Handlers, OperationChannel>;

/** Every declared operation has a handler (each passes its channel's parsed input: the operation's own schema's). */
const coversEveryOperation = (handlers: object): handlers is OperationHandlers => OPERATIONS.every((s) => Object.hasOwn(handlers, s.channel));

/** One handler per logged operation, on its channel: the change is one user request in the action log. */
function operationHandlers(db: Db, operations: readonly AnyOperation[]): OperationHandlers {
  const handlers = Object.fromEntries(operations.map((op) => [op.spec.channel, (input: unknown) => logged(op(db, newUserRequest(db), input))]));
  if (!coversEveryOperation(handlers)) throw new Error(`an operation has no implementation: ${OPERATIONS.map((s) => s.channel).filter((c) => !(c in handlers))}`);
  return handlers;
}

/** A plan as the UI's preview shows it: counts, the first few tasks of each project, and the plan in words. */
function previewOf(plan: TodoistPlan) {
  return {
    projects: plan.projects.map((p) => ({ name: p.name, isNew: p.existingId === null, tasks: p.tasks.length, sections: p.sections.slice(0, 20), sample: p.tasks.slice(0, 5).map((t) => [t.content, ...t.labels.map((l) => `@${l}`)].join(' ').slice(0, 200)) })),
    totals: plan.totals,
    lines: describePlan(plan),
  };
}

/** Import and backup problems (a malformed file, no room for a backup) are refusals the user can act on. */
async function refusing<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof StoreError) throw new DomainError(e.message, 'fix the file or pick another one; nothing was changed', 'refused');
    throw e;
  }
}

/**
 * What the routine runner needs from a host: the active profile's model (its key read first, so a missing
 * key is one refusal), the host's live runs, and its events and notices sent to every window.
 */
export function createRoutineHost(deps: HandlerDeps): RoutineHost {
  const { db, hub, live } = deps;
  const keyDeps = { secrets: deps.secrets, session: deps.session ?? createSessionSecretStore(), env: deps.env ?? {} };
  const createModel = deps.createModel ?? connectionModel;
  const services = deps.services ?? createToolServices();
  const tools = deps.tools ?? TOOLS;
  return {
    db,
    deps: async () => {
      const c = must(resolveConnection(db, keyDeps, {}));
      await keyed(c.resolveKey());
      return { db, live, tools, services, createModel: (e: Endpoint) => createModel(c, e), endpoint: { baseUrl: c.baseUrl, model: c.model } };
    },
    now: () => services.now().getTime(),
    owner: `${deps.owner ?? 'Tidy'} (pid ${process.pid})`,
    notify: (n) => hub.emit('routine.notice', n),
    onEvent: (e) => {
      hub.emit('agent.event', e);
      if (e.type === 'tool_result' && e.actionId) hub.emit('data.changed', { topics: [...DATA_TOPICS] });
      if (e.type === 'run_finished') hub.emit('data.changed', { topics: ['runs', 'conversations', 'routines'] });
    },
  };
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const { db, secrets, hub, live } = deps;
  const session = deps.session ?? createSessionSecretStore();
  const routines = createRoutineHost({ ...deps, session });
  const keyDeps = { secrets, session, env: deps.env ?? {} };
  const createModel = deps.createModel ?? connectionModel;
  const services = deps.services ?? createToolServices();
  const tools = deps.tools ?? TOOLS;
  const ctx = () => newUserRequest(db);
  const uploads = deps.uploads ?? createUploads();
  const todoistFiles = (upload: string) => {
    const f = uploads.read(upload);
    return readTodoistFiles(f.name, f.bytes);
  };
  const undoOptions = (cascade?: boolean) => ({ ctx: ctx(), cascade });
  const sync = deps.sync ?? createSyncHost({ db: () => db, secrets, hub, env: deps.env ?? {} });

  const connection = (profile?: string): Connection => must(resolveConnection(db, keyDeps, { profile }));
  const profiles = () => ({ profiles: listProfiles(db), active: activeProfile(db).id });
  const conversation = (id: string) => getConversation(db, id) ?? fail(`no conversation with id ${id}`, 'list the conversations to see their ids');

  /** Each agent event goes to every window; a logged change or the end of a run also makes views stale. */
  const onEvent = (e: AgentEvent): void => {
    hub.emit('agent.event', e);
    if (e.type === 'tool_result' && e.actionId) hub.emit('data.changed', { topics: [...DATA_TOPICS] });
    if (e.type === 'run_finished') hub.emit('data.changed', { topics: ['runs', 'conversations'] });
  };

  /** Starts a run with the active profile, refusing at once (not mid-run) when its key is missing. */
  async function ask(message: string, conversationId?: string) {
    const run = must(await keyed(startRunOn(connection(), { db, live, tools, services, createModel }, { message, conversationId }, onEvent)));
    return { runId: run.runId, conversationId: run.conversationId };
  }

  return {
    ...operationHandlers(db, deps.operations ?? OPERATION_IMPLEMENTATIONS),
    'tasks.list': (i) => listTasks(db, i),
    'tasks.counts': (i) => taskCounts(db, i.today),
    'tasks.find': (i) => findTasks(db, i),
    'tasks.comments': (i) => listComments(db, i.task),
    'tasks.progress': (i) => subtaskProgress(db, i.tasks),
    'sections.list': (i) => listSections(db, i.project, i),
    'labels.list': () => listLabels(db),
    'filters.list': () => listFilters(db),
    'filters.save': (i) => logged(saveFilter(db, ctx(), i)),
    'filters.delete': (i) => logged(deleteFilter(db, ctx(), i)),

    'search.query': (i) => searchAll(db, i.query, i.limit),

    'projects.list': (i) => listProjectsWithCounts(db, i),

    'lists.list': (i) => listLists(db, i),
    'lists.items': (i) => listItems(db, i.list, i),

    'events.list': (i) => {
      const zone = localZone();
      return listEvents(db, { fromMs: parseInstant(i.from, zone, 'from'), toMs: parseInstant(i.to, zone, 'to'), zone, includeCancelled: i.includeCancelled });
    },
    'calendars.list': () => listCalendars(db),
    'events.adjacent': (i) => {
      const zone = localZone();
      return adjacentEvent(db, { atMs: parseInstant(i.at, zone, 'at'), direction: i.direction, zone });
    },
    'calendars.importUpload': (i) => {
      const f = uploads.read(i.upload);
      return logged(importCalendar(db, ctx(), { fileName: f.name, text: '', source: bytesSource(f.bytes), ...(i.person ? { person: i.person } : {}) }));
    },
    'uploads.start': (i) => ({ upload: uploads.start(i.name, i.size) }),
    'uploads.add': (i) => ({ received: uploads.add(i.upload, i.offset, Buffer.from(i.base64, 'base64')) }),
    'events.free': (i) => {
      const zone = localZone();
      const settings = readSettings(db);
      const { slots, total } = findFreeSlots(db, {
        durationMin: i.durationMin ?? 30,
        ...(i.from ? { fromMs: parseInstant(i.from, zone, 'from') } : {}),
        ...(i.to ? { toMs: parseInstant(i.to, zone, 'to') } : {}),
        attendees: i.attendees ?? [],
        now: services.now().getTime(),
        zone,
        workStart: settings.workStart,
        workEnd: settings.workEnd,
        workDays: settings.workDays,
      });
      return { slots, total };
    },

    'plans.propose': (i) => proposePlan(db, planQuery(i, { now: services.now().getTime(), zone: localZone(), settings: readSettings(db) })),
    'plans.apply': (i) => {
      const r = logged(applyPlan(db, ctx(), { blocks: i.blocks, ...(i.plan ? { plan: i.plan } : {}) }, localZone(), services.now().getTime()));
      const { events: _e, ...value } = r.value;
      return { value, actionId: r.actionId };
    },
    'plans.missed': () => missedBlocks(db, services.now().getTime()),

    'capture.add': (i) => {
      const request = ctx();
      const { text, createProject, ...defaults } = i;
      const r = addFromText(db, request, text, { ...defaults, createProject: createProject === true, now: services.now() });
      return { ...logged(r), note: r.note, unread: r.unread, createdProject: r.createdProject, requestId: request.requestId };
    },
    'capture.ask': (i) => ask(i.text),
    'app.open': (i) => {
      hub.emit('app.open', { conversationId: conversation(i.conversationId).id });
      return { opened: true };
    },

    'approvals.list': () => listApprovals(db).map(({ callId: _c, ownerPid: _p, decidedArgs: _d, ...a }) => a),
    'approvals.answer': async (i) => {
      const { answered, result } = await answerApprovalById(routines, i.id, i.decision, i.args);
      // The run that goes on is followed through its events; a failure there is in its trace.
      void result?.catch(() => {});
      return { continued: answered.continued, runId: answered.continued ? answered.run.runId : null };
    },
    'routines.list': () => {
      const now = services.now().getTime();
      return listRoutines(db).map((r) => routineInfo(db, r, now));
    },
    'routines.add': (i) => {
      const r = logged(addRoutine(db, ctx(), i, services.now()));
      return { value: routineInfo(db, r.value, services.now().getTime()), actionId: r.actionId };
    },
    'routines.edit': (i) => {
      const r = logged(editRoutine(db, ctx(), i, services.now()));
      return { value: routineInfo(db, r.value, services.now().getTime()), actionId: r.actionId };
    },
    'routines.remove': (i) => {
      const r = logged(removeRoutine(db, ctx(), i));
      return { value: routineInfo(db, r.value, services.now().getTime()), actionId: r.actionId };
    },
    'routines.runNow': async (i) => {
      resolveRoutine(db, i.routine);
      const r = await runRoutineNow(routines, i.routine);
      return { status: r.status, runId: r.runId, message: r.message, waitingFor: r.waitingFor ?? null };
    },
    'routines.history': (i) => routineHistory(db, i.routine ? (getRoutine(db, i.routine) ?? resolveRoutine(db, i.routine)).id : undefined, i.limit ?? 100),
    'routines.preview': (i) => previewSchedule(i.schedule, services.now()),

    'agent.send': (i) => ask(i.message, i.conversationId),
    'agent.cancel': (i) => ({ cancelled: cancelRun({ live }, i.runId) }),
    'agent.approve': (i) => ({ answered: answerApproval({ db, live }, i.runId, i.approvalId, i.decision, i.args) }),
    'agent.tools': () =>
      tools.map((t) => ({ name: t.name, description: t.description, changes: t.effect === 'write', approval: t.alwaysAsk ? 'ask' : (t.approval ?? 'auto'), ...(t.alwaysAsk ? { alwaysAsks: true as const } : {}) })),

    'conversations.list': (i) => listConversations(db, i.limit, i.archived ?? false),
    'conversations.create': (i) => conversation(createConversation(db, i.title?.trim() || 'New conversation', { incognito: i.incognito === true })),
    'conversations.rename': (i) => must(renameConversation(db, i.id, i.title)),
    'conversations.archive': (i) => must(archiveConversation(db, i.id, true, { forgetMemories: i.forgetMemories === true })),
    'memory.list': (i) => {
      const settings = readSettings(db);
      return {
        memories: listMemories(db, {
          ...(i.query !== undefined ? { query: i.query } : {}),
          ...(i.includeArchived !== undefined ? { includeArchived: i.includeArchived } : {}),
          ...(i.conversationId !== undefined ? { conversationId: i.conversationId } : {}),
        }),
        enabled: settings.memory,
        budget: memoryBudgetNow(db, settings),
      };
    },
    'conversations.unarchive': (i) => must(archiveConversation(db, i.id, false)),
    'conversations.messages': (i) => loadMessages(db, conversation(i.id).id),
    'conversations.export': (i) => must(exportConversation(db, i.id, i.format)),
    'runs.list': (i) => listRuns(db, i),
    'runs.trace': (i) => {
      const run = getRun(db, i.runId) ?? fail(`no run with id ${i.runId}`, 'list the runs to see their ids');
      return { run, events: readTrace(db, run.id) };
    },

    'actions.list': (i) => {
      const limit = i.limit ?? 100;
      // One more than asked tells whether there is a next page.
      const entries = listActions(db, { limit: limit + 1, before: i.before, requestId: i.requestId });
      const page = entries.slice(0, limit);
      const requestOf = (id: string, source: ActionEntry['source']) => (source === 'mcp' ? sessionClient(db, id) : (getRun(db, id)?.request ?? null));
      return { groups: groupByRequest(page, requestOf), nextBefore: entries.length > limit ? page.at(-1)!.id : null };
    },
    'actions.undo': (i) => must(undoAction(db, i.actionId, undoOptions(i.cascade))),
    'actions.undoRequest': (i) => must(undoRequest(db, i.requestId, undoOptions(i.cascade))),
    'actions.undoLast': () => must(undoLast(db, undoOptions())),
    'actions.redo': (i) => must(redoAction(db, i.actionId, undoOptions(i.cascade))),
    'actions.redoRequest': (i) => must(redoRequest(db, i.requestId, undoOptions(i.cascade))),

    // readSettings types enum settings loosely (as string); the contract's schema gives them their exact type.
    'data.todoistPreview': (i) => refusing(() => previewOf(planTodoistImport(db, todoistFiles(i.upload), { project: i.project }))),
    'data.todoistImport': (i) =>
      refusing(async () => {
        const r = await importTodoist(db, db.name, todoistFiles(i.upload), { project: i.project });
        return { ...previewOf(r), requestId: r.requestId, backup: r.backup };
      }),
    'data.lastBackup': () => lastBackup(db.name),
    'data.backupNow': () => refusing(() => backupNow(db, db.name)),
    'data.restore': (i) =>
      refusing(() => {
        const restore = deps.restore ?? fail('this window cannot restore its database', 'quit Tidy and run: tidy restore <file>');
        const staged = stageRestoreFile(uploads.read(i.upload), deps.nativeBinding);
        try {
          const r = restore(staged.path);
          return { keptAt: r.keptAt, schemaVersion: r.schemaVersion, from: staged.from };
        } finally {
          staged.dispose();
        }
      }),
    'data.export': ({ format }) => {
      let content = '';
      (format === 'json' ? exportJson : exportMarkdown)(db, { write: (chunk) => void (content += chunk) });
      const day = new Date().toISOString().slice(0, 10);
      return format === 'json'
        ? { filename: `tidy-export-${day}.json`, mimeType: 'application/json', content }
        : { filename: `tidy-export-${day}.md`, mimeType: 'text/markdown', content };
    },
    'settings.get': () => SettingsSchema.parse(readSettings(db)),
    'settings.set': (i) => {
      must(writeSetting(db, i.key, i.value));
      return SettingsSchema.parse(readSettings(db));
    },

    'mcp.tools': async (i) => {
      const config = readSettings(db).mcpServers[i.server] ?? fail(`no MCP server named ${i.server}`, 'add it first: tidy mcp add NAME -- command args…');
      try {
        return await inspectServer(i.server, config, { fetch: services.fetch });
      } catch (e) {
        return fail(`could not list the tools of ${i.server}: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`, 'check its command or URL with tidy mcp list --tools');
      }
    },
    'providers.list': profiles,
    'providers.use': (i) => {
      must(useProfile(db, i.id));
      return profiles();
    },
    'providers.add': (i) => must(addProfile(db, i)),
    'providers.update': (i) => must(updateProfile(db, i.id, i)),
    'providers.remove': async (i) => {
      const removed = must(removeProfile(db, i.id));
      await session.clear(removed.id);
      // The profile is gone either way; a key left in an unavailable keychain is unreachable without it.
      await clearApiKey(removed.id, secrets).catch((e: unknown) => {
        if (!(e instanceof KeychainUnavailableError)) throw e;
      });
      return removed;
    },
    'providers.test': async (i) => {
      const conn = connection(i.id);
      const report = await testConnection(conn, { timeoutMs: 15_000 });
      // The budget is one setting for the profile in use: another profile's test only says what it found.
      return fitContextToModel(db, report, conn.profile.preset, { fit: conn.profile.id === activeProfile(db).id });
    },
    'providers.detect': () => detectLocalServers({ env: deps.env ?? {}, profiles: listProfiles(db) }),
    'providers.models': (i) => listModels(i.baseUrl, { ...(i.preset ? { preset: i.preset } : {}), timeoutMs: 10_000 }),
    'keys.status': (i) => keyed(connection(i.profile).keyStatus()),
    'keys.set': async (i) => {
      const conn = connection(i.profile);
      if (i.keep === 'session') await keyed(setApiKey(conn.profile, i.key, session));
      else {
        await keyed(setApiKey(conn.profile, i.key, secrets));
        await session.clear(conn.profile.id); // the keychain holds it now: a session copy would shadow a later change
      }
      return keyed(conn.keyStatus());
    },
    'sync.status': () => sync.status(),
    'sync.now': (i) => (i.focus ? sync.focus() : sync.now()),
    'sync.unlock': (i) => sync.unlock(i.passphrase, i.password),
    'sync.conflicts': (i) => listConflicts(db, i.table, i.row),
    'keys.clear': async (i) => {
      const conn = connection(i.profile);
      const held = await session.clear(conn.profile.id);
      // A key held for this session only is cleared without the keychain, which may be the reason it was held there.
      await keyed(clearApiKey(conn.profile.id, secrets)).catch((e: unknown) => {
        if (!held || !(e instanceof DomainError)) throw e;
      });
      return keyed(conn.keyStatus());
    },
  };
}
