// The agent at real scale: a 160-task inbox (three groups, plus ten tasks that belong nowhere) cleared with
// the default settings, against a loopback fake model that behaves like a capable one: it reads the inbox,
// creates the projects, then moves the tasks — with one batch call per project when batch tools exist, else
// one call per task (five calls in a step, as parallel tool calling does). Printed side by side:
//   (a) Tidy now, (b) Tidy with single-item tools only, (c) the seed's design (json protocol, one action per
//   step, the reply's JSON Schema in the system prompt).
// Also the nine-task seed inbox with three faults (an unknown tool, truncated JSON, a bogus id), defaults.
import { encode } from 'gpt-tokenizer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, listTasks, newUserRequest, openDatabase, writeSetting, type Db } from '../src-main/core';
import { createLiveRuns, startRun, TOOLS, type Tool } from '../src-main/core/agent';
import { createOpenAIModel } from '../src-main/core/llm/openai';
import { startFakeOpenAI, type FakeReply, type RecordedRequest } from '../test/fakes/openai-server';
import { SEED_INBOX } from '../test/fakes/seed';

const GROUPS: Record<string, string[]> = {
  'Kitchen Renovation': ['tiles', 'sink', 'cabinet', 'countertop', 'oven', 'faucet', 'plumber', 'paint', 'floor', 'lights'],
  'Conference Talk': ['slides', 'abstract', 'demo', 'rehearse', 'speaker bio', 'travel', 'hotel', 'badge', 'handout', 'recording'],
  'Garden': ['tomatoes', 'hedge', 'compost', 'lawn', 'roses', 'seeds', 'watering', 'fence', 'shed', 'mulch'],
};
const NOWHERE = ['Call mum', 'Renew passport', 'Return library book', 'Buy stamps', 'Dentist appointment', 'Cancel gym', 'Pay parking fine', 'Email landlord', 'Backup laptop', 'Sell bike'];

/** 150 tasks in three groups (50 each, interleaved as a real inbox is), plus ten that belong nowhere. */
function bigInbox(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 50; i++) {
    for (const [group, words] of Object.entries(GROUPS)) out.push(`${group.split(' ')[0]}: ${words[i % words.length]} step ${Math.floor(i / 10) + 1}`);
  }
  out.splice(40, 0, ...NOWHERE.slice(0, 5));
  out.splice(120, 0, ...NOWHERE.slice(5));
  return out;
}

const groupOf = (content: string): string | null => Object.keys(GROUPS).find((g) => content.startsWith(`${g.split(' ')[0]}:`)) ?? null;

interface Seen {
  inbox: { id: string; content: string }[] | null;
  projects: Map<string, string>;
  moved: Set<string>;
  verified: boolean;
}

/** What the run has learnt so far, read back from the results in the request (the fake keeps no state). */
function seen(body: RecordedRequest['body']): Seen {
  const s: Seen = { inbox: null, projects: new Map(), moved: new Set(), verified: false };
  const messages = body?.messages ?? [];
  const calls = new Map<string, string>();
  let lastInboxCount = -1;
  for (const m of messages) {
    if (m.role === 'assistant' && Array.isArray(m['tool_calls'])) {
      for (const c of m['tool_calls'] as { id: string; function: { name: string } }[]) calls.set(c.id, c.function.name);
    }
    const text = m.role === 'tool' ? String(m['content']) : m.role === 'user' && String(m['content']).startsWith('Observation: ') ? String(m['content']).slice(13) : null;
    if (text === null) continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      continue;
    }
    const tool = m.role === 'tool' ? calls.get(String(m['tool_call_id'])) : undefined;
    if (Array.isArray(value['tasks']) && (tool === undefined || tool === 'get_inbox_tasks')) {
      const tasks = value['tasks'] as { id: string; content: string }[];
      if (s.inbox === null) s.inbox = tasks;
      else lastInboxCount = tasks.length;
    }
    if (typeof value['id'] === 'string' && typeof value['name'] === 'string') s.projects.set(value['name'], value['id']);
    if (Array.isArray(value['projects'])) for (const p of value['projects'] as { id: string; name: string }[]) s.projects.set(p.name, p.id);
    if (Array.isArray(value['moved'])) for (const t of value['moved'] as { id: string }[]) s.moved.add(t.id);
    if (value['ok'] === true && typeof value['id'] === 'string' && typeof value['project'] === 'string') s.moved.add(value['id']);
  }
  s.verified = lastInboxCount >= 0;
  return s;
}

type Mode = 'batch' | 'single' | 'seed';

