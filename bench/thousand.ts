// The agent at ten times the scale (issue 30): a 1,000-task inbox whose tasks carry labels (three groups of
// 300, labelled @kitchen, @talk and @garden, plus 100 with other labels that belong nowhere), cleared with the
// default settings against a loopback fake model that behaves like a capable one: it never reads the whole
// inbox, but asks find_tasks for each label (200 ids a page), creates the projects, moves with move_tasks (100
// a call), asks again for what is left, and checks the inbox once. Printed: requests, tool calls and prompt
// tokens (targets ≤ 10 requests, ≤ 120k tokens).
import { encode } from 'gpt-tokenizer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, listTasks, newUserRequest, openDatabase, type Db } from '../src-main/core';
import { createLiveRuns, startRun, TOOLS } from '../src-main/core/agent';
import { createOpenAIModel } from '../src-main/core/llm/openai';
import { startFakeOpenAI, type FakeReply, type RecordedRequest } from '../test/fakes/openai-server';

const GROUPS: Record<string, { label: string; words: string[] }> = {
  'Kitchen Renovation': { label: 'kitchen', words: ['tiles', 'sink', 'cabinet', 'countertop', 'oven', 'faucet', 'plumber', 'paint', 'floor', 'lights'] },
  'Conference Talk': { label: 'talk', words: ['slides', 'abstract', 'demo', 'rehearse', 'speaker bio', 'travel', 'hotel', 'badge', 'handout', 'recording'] },
  Garden: { label: 'garden', words: ['tomatoes', 'hedge', 'compost', 'lawn', 'roses', 'seeds', 'watering', 'fence', 'shed', 'mulch'] },
};
const ELSEWHERE = ['errands', 'phone', 'admin', 'home'];
const PER_GROUP = 300;
const NOWHERE = 100;
const PAGE = 200;

/** 900 labelled tasks in three groups, interleaved as a real inbox is, and 100 with other labels. */
function thousandInbox(): { content: string; labels: string[] }[] {
  const out: { content: string; labels: string[] }[] = [];
  for (let i = 0; i < PER_GROUP; i++) {
    for (const g of Object.values(GROUPS)) out.push({ content: `${g.words[i % g.words.length]} step ${Math.floor(i / 10) + 1}`, labels: [g.label] });
    if (i % 3 === 0 && out.length < 1000) out.push({ content: `loose end ${i / 3 + 1}`, labels: [ELSEWHERE[i % ELSEWHERE.length]!] });
  }
  while (out.length < PER_GROUP * 3 + NOWHERE) out.push({ content: `loose end ${out.length}`, labels: ['errands'] });
  return out;
}

interface State {
  projects: Map<string, string>;
  moved: Set<string>;
  /** The latest find_tasks answer per group: its ids and whether more matched than it showed. */
  found: Map<string, { ids: string[]; more: boolean }>;
  verified: boolean;
}

/** What the run has learnt, read back from the request's messages (the fake keeps no state). */
function stateOf(body: RecordedRequest['body']): State {
  const s: State = { projects: new Map(), moved: new Set(), found: new Map(), verified: false };
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const m of body?.messages ?? []) {
    if (m.role === 'assistant' && Array.isArray(m['tool_calls']))
      for (const c of m['tool_calls'] as { id: string; function: { name: string; arguments: string } }[]) calls.set(c.id, { name: c.function.name, args: JSON.parse(c.function.arguments) as Record<string, unknown> });
    if (m.role !== 'tool') continue;
    const call = calls.get(String(m['tool_call_id']));
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(String(m['content'])) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (call?.name === 'create_project' && typeof v['id'] === 'string') s.projects.set(String(v['name']), v['id']);
    if (call?.name === 'move_tasks' && Array.isArray(v['moved'])) for (const t of v['moved'] as { id: string }[]) s.moved.add(t.id);
    if (call?.name === 'find_tasks') {
      const group = Object.keys(GROUPS).find((g) => call.args['filter'] === filterOf(g));
      const tasks = (v['tasks'] ?? []) as { id: string }[];
      if (group) s.found.set(group, { ids: tasks.map((t) => t.id), more: Number(v['total']) > tasks.length });
      else s.verified = true;
    }
  }
  return s;
}

