// Agent benchmark: (1) loop overhead per tool step, Tidy vs the OpenAI Agents SDK vs Vercel's AI SDK, the
// same 20-step tool script against the same loopback fake model; (2) prompt tokens per step on the seed's
// nine-task inbox, Tidy's prompts vs the seed's design (the reply's whole JSON Schema in the system prompt).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, OpenAIChatCompletionsModel, run as runAgents, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { generateText, stepCountIs, tool as aiTool } from 'ai';
import { encode } from 'gpt-tokenizer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { z } from 'zod';
import { addTask, newUserRequest, openDatabase, type Db } from '../src-main/core';
import { createLiveRuns, createToolServices, jsonProtocol, nativeProtocol, startRun, TOOLS, type Tool } from '../src-main/core/agent';
import { createOpenAIModel } from '../src-main/core/llm/openai';
import type { ChatMessage, Model } from '../src-main/core/llm/port';
import { SEED_INBOX } from '../test/fakes/seed';
import { benchScale } from './scale';
import { benchThousand } from './thousand';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../test/fakes/openai-server';

const STEPS = 20;
const ROUNDS = 41;

// ---------------------------------------------------------------------------------------------------
// 1. Overhead per tool step

/**
 * The script, the same for every framework: call get_all_tasks until 20 results came back, then answer. The
 * argument alternates between two spellings of the Inbox, so Tidy's loop detector (the same call three
 * times in a row) lets it through.
 */
function script(request: RecordedRequest): FakeReply {
  const done = (request.body?.messages ?? []).filter((m) => m.role === 'tool').length;
  if (done >= STEPS) return { text: 'Done: 20 steps.', usage: { promptTokens: 100, completionTokens: 5 } };
  return { toolCalls: [{ id: `call_${done}`, name: 'get_all_tasks', arguments: { project_id: done % 2 ? 'Inbox' : 'inbox' } }], usage: { promptTokens: 100, completionTokens: 5 } };
}


/**
 * Median time per tool step of each contender. Rounds are interleaved (A, B, C, A, B, C, …) so that noise
 * from other processes falls on all of them alike.
 */
async function timePerStep(fake: FakeOpenAI, contenders: [string, () => Promise<void>][]): Promise<number[]> {
  for (const [, once] of contenders) await once(); // warm-up: module initialisation, first connection
  const samples: number[][] = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [name, once]] of contenders.entries()) {
      fake.reset();
      const t0 = performance.now();
      await once();
      samples[i]!.push((performance.now() - t0) / STEPS);
      if (fake.chatRequests.length !== STEPS + 1) throw new Error(`${name}: expected ${STEPS + 1} model calls, saw ${fake.chatRequests.length}`);
    }
  }
  return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]!);
}

