// `tidy ask | runs | trace` as a user runs them: the CLI against a temp database and the loopback fake
// OpenAI server, which records every request so the tests assert on what was sent. Most command lines run
// in this process (test/support/cli-inproc.ts); the real process is run where it is what is tested: the
// first seed inbox run, no terminal to ask, Ctrl-C, and a pseudo-terminal.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AgentEvent, type RunInfo } from '../../../src-shared/events';
import { addTask, listProjects, listTasks, openDatabase, TOOLS, type Db } from '../../../src-main/core';
import { fakeError, startFakeOpenAI, type FakeReply, type FakeToolCall, type RecordedRequest } from '../../fakes/openai-server';
import { SEED_GROUPS, SEED_INBOX } from '../../support/agent';
import { TIDY_BIN } from '../../support/cli';
import { tidyAsync } from '../../support/cli-async';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir, userCtx } from '../../support/db';

async function setup(seed?: (db: Db) => void) {
  const path = join(tempDir(), 'tidy.db');
  const db = openDatabase(path);
  seed?.(db);
  db.close();
  const fake = await startFakeOpenAI();
  onTestFinished(() => fake.close());
  const env = { TIDY_BASE_URL: fake.url, TIDY_MODEL: 'fake-model' };
  return {
    path,
    fake,
    env,
    ask: (...args: string[]) => tidyIn(path, ['ask', ...args], { env }),
    /** `tidy ask` as its own process. */
    askProcess: (...args: string[]) => tidyAsync(path, ['ask', ...args], { env }).done,
    run: (...args: string[]) => tidyIn(path, args, { env }),
    json: async <T>(...args: string[]): Promise<T> => JSON.parse((await tidyIn(path, [...args, '--json'], { env })).stdout) as T,
    /** Reads the database in this process (cheaper than another `tidy … --json` process). */
    read: <T>(fn: (db: Db) => T): T => {
      const db = openDatabase(path);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    },
  };
}

const seedInbox = (db: Db) => {
  const ctx = userCtx(db);
  for (const content of SEED_INBOX) addTask(db, ctx, { content });
};

const call = (name: string, args: Record<string, unknown> | string = {}): FakeToolCall => ({ name, arguments: args });
/** A json-protocol reply as text. */
const act = (thought: string, type: string, args: Record<string, unknown> = {}): FakeReply => ({ text: JSON.stringify({ thought, action: { type, ...args } }) });

const PROJECTS = Object.keys(SEED_GROUPS); // created in this order: p1, p2, p3
const MOVES = PROJECTS.flatMap((name, p) => SEED_GROUPS[name]!.map((i) => ({ task_id: `t${i + 1}`, project_id: `p${p + 1}` })));
const ANSWER = 'Your inbox is empty: 3 projects, 9 tasks moved.';

const NATIVE_INBOX: FakeReply[] = [
  { text: 'First, the inbox and the projects.', toolCalls: [call('get_inbox_tasks'), call('get_all_projects')] },
  { toolCalls: PROJECTS.map((name) => call('create_project', { name })) },
  { toolCalls: MOVES.map((m) => call('move_task', m)) },
  { toolCalls: [call('get_inbox_tasks')] },
  { text: ANSWER },
];

const JSON_INBOX: FakeReply[] = [
  act('First I need to know which tasks are in the inbox.', 'get_inbox_tasks'),
  act('Which projects exist?', 'get_all_projects'),
  ...PROJECTS.map((name) => act(`Create ${name}.`, 'create_project', { name })),
  ...MOVES.map((m) => act('Move it.', 'move_task', m)),
  act('I now know the final answer', 'final_answer', { answer: ANSWER }),
];

/** Everything the model read from a request, except tool results: task text must never be there. */
const outsideToolResults = (r: RecordedRequest): string =>
  (r.body?.messages ?? [])
    .filter((m) => m.role === 'system' || (m.role === 'user' && !String(m['content']).startsWith('Observation: ')))
    .map((m) => String(m['content']))
    .join('\n');