/** The next step of a capable model, as a list of calls (the json protocol sends the first only). */
function nextCalls(s: Seen, mode: Mode): [string, Record<string, unknown>][] | string {
  if (s.inbox === null) return [['get_inbox_tasks', {}]];
  const missing = Object.keys(GROUPS).filter((g) => !s.projects.has(g));
  if (missing.length) return missing.map((name) => ['create_project', { name }]);
  const todo = s.inbox.filter((t) => groupOf(t.content) && !s.moved.has(t.id));
  if (todo.length) {
    if (mode === 'batch') {
      return Object.keys(GROUPS).flatMap((g): [string, Record<string, unknown>][] => {
        const ids = todo.filter((t) => groupOf(t.content) === g).map((t) => t.id);
        return ids.length ? [['move_tasks', { task_ids: ids.slice(0, 100), project_id: s.projects.get(g) }]] : [];
      });
    }
    return todo.slice(0, 5).map((t) => ['move_task', { task_id: t.id, project_id: s.projects.get(groupOf(t.content)!) }]);
  }
  if (!s.verified) return [['get_inbox_tasks', {}]];
  return 'Sorted 150 tasks into Kitchen Renovation, Conference Talk and Garden; 10 tasks belong to none of them and stay in the Inbox.';
}

function reply(mode: Mode): (req: RecordedRequest) => FakeReply {
  let n = 0;
  return (req) => {
    const next = nextCalls(seen(req.body), mode);
    if (mode === 'seed') {
      const action = typeof next === 'string' ? { type: 'final_answer', answer: next } : { type: next[0]![0], ...next[0]![1] };
      return { text: JSON.stringify({ thought: 'Next step.', action }) };
    }
    if (typeof next === 'string') return { text: next };
    return { toolCalls: next.map(([name, args]) => ({ id: `call_${++n}`, name, arguments: JSON.stringify(args) })) };
  };
}

/** The request as a provider's prompt cache sees it: tools, then the messages in order. */
const serialised = (req: RecordedRequest): string => JSON.stringify({ tools: req.body?.tools ?? null, messages: req.body?.messages ?? [] });

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

interface Figures {
  label: string;
  status: string;
  requests: number;
  promptTokens: number;
  stablePrefixBytes: number;
  stableShare: number;
  inboxLeft: number;
}