const filterOf = (group: string): string => `#Inbox & @${GROUPS[group]!.label}`;
const find = (group: string): [string, Record<string, unknown>] => ['find_tasks', { filter: filterOf(group), limit: PAGE }];

function next(s: State): [string, Record<string, unknown>][] | string {
  const groups = Object.keys(GROUPS);
  if (s.projects.size === 0) return [...groups.map((name): [string, Record<string, unknown>] => ['create_project', { name }]), ...groups.map(find)];
  const calls: [string, Record<string, unknown>][] = [];
  for (const g of groups) {
    const f = s.found.get(g);
    const ids = (f?.ids ?? []).filter((id) => !s.moved.has(id));
    for (let i = 0; i < ids.length; i += 100) calls.push(['move_tasks', { task_ids: ids.slice(i, i + 100), project_id: s.projects.get(g) }]);
  }
  // Ask again, after the moves of this step, for the groups that had more than a page.
  for (const g of groups) if (s.found.get(g)?.more && calls.some(([, a]) => a['project_id'] === s.projects.get(g))) calls.push(find(g));
  if (calls.length) return calls;
  if (!s.verified) return [['find_tasks', { filter: '#Inbox', limit: 1 }]];
  return `Moved ${PER_GROUP * 3} tasks into Kitchen Renovation, Conference Talk and Garden by their labels; ${NOWHERE} tasks with other labels stay in the Inbox.`;
}

export interface ThousandFigures {
  status: string;
  requests: number;
  calls: number;
  promptTokens: number;
  inboxLeft: number;
}

export async function clearThousand(): Promise<ThousandFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-1000-'));
  const db: Db = openDatabase(join(dir, 'thousand.db'));
  const ctx = newUserRequest(db);
  db.transaction(() => {
    for (const t of thousandInbox()) {
      const r = addTask(db, ctx, t);
      if (!r.ok) throw new Error(r.error);
    }
  })();
  let n = 0;
  let calls = 0;
  const fake = await startFakeOpenAI({
    handler: (req): FakeReply => {
      const step = next(stateOf(req.body));
      if (typeof step === 'string') return { text: step };
      calls += step.length;
      return { toolCalls: step.map(([name, args]) => ({ id: `call_${++n}`, name, arguments: JSON.stringify(args) })) };
    },
  });
  try {
    const deps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-bench' }) };
    const r = startRun(deps, { message: 'Please organise my inbox into projects by their labels.', stream: false, approveAll: true }, () => {});
    if (!r.ok) throw new Error(r.error);
    const done = await r.value.finished;
    let prompt = 0;
    for (const q of fake.chatRequests) {
      for (const m of q.body?.messages ?? []) {
        prompt += 4 + encode(String(m['content'] ?? '')).length;
        if (Array.isArray(m['tool_calls'])) prompt += encode(JSON.stringify(m['tool_calls'])).length;
      }
      if (q.body?.tools) prompt += encode(JSON.stringify(q.body.tools)).length;
    }
    return { status: done.status, requests: fake.chatRequests.length, calls, promptTokens: prompt, inboxLeft: listTasks(db, { project: 'inbox' }).total };
  } finally {
    await fake.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchThousand(): Promise<void> {
  const f = await clearThousand();
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`A 1,000-task inbox with labels (3 groups of ${PER_GROUP} by label, ${NOWHERE} elsewhere), find_tasks + batch tools, defaults`);
  console.log(`  status ${f.status}, ${f.calls} tool calls, ${f.inboxLeft} left in the inbox (target ${NOWHERE}: ${met(f.inboxLeft === NOWHERE && f.status === 'done')})`);
  console.log(`  requests ${f.requests} (target ≤ 10: ${met(f.requests <= 10)}), prompt tokens ${f.promptTokens.toLocaleString('en')} (target ≤ 120,000: ${met(f.promptTokens <= 120_000)})`);
}