describe('tidy ask: the seed inbox (001) through the real CLI', () => {
  const cases = [
    { protocol: 'native', stream: true, replies: NATIVE_INBOX, actions: 15 },
    { protocol: 'native', stream: false, replies: NATIVE_INBOX, actions: 15 },
    { protocol: 'json', stream: true, replies: JSON_INBOX, actions: 14 },
    { protocol: 'json', stream: false, replies: JSON_INBOX, actions: 14 },
  ] as const;

  it.each(cases)('$protocol protocol, stream $stream: three projects, empty inbox, then undo --run restores it', async ({ protocol, stream, replies, actions }) => {
    const t = await setup(seedInbox);
    t.fake.enqueue(...replies);
    // The first case runs the real process (the built bundle); the others run in this one.
    const ask = protocol === 'native' && stream ? t.askProcess : t.ask;
    const r = await ask('--protocol', protocol, stream ? '--stream' : '--no-stream', 'Get all tasks in the inbox, group them into projects and leave the inbox empty');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Tidy: ${ANSWER}`);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(`run r1: done, ${actions} actions, ${r.stdout.match(/, ([\d,]+) tokens/)![1]} tokens — undo with: tidy undo --run r1`);

    const tasks = t.read((db) => listTasks(db).tasks);
    expect(tasks.filter((x) => x.project === 'Inbox')).toEqual([]);
    for (const [name, members] of Object.entries(SEED_GROUPS))
      expect(tasks.filter((x) => x.project === name).map((x) => x.content).sort()).toEqual(members.map((i) => SEED_INBOX[i]).sort());

    // What the endpoint was sent.
    const sent = t.fake.chatRequests;
    expect(sent).toHaveLength(replies.length);
    expect(sent.every((q) => q.body?.stream === stream && q.body?.model === 'fake-model')).toBe(true);
    if (protocol === 'native') expect(sent[0]!.body?.tools?.map((x) => x.function.name)).toEqual(TOOLS.filter((t) => t.name !== 'wikipedia').map((t) => t.name)); // wikipedia is off by default
    else {
      expect(sent.every((q) => q.body?.tools === undefined)).toBe(true);
      expect(String(sent[0]!.body?.messages?.[0]?.['content'])).toContain('Reply with exactly one JSON object');
    }
    // The inbox reached the model inside a tool result, and only there.
    expect(JSON.stringify(sent[1]!.body?.messages)).toContain('Bake the birthday cake');
    for (const q of sent) expect(outsideToolResults(q)).not.toContain('Bake the birthday cake');

    const runs = await t.json<RunInfo[]>('runs');
    expect(runs).toMatchObject([{ id: 'r1', status: 'done', answer: ANSWER, protocol, actions }]);
    expect(runs[0]!.usage.totalTokens).toBeGreaterThan(0);

    const undo = await t.run('undo', '--run', 'r1');
    expect(undo.code).toBe(0);
    expect(t.read((db) => listTasks(db).tasks.map((x) => x.project))).toEqual(SEED_INBOX.map(() => 'Inbox'));
    expect(t.read((db) => listProjects(db).map((p) => p.name))).toEqual(['Inbox']);
  });

  it('--json prints every event as a JSON line, the last one run_finished; tidy trace replays the stored run', async () => {
    const t = await setup(seedInbox);
    t.fake.enqueue(...NATIVE_INBOX);
    const r = await t.ask('--json', '--stream', 'clear my inbox');
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => AgentEvent.parse(JSON.parse(l)));
    expect(events[0]).toMatchObject({ type: 'run_started', runId: 'r1', conversationId: 'c1', model: 'fake-model', protocol: 'native', baseUrl: t.fake.url });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', runId: 'r1', status: 'done', actions: 15 });
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);

    // The stored trace is the same events, without the streamed pieces.
    const stored = (await t.json<unknown[]>('trace', 'r1')).map((e) => AgentEvent.parse(e));
    expect(stored).toEqual(events.filter((e) => e.type !== 'text_delta'));
    const trace = await t.run('trace', 'r1');
    expect(trace.stdout).toContain('You: clear my inbox');
    expect(trace.stdout).toContain('  thinking: First, the inbox and the projects.');
    expect(trace.stdout).toContain('  → move_task {"task_id":"t4","project_id":"p2"}');
    expect(trace.stdout).toContain(`Tidy: ${ANSWER}`);
    expect(await t.run('trace', 'r9')).toMatchObject({ code: 1, stderr: 'tidy: no run with id r9 — tidy runs lists the runs\n' });
  });
});

describe('tidy ask: the seed list conversation (002), three requests in one conversation', () => {
  it('keeps the conversation: later requests see earlier ones, and the lists end as the user wanted', async () => {
    const t = await setup();
    t.fake.enqueue(
      { toolCalls: [call('get_list_names')] },
      { toolCalls: [call('make_list', { name: 'Favorite colors' })] },
      { toolCalls: ['Green', 'Purple', 'Orange'].map((text) => call('add_list_item', { list: 'Favorite colors', text })) },
      { text: "I've noted your favorite colors as Green, Purple, and Orange in a list." },
    );
    expect((await t.ask('my favorite colors are green, purple, and orange')).code).toBe(0);

    t.fake.enqueue(
      { toolCalls: [call('get_list_items', { list: 'Favorite colors' })] },
      { toolCalls: [call('archive_list_item', { list: 'Favorite colors', item_id: 'i3' })] },
      { text: 'Orange, being the color most similar to yellow, has been removed.' },
    );
    const second = await t.ask('--yes', '--continue', 'actually remove the one that is most similar to yellow');
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('  ? ');

    t.fake.enqueue(
      { toolCalls: [call('get_list_names')] },
      { toolCalls: [call('make_list', { name: 'Grocery list' })] },
      { toolCalls: [call('add_list_item', { list: 'Grocery list', text: 'Vitamin B' })] },
      { text: "I've added Vitamin B to your grocery list." },
    );
    expect((await t.ask('-c', 'I need to buy vitamin B at some point')).code).toBe(0);

    const runs = await t.json<RunInfo[]>('runs');
    expect(runs.map((r) => [r.id, r.conversationId, r.status])).toEqual([
      ['r3', 'c1', 'done'],
      ['r2', 'c1', 'done'],
      ['r1', 'c1', 'done'],
    ]);
    // The second request was sent with the first exchange, tool steps included.
    const secondFirst = t.fake.chatRequests[4]!.body!.messages!;
    expect(secondFirst.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'tool', 'assistant', 'user']);
    // Each request carries the date it was written on its first line (the system prompt never changes).
    expect(secondFirst[1]!['content']).toMatch(/^\[\w+day \d{4}-\d{2}-\d{2}, time zone [^\]]+\]\nmy favorite colors are green, purple, and orange$/);
    // The earlier turns no longer fit in 15 messages: the oldest step went, whole (system + ≤ 15 earlier + the request).
    const thirdFirst = t.fake.chatRequests[7]!.body!.messages!;
    expect(thirdFirst.length).toBeLessThanOrEqual(17);
    expect(thirdFirst[1]!.role).toBe('assistant');
    expect(thirdFirst.some((m) => m['content'] === 'Orange, being the color most similar to yellow, has been removed.')).toBe(true);

    expect((await t.json<{ name: string; items: { text: string }[] }[]>('lists')).map((l) => [l.name, l.items.map((i) => i.text)])).toEqual([
      ['Favorite colors', ['Green', 'Purple']],
      ['Grocery list', ['Vitamin B']],
    ]);

    // --new starts another conversation; --conversation picks one.
    t.fake.enqueue({ text: 'Hello!' }, { text: 'Still here.' });
    expect((await t.ask('--new', 'hi')).code).toBe(0);
    expect((await t.ask('--conversation', 'c1', 'still there?')).code).toBe(0);
    expect((await t.json<RunInfo[]>('runs')).slice(0, 2).map((r) => r.conversationId)).toEqual(['c1', 'c2']);
    expect(t.fake.chatRequests.at(-1)!.body!.messages!.some((m) => m['content'] === "I've added Vitamin B to your grocery list.")).toBe(true);
    expect((await t.ask('--conversation', 'c9', 'x')).stderr).toBe('tidy: no conversation with id c9 — see tidy runs for conversation ids, or use --new\n');
  });

  it('starts a new conversation unless --continue (-c) or --conversation says otherwise, and says on stderr when it continues', async () => {
    const t = await setup();
    t.fake.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }, { text: 'Four.' }, { text: 'Five.' }, { text: 'Six.' });
    const first = await t.ask('plan the\nbirthday');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const second = await t.ask('--continue', 'and the cake?');
    expect(second).toMatchObject({ code: 0, stderr: 'tidy: continuing conversation c1 ("plan the birthday")\n' });
    expect(second.stdout).not.toContain('continuing');
    // A plain ask never continues by surprise: the earlier exchange is not sent.
    expect(await t.ask('something else')).toMatchObject({ code: 0, stderr: '' });
    expect(t.fake.chatRequests.at(-1)!.body!.messages!.map((m) => m.role)).toEqual(['system', 'user']);
    expect(await t.ask('--new', 'and another thing')).toMatchObject({ code: 0, stderr: '' });
    expect(await t.ask('--conversation', 'c1', 'back to the birthday')).toMatchObject({ code: 0, stderr: '' });
    expect(await t.ask('-c', 'and the guests?')).toMatchObject({ code: 0, stderr: 'tidy: continuing conversation c1 ("plan the birthday")\n' });
    expect((await t.json<RunInfo[]>('runs')).map((r) => r.conversationId)).toEqual(['c1', 'c1', 'c3', 'c2', 'c1', 'c1']);
    expect((await t.ask('-c', '--conversation', 'c1', 'x')).stderr).toBe('tidy: --continue and --conversation cannot be used together — pick one\n');
  }, 180_000);

  it('--continue with no conversation yet is refused in one line', async () => {
    const t = await setup();
    expect(await t.ask('-c', 'hello')).toMatchObject({ code: 1, stderr: 'tidy: there is no conversation to continue yet — ask without --continue to start one\n' });
  });
});

describe('tidy ask: faults', () => {
  it('retries a 429 and goes on', async () => {
    const t = await setup();
    t.fake.enqueue(fakeError(429, 'Rate limit reached for requests', { code: 'rate_limit_exceeded', type: 'requests', headers: { 'retry-after': '0' } }), { text: 'Hi!' });
    const r = await t.ask('hello');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(t.fake.chatRequests).toHaveLength(2);
  });

  it('a 401 ends the run with the provider message on one line, exit 1', async () => {
    const t = await setup();
    t.fake.enqueue({ replay: '07' });
    const r = await t.ask('hello');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tidy: 401 invalid_api_key: Incorrect API key provided[^\n]* — run r1; details: tidy trace r1\n$/);
    expect((await t.json<RunInfo[]>('runs'))[0]).toMatchObject({ status: 'error', message: expect.stringMatching(/^401 invalid_api_key/) });
  });

  it('a 500 that retries do not cure ends the run with status error', async () => {
    const t = await setup();
    t.fake.enqueue(...[1, 2, 3].map(() => fakeError(500, 'The server had an error while processing your request.', { type: 'server_error' })));
    const r = await t.ask('hello');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/^tidy: .*500.*server had an error/);
    expect((await t.json<RunInfo[]>('runs'))[0]!.status).toBe('error');
  });

  it('an unknown tool, truncated JSON arguments and bogus ids go back to the model, which recovers', async () => {
    const t = await setup(seedInbox);
    t.fake.enqueue(
      { toolCalls: [call('delete_task', { task_id: 't1' }), call('move_task', '{"task_id": "t1", "proj'), call('move_task', { task_id: 't999', project_id: 'p42' })] },
      { toolCalls: [call('get_all_projects')] },
      { text: 'I could not move it.' },
    );
    const r = await t.ask('move the first task');
    expect(r.code).toBe(0);
    const results = t.fake.chatRequests[1]!.body!.messages!.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m['content'])) as { error: string; hint: string });
    expect(results[0]).toMatchObject({ error: "unknown tool 'delete_task'", hint: expect.stringContaining('move_task') });
    expect(results[1]).toMatchObject({ error: expect.stringMatching(/not valid JSON/), hint: 'send a JSON object: move_task takes {task_id, project_id}' });
    expect(results[2]).toMatchObject({ error: "no task with id 't999'" });
    expect(r.stdout).toContain("  ✗ unknown tool 'delete_task'");
  });

  it('a model that never stops hits the action limit: status limit, exit 1, one line', async () => {
    const t = await setup();
    expect((await t.run('config', 'set', 'maxActions', '3')).code).toBe(0);
    let n = 0;
    const fake = await startFakeOpenAI({ handler: () => ({ toolCalls: [call('search', { query: `word${++n}` })] }) });
    onTestFinished(() => fake.close());
    const r = await tidyIn(t.path, ['ask', 'find everything'], { env: { ...t.env, TIDY_BASE_URL: fake.url } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tidy: stopped: reached the limit of 3 actions — run r1; undo its changes with: tidy undo --run r1\n');
    expect((await t.json<RunInfo[]>('runs'))[0]).toMatchObject({ status: 'limit', actions: 3, stopReason: 'actions', message: 'stopped: reached the limit of 3 actions' });
    expect(fake.chatRequests).toHaveLength(4);
  });

  it('Ctrl-C cancels the run cleanly: status cancelled, what it did stays undoable', async () => {
    const t = await setup();
    t.fake.enqueue({ toolCalls: [call('add_task', { content: 'Buy balloons' })] }, { fault: 'hang' });
    const running = tidyAsync(t.path, ['ask', 'add a task'], { env: t.env });
    await t.fake.waitForChatRequests(2, 10_000);
    running.child.kill('SIGINT');
    const r = await running.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tidy: cancelled — run r1; undo its changes with: tidy undo --run r1\n');
    expect((await t.json<RunInfo[]>('runs'))[0]).toMatchObject({ status: 'cancelled', actions: 1 });
    expect(await t.json<unknown[]>('tasks')).toHaveLength(1);
    expect((await t.run('undo', '--run', 'r1')).code).toBe(0);
    expect(await t.json<unknown[]>('tasks')).toHaveLength(0);
  });
});

describe('tidy ask: approvals, history, protocol fallback', () => {
  it('declines a tool that needs approval when there is no terminal to ask; --yes runs it', async () => {
    const t = await setup(seedInbox);
    t.fake.enqueue({ toolCalls: [call('complete_task', { task_id: 't1' })] }, { text: 'You declined.' });
    const declined = await t.askProcess('complete the first task');
    expect(declined.code).toBe(0);
    expect(declined.stderr).toBe(`tidy: declined "Complete task 'Finish presentation for PyData Amsterdam'?": there is no terminal to ask (use --yes to allow it)\n`);
    expect(declined.stdout).toContain("  ? Complete task 'Finish presentation for PyData Amsterdam'?\n    declined\n");
    expect(await t.json<unknown[]>('tasks')).toHaveLength(9);
    const back = JSON.parse(String(t.fake.chatRequests[1]!.body!.messages!.at(-1)!['content'])) as { error: string };
    expect(back.error).toMatch(/^the user declined/);

    t.fake.enqueue({ toolCalls: [call('complete_task', { task_id: 't1' })] }, { text: 'Done.' });
    const approved = await t.ask('--yes', '-c', 'complete the first task');
    // The second request continues the first one's conversation (-c), and says so.
    expect(approved).toMatchObject({ code: 0, stderr: 'tidy: continuing conversation c1 ("complete the first task")\n' });
    expect(await t.json<unknown[]>('tasks')).toHaveLength(8);

    // With approvals.complete_task = auto nothing is asked either.
    expect((await t.run('config', 'set', 'approvals.complete_task', 'auto')).code).toBe(0);
    t.fake.enqueue({ toolCalls: [call('complete_task', { task_id: 't2' })] }, { text: 'Done.' });
    expect((await t.ask('complete the second task')).stdout).not.toContain('  ? ');
    expect(await t.json<unknown[]>('tasks')).toHaveLength(7);
  });

  it('sends every step of the current run however long it gets; historyLength trims only earlier turns, never splitting a step', async () => {
    const t = await setup(seedInbox);
    expect((await t.run('config', 'set', 'historyLength', '4')).code).toBe(0);
    t.fake.enqueue(
      ...['cake', 'website', 'pydata', 'milk'].map((query) => ({ toolCalls: [call('search', { query })] })),
      { toolCalls: [call('get_inbox_tasks'), call('get_all_projects')] },
      { text: 'Found them.' },
    );
    expect((await t.ask('find my tasks')).code).toBe(0);
    const sent = t.fake.chatRequests.map((q) => q.body!.messages!);
    // The run grows past historyLength (4): every step is still sent, so nothing it learnt is forgotten.
    expect(sent.map((m) => m.length)).toEqual([2, 4, 6, 8, 10, 13]);
    for (const messages of sent) {
      expect(messages[0]!.role).toBe('system');
      expect(messages[1]).toMatchObject({ role: 'user', content: expect.stringMatching(/\nfind my tasks$/) });
    }
    // The system prompt is byte-identical from step to step.
    expect(new Set(sent.map((m) => JSON.stringify(m[0])))).toHaveProperty('size', 1);

    // The next request (-c, in the same conversation): of the earlier turn only the last 4 messages are sent, starting at a step.
    t.fake.enqueue({ text: 'Hello again.' });
    expect((await t.ask('-c', 'thanks')).code).toBe(0);
    const next = t.fake.chatRequests.at(-1)!.body!.messages!;
    expect(next.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'tool', 'assistant', 'user']);
    expect(next.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/\nthanks$/) });
  });

  it('auto protocol: falls back to json when the endpoint rejects tools, and remembers it for that model only', async () => {
    const t = await setup();
    const fake = await startFakeOpenAI({
      handler: (req) =>
        req.body?.tools
          ? fakeError(400, `registry.ollama.ai/library/${req.body.model} does not support tools`)
          : act('Nothing to do.', 'final_answer', { answer: `Hi from ${req.body?.model}` }),
    });
    onTestFinished(() => fake.close());
    const env = { ...t.env, TIDY_BASE_URL: fake.url, TIDY_MODEL: 'gemma:2b' };
    const first = await tidyIn(t.path, ['ask', 'hi'], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('does not support tools; switched to the json protocol (remembered for this model)');
    expect(first.stdout).toContain('Tidy: Hi from gemma:2b');
    expect(fake.chatRequests.map((q) => q.body?.tools !== undefined)).toEqual([true, false]);
    expect((await t.json<RunInfo[]>('runs'))[0]!.protocol).toBe('json');

    const again = await tidyIn(t.path, ['ask', 'hi again'], { env });
    expect(again.code).toBe(0);
    expect(fake.chatRequests.map((q) => q.body?.tools !== undefined)).toEqual([true, false, false]);

    const other = await tidyIn(t.path, ['ask', '--new', 'hi'], { env: { ...env, TIDY_MODEL: 'llama3.1' } });
    expect(other.code).toBe(0);
    expect(fake.chatRequests.slice(3).map((q) => q.body?.tools !== undefined)).toEqual([true, false]);

    // An explicit --protocol native does not fall back.
    const forced = await tidyIn(t.path, ['ask', '--protocol', 'native', 'hi'], { env: { ...env, TIDY_MODEL: 'qwen' } });
    expect(forced.code).toBe(1);
    expect(forced.stderr).toMatch(/^tidy: .*does not support tools/m);
  });
});

// `script` (util-linux) runs the CLI on a pseudo-terminal, as a user at a terminal would.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('tidy ask on a terminal', () => {
  it('asks; "always" approves and stops asking for that tool (approvals.complete_task = auto)', async () => {
    const t = await setup(seedInbox);
    t.fake.enqueue({ toolCalls: [call('complete_task', { task_id: 't1' })] }, { toolCalls: [call('complete_task', { task_id: 't2' })] }, { text: 'Both done.' });
    const child = spawn('script', ['-qec', `"${process.execPath}" "${TIDY_BIN}" --db "${t.path}" ask "complete the first two"`, '/dev/null'], {
      env: { ...process.env, ...t.env, TIDY_DB: '' },
    });
    let out = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!answered && out.includes('[a]lways: ')) {
        answered = true;
        child.stdin.write('a\r');
      }
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out.match(/approve\? \[y\]es \/ \[n\]o \/ \[a\]lways: /g)).toHaveLength(1);
    expect(out).toContain('approved (always)');
    expect(await t.json<unknown[]>('tasks')).toHaveLength(7);
    expect((await t.run('config', 'get', 'approvals')).stdout.trim()).toBe('{"complete_task":"auto"}');
  });
});