async function overhead(): Promise<void> {
  const fake = await startFakeOpenAI({ handler: script });
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-agent-'));
  try {
    const db = openDatabase(join(dir, 'bench.db'));
    const ctx = newUserRequest(db);
    for (const content of SEED_INBOX) addTask(db, ctx, { content });
    // Every framework runs the very same tool: Tidy's get_all_tasks on this database. What differs is the loop.
    const getAllTasks = TOOLS.find((t) => t.name === 'get_all_tasks')!;
    const toolCtx = { db, action: { requestId: 'r-bench', source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices() };
    const readTasks = async (args: { project_id?: string | null }) => {
      const r = await getAllTasks.run(getAllTasks.input.parse({ project_id: args.project_id ?? undefined }), toolCtx);
      return r.ok ? r.value : { error: r.error, hint: r.hint };
    };

    // Tidy: the run API as the CLI uses it, with the trace, the conversation and every step persisted
    // (on disk, synchronous = FULL). The full history is sent, as the other two send it.
    // One model client for the endpoint, kept across runs as a long-lived host (the app) keeps it.
    const model = createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-bench' });
    // The same one tool as the other two are given, so the figure is the loop's cost, not 16 more schemas on the wire.
    const deps = { db, tools: [getAllTasks], live: createLiveRuns(), createModel: () => model };
    const tidy = async () => {
      const r = startRun(deps, { message: 'Look at my tasks 20 times.', protocol: 'native', stream: false, limits: { maxActions: 50, historyLength: 200 } }, () => {});
      if (!r.ok) throw new Error(r.error);
      const done = await r.value.finished;
      if (done.status !== 'done' || done.actions !== STEPS) throw new Error(`Tidy: ${done.status} ${done.message ?? ''}`);
    };

    setTracingDisabled(true);
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-bench', maxRetries: 0 });
    const agent = new Agent({
      name: 'Tidy',
      instructions: 'You organise tasks.',
      model: new OpenAIChatCompletionsModel(client, 'fake-model'),
      tools: [
        agentsTool({
          name: 'get_all_tasks',
          description: 'Open tasks of every project, or of one project.',
          parameters: z.object({ project_id: z.string().nullable() }),
          execute: async (args) => JSON.stringify(await readTasks(args)),
        }),
      ],
    });
    const openaiAgents = async () => {
      await runAgents(agent, 'Look at my tasks 20 times.', { maxTurns: STEPS + 5 });
    };

    const provider = createOpenAICompatible({ name: 'fake', baseURL: fake.url, apiKey: 'sk-bench' });
    const vercel = async () => {
      await generateText({
        model: provider('fake-model'),
        system: 'You organise tasks.',
        prompt: 'Look at my tasks 20 times.',
        tools: {
          get_all_tasks: aiTool({
            description: 'Open tasks of every project, or of one project.',
            inputSchema: z.object({ project_id: z.string().optional() }),
            execute: (args) => readTasks(args),
          }),
        },
        stopWhen: stepCountIs(STEPS + 5),
        maxRetries: 0,
      });
    };

    // Diagnostic: Tidy's loop over a bare fetch client instead of the openai-SDK adapter, to show how much
    // of Tidy's time per step is the HTTP client rather than the loop and its persistence.
    const bareDeps = { ...deps, createModel: () => bareFetchModel(fake.url) };
    const tidyBare = async () => {
      const r = startRun(bareDeps, { message: 'Look at my tasks 20 times.', protocol: 'native', stream: false, limits: { maxActions: 50, historyLength: 200 } }, () => {});
      if (!r.ok) throw new Error(r.error);
      if ((await r.value.finished).status !== 'done') throw new Error('Tidy (bare fetch) did not finish');
    };

    // For reference: Tidy as it really runs, with all 17 tool schemas in every request.
    const fullDeps = { ...deps, tools: TOOLS };
    const tidyFull = async () => {
      const r = startRun(fullDeps, { message: 'Look at my tasks 20 times.', protocol: 'native', stream: false, limits: { maxActions: 50, historyLength: 200 } }, () => {});
      if (!r.ok) throw new Error(r.error);
      if ((await r.value.finished).status !== 'done') throw new Error('Tidy (full catalogue) did not finish');
    };

    const [tidyMs, agentsMs, aiMs, bareMs, fullMs] = await timePerStep(fake, [
      ['Tidy', tidy],
      ['@openai/agents', openaiAgents],
      ['ai', vercel],
      ['Tidy (bare fetch)', tidyBare],
      ['Tidy (full catalogue)', tidyFull],
    ]);

    const line = (name: string, v: number) => console.log(`  ${name.padEnd(58)} ${v.toFixed(2)} ms`);
    console.log(`Agent loop: time per tool step, ${STEPS}-step script, loopback fake model (median of ${ROUNDS})`);
    line('Tidy (trace, conversation and tool actions persisted)', tidyMs!);
    line('@openai/agents (in memory)', agentsMs!);
    line('ai / Vercel AI SDK (in memory)', aiMs!);
    line('  diagnostic: Tidy loop over a bare fetch client, no SDK', bareMs!);
    line(`  reference: Tidy sending its whole catalogue (${TOOLS.length} tools)`, fullMs!);
    const verdict = (r: number) => `${r.toFixed(2)}×  (target ≤ 1.0×: ${r <= 1 ? 'met' : 'NOT met'})`;
    console.log(`  ${'Tidy / @openai/agents'.padEnd(58)} ${verdict(tidyMs! / agentsMs!)}`);
    console.log(`  ${'Tidy / ai'.padEnd(58)} ${verdict(tidyMs! / aiMs!)}`);
    db.close();
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A minimal non-streaming chat-completions client (no retries, no quirks): for the diagnostic line only. */
function bareFetchModel(baseUrl: string): Model {
  const wire = (m: ChatMessage) =>
    m.role === 'tool'
      ? { role: 'tool', tool_call_id: m.toolCallId, content: m.content }
      : m.role === 'assistant' && m.toolCalls
        ? { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
        : m;
  return {
    name: 'fake-model',
    async complete(request) {
      const res = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', messages: request.messages.map(wire), tools: request.tools?.map((t) => ({ type: 'function', function: t })), stream: false }),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const body = (await res.json()) as { choices: { message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] } }[] };
      const message = body.choices[0]!.message;
      const toolCalls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
      return { text: message.content ?? '', refusal: null, reasoning: '', toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop', usage: null };
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. Prompt tokens per step on the seed inbox

/** Python's repr of a JSON value: the seed put `{ReactResponse.schema()}` (a dict) into an f-string. */
function pyRepr(v: unknown): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `'${k}': ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

const words = (name: string) => name.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1));

/**
 * The seed's design (000): the system prompt embeds the JSON Schema of the whole reply, as pydantic v1's
 * `ReactResponse.schema()` writes it — a title on every model and field, one definition per action, the
 * action a union of $refs — here with Tidy's tools, descriptions and argument types.
 */
function seedSystemPrompt(tools: readonly Tool[]): string {
  const definitions: Record<string, unknown> = {};
  const action = (name: string, description: string, props: Record<string, Record<string, unknown>>, required: string[]) => {
    const title = `${words(name).join('')}Action`;
    definitions[title] = {
      title,
      description,
      type: 'object',
      properties: { type: { title: 'Type', enum: [name], type: 'string' }, ...Object.fromEntries(Object.entries(props).map(([k, p]) => [k, { title: words(k).join(' '), ...p }])) },
      required: ['type', ...required],
    };
    return { $ref: `#/definitions/${title}` };
  };
  const refs = tools.map((t) => {
    const schema = z.toJSONSchema(t.input) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    return action(t.name, t.description, schema.properties ?? {}, schema.required ?? []);
  });
  refs.push(action('give_final_answer', 'Use this to give the final answer to the user.', { answer: { description: 'The final answer to the user.', type: 'string' } }, ['answer']));
  const reply = {
    title: 'ReactResponse',
    description: 'The expected response from the agent.',
    type: 'object',
    properties: {
      thought: {
        title: 'Thought',
        description: 'Here you write your plan to answer the question. You can also write here your interpretation of the observations and progress you have made so far.',
        type: 'string',
      },
      action: { title: 'Action', description: 'The next action you want to take. Make sure it is consistent with your thoughts.', anyOf: refs },
    },
    required: ['thought', 'action'],
    definitions,
  };
  return `
    You are a getting things done (GTD) agent.
    You have access to multiple tools.
    See the action in the json schema for the available tools.
    If you have insufficient information to answer the question, you can use the tools to get more information.
    All your answers must be in json format and follow the following schema json schema:
    ${pyRepr(reply)}

    If your json response asks me to preform an action, I will preform that action.
    I will then respond with the result of that action.

    Do not write anything else than json!
    `;
}

/** The tokens a request costs: the messages, and the tool schemas native tool calling sends with every request. */
function requestTokens(messages: readonly ChatMessage[], tools?: unknown): number {
  let n = 0;
  for (const m of messages) n += 4 + encode(m.content ?? '').length + (m.role === 'assistant' && m.toolCalls ? encode(JSON.stringify(m.toolCalls)).length : 0);
  return n + (tools ? encode(JSON.stringify(tools)).length : 0);
}

async function promptTokens(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-tokens-'));
  const db: Db = openDatabase(join(dir, 'tokens.db'));
  const ctx = newUserRequest(db);
  for (const content of SEED_INBOX) addTask(db, ctx, { content });
  const groups: Record<string, number[]> = { 'PyData Amsterdam': [0, 1, 2], 'Birthday Celebration': [3, 6, 7, 8], 'Personal Website': [4, 5] };
  // The seed's scenario in the json protocol: one action per step (what the seed's agent did).
  const actions: [string, Record<string, unknown>][] = [
    ['get_inbox_tasks', {}],
    ['get_all_projects', {}],
    ...Object.keys(groups).map((name): [string, Record<string, unknown>] => ['create_project', { name }]),
    ...Object.entries(groups).flatMap(([, idx], p) => idx.map((i): [string, Record<string, unknown>] => ['move_task', { task_id: `t${i + 1}`, project_id: `p${p + 1}` }])),
    ['get_inbox_tasks', {}],
    ['final_answer', { answer: 'Your inbox is empty: 3 projects, 9 tasks moved.' }],
  ];
  const replies: FakeReply[] = actions.map(([type, args]) => ({ text: JSON.stringify({ thought: `Next: ${type}.`, action: { type, ...args } }) }));
  const fake = await startFakeOpenAI({ replies });
  const request = 'Get all tasks in the inbox and try to identify related tasks. Think of a suitable project name for these grouping of tasks. If not such project exists create a project. Then move all tasks to their project and ensure the inbox is empty afterwards!';
  try {
    const deps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-bench' }) };
    const r = startRun(deps, { message: request, protocol: 'json', stream: false }, () => {});
    if (!r.ok) throw new Error(r.error);
    const done = await r.value.finished;
    if (done.status !== 'done') throw new Error(`token scenario: ${done.status} ${done.message ?? ''}`);

    // What Tidy sent (json protocol, history window of 15), as recorded by the fake.
    const sent = fake.chatRequests.map((q) => (q.body?.messages ?? []).map((m) => ({ role: m.role, content: String(m['content'] ?? '') }) as ChatMessage));
    const tidyJson = sent.reduce((n, messages) => n + requestTokens(messages), 0) / sent.length;

    // The seed's design on the very same requests: its system prompt instead of Tidy's. (Its sidebar had a
    // message-history length of 15 too, so the history sent is the same; only the prompt design differs.)
    const seedSystem: ChatMessage = { role: 'system', content: seedSystemPrompt(TOOLS) };
    const seed = sent.reduce((n, messages) => n + requestTokens([seedSystem, ...messages.slice(1)]), 0) / sent.length;

    // Native tool calling on the same steps: Tidy's system prompt, plus the tool schemas every request carries.
    const native = nativeProtocol.prepare(TOOLS);
    const nativeSystem: ChatMessage = { role: 'system', content: native.system };
    const nativePerStep = sent.reduce((n, messages) => n + requestTokens([nativeSystem, ...messages.slice(1)], native.specs), 0) / sent.length;

    console.log(`Prompt tokens per step, seed inbox (9 tasks, ${sent.length} model calls), gpt-tokenizer`);
    console.log(`  ${'seed design: reply JSON Schema in the system prompt'.padEnd(58)} ${Math.round(seed)}`);
    console.log(`  ${'Tidy json protocol (compact tool lines, history 15)'.padEnd(58)} ${Math.round(tidyJson)}`);
    console.log(`  ${'Tidy native protocol (tool schemas sent by the API)'.padEnd(58)} ${Math.round(nativePerStep)}`);
    const ratio = tidyJson / seed;
    console.log(`  ${'Tidy json / seed design'.padEnd(58)} ${ratio.toFixed(2)}×  (target ≤ 0.5×: ${ratio <= 0.5 ? 'met' : 'NOT met'})`);
    console.log(`  ${'system prompt alone: seed / Tidy json'.padEnd(58)} ${encode(seedSystem.content).length} / ${encode(jsonProtocol.prepare(TOOLS).system).length}`);
  } finally {
    await fake.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchAgent(): Promise<void> {
  await benchScale(seedSystemPrompt);
  console.log('');
  await benchThousand();
  console.log('');
  await overhead();
  console.log('');
  await promptTokens();
}