async function clear(label: string, mode: Mode, tasks: readonly string[], settings: Record<string, string> = {}, seedPrompt?: (tools: readonly Tool[]) => string): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-scale-'));
  const db: Db = openDatabase(join(dir, 'scale.db'));
  const ctx = newUserRequest(db);
  for (const content of tasks) addTask(db, ctx, { content });
  for (const [k, v] of Object.entries(settings)) {
    const r = writeSetting(db, k, v);
    if (!r.ok) throw new Error(r.error);
  }
  const fake = await startFakeOpenAI({ handler: reply(mode) });
  try {
    const tools = mode === 'batch' ? TOOLS : TOOLS.filter((t) => !['move_tasks', 'add_tasks', 'complete_tasks'].includes(t.name));
    const deps = { db, tools, live: createLiveRuns(), createModel: () => createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-bench' }) };
    const r = startRun(deps, { message: 'Please organise my inbox into projects.', stream: false, approveAll: true, ...(mode === 'seed' ? { protocol: 'json' as const } : {}) }, () => {});
    if (!r.ok) throw new Error(r.error);
    const done = await r.value.finished;
    const sent = fake.chatRequests;
    let prompt = 0;
    for (const q of sent) {
      const messages = q.body?.messages ?? [];
      const system = seedPrompt && messages[0] ? seedPrompt(tools) : null;
      for (const [i, m] of messages.entries()) {
        prompt += 4 + encode(i === 0 && system !== null ? system : String(m['content'] ?? '')).length;
        if (Array.isArray(m['tool_calls'])) prompt += encode(JSON.stringify(m['tool_calls'])).length;
      }
      if (q.body?.tools) prompt += encode(JSON.stringify(q.body.tools)).length;
    }
    let stable = 0;
    let share = 0;
    for (let i = 0; i + 1 < sent.length; i++) {
      const a = serialised(sent[i]!);
      const p = commonPrefix(a, serialised(sent[i + 1]!));
      stable += p;
      share += p / a.length;
    }
    const pairs = Math.max(1, sent.length - 1);
    return {
      label,
      status: done.status,
      requests: sent.length,
      promptTokens: prompt,
      stablePrefixBytes: Math.round(stable / pairs),
      stableShare: share / pairs,
      inboxLeft: listTasks(db, { project: 'inbox' }).total,
    };
  } finally {
    await fake.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The nine-task seed inbox with three recoverable faults, with the default settings. */
async function seedWithFaults(): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-faults-'));
  const db: Db = openDatabase(join(dir, 'faults.db'));
  const ctx = newUserRequest(db);
  for (const content of SEED_INBOX) addTask(db, ctx, { content });
  const groups: Record<string, number[]> = { 'PyData Amsterdam': [0, 1, 2], 'Birthday Celebration': [3, 6, 7, 8], 'Personal Website': [4, 5] };
  let n = 0;
  const id = () => `call_${++n}`;
  const replies: FakeReply[] = [
    { toolCalls: [{ id: id(), name: 'get_inbox', arguments: '{}' }] }, // an unknown tool
    { toolCalls: [{ id: id(), name: 'get_inbox_tasks', arguments: '{}' }] },
    { toolCalls: Object.keys(groups).map((name) => ({ id: id(), name: 'create_project', arguments: JSON.stringify({ name }) })) },
    { toolCalls: [{ id: id(), name: 'move_tasks', arguments: '{"task_ids": ["t1", "t2"' }] }, // truncated JSON
    {
      toolCalls: Object.entries(groups).map(([, idx], p) => ({
        id: id(),
        name: 'move_tasks',
        arguments: JSON.stringify({ task_ids: [...idx.map((i) => `t${i + 1}`), ...(p === 0 ? ['t42'] : [])], project_id: `p${p + 1}` }), // t42: a bogus id
      })),
    },
    { toolCalls: [{ id: id(), name: 'get_inbox_tasks', arguments: '{}' }] },
    { text: 'Your inbox is empty: 3 projects, 9 tasks moved (t42 does not exist).' },
  ];
  const fake = await startFakeOpenAI({ replies });
  try {
    const deps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-bench' }) };
    const r = startRun(deps, { message: 'Please organise my inbox into projects.', stream: false }, () => {});
    if (!r.ok) throw new Error(r.error);
    const done = await r.value.finished;
    return { label: 'seed inbox, 3 faults', status: done.status, requests: fake.chatRequests.length, promptTokens: 0, stablePrefixBytes: 0, stableShare: 0, inboxLeft: listTasks(db, { project: 'inbox' }).total };
  } finally {
    await fake.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchScale(seedSystemPrompt: (tools: readonly Tool[]) => string): Promise<void> {
  const tasks = bigInbox();
  // (b) and (c) cannot finish within the default 20 actions; they get room to finish, so their cost is measured whole.
  const room = { maxActions: '200', timeLimitSec: '600' };
  const a = await clear('(a) Tidy, defaults', 'batch', tasks);
  const b = await clear('(b) single-item tools only', 'single', tasks, room);
  const c = await clear('(c) seed design (json, 1 action/step)', 'seed', tasks, room, seedSystemPrompt);
  const f = await seedWithFaults();
  console.log(`A real inbox: ${tasks.length} tasks (3 groups of 50, 10 that belong nowhere), loopback fake model, prompt tokens by gpt-tokenizer`);
  console.log(`  ${'run'.padEnd(40)} ${'status'.padEnd(7)} ${'requests'.padStart(8)} ${'prompt tokens'.padStart(14)} ${'stable prefix'.padStart(14)} ${'prefix share'.padStart(13)} ${'left'.padStart(5)}`);
  for (const r of [a, b, c]) {
    console.log(
      `  ${r.label.padEnd(40)} ${r.status.padEnd(7)} ${String(r.requests).padStart(8)} ${r.promptTokens.toLocaleString('en').padStart(14)} ${`${r.stablePrefixBytes.toLocaleString('en')} B`.padStart(14)} ${`${(r.stableShare * 100).toFixed(1)}%`.padStart(13)} ${String(r.inboxLeft).padStart(5)}`,
    );
  }
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`  (a) requests ${a.requests} (target ≤ 6: ${met(a.requests <= 6)}), prompt tokens ${a.promptTokens.toLocaleString('en')} (target ≤ 40,000: ${met(a.promptTokens <= 40_000)})`);
  const ratio = a.promptTokens / b.promptTokens;
  console.log(`  (a) / (b) prompt tokens ${ratio.toFixed(3)}× (target ≤ 0.25×: ${met(ratio <= 0.25)}); (a) / (c) ${(a.promptTokens / c.promptTokens).toFixed(3)}×`);
  console.log(`  (a) each request after the first a byte-identical prefix of the next: ${(a.stableShare * 100).toFixed(1)}% (target ≥ 90%: ${met(a.stableShare >= 0.9)})`);
  console.log(`  ${f.label}: ${f.status} in ${f.requests} requests with the defaults, ${f.inboxLeft} left in the inbox (target: done: ${met(f.status === 'done' && f.inboxLeft === 0)})`);
}
