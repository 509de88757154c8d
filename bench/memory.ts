// `npm run bench memory`: the prompt prefix (system prompt with the memory block, and the tool list) across
// requests: byte-identical while memory is unchanged, and one cache miss per memory change, not one per request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addMemory, newUserRequest, openDatabase, updateMemory, type Db } from '../src-main/core';
import { createLiveRuns, startRun, TOOLS } from '../src-main/core/agent';
import type { Model, ModelRequest, ModelTurn } from '../src-main/core/llm/port';

/** A model that answers at once and keeps the prefix of every request it was sent. */
function recordingModel(prefixes: string[]): Model {
  return {
    name: 'bench',
    complete: (request: ModelRequest): Promise<ModelTurn> => {
      prefixes.push(`${String(request.messages[0]?.content ?? '')}\n${JSON.stringify(request.tools ?? [])}`);
      return Promise.resolve({ text: 'ok', refusal: null, reasoning: '', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } });
    },
  };
}

export async function benchMemory(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-memory-'));
  const db: Db = openDatabase(join(dir, 'memory.db'));
  try {
    for (const text of ['groceries always go to Errands', "I don't take meetings before 10", 'the dentist is on Fridays']) addMemory(db, newUserRequest(db), { text });
    const prefixes: string[] = [];
    const deps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => recordingModel(prefixes), mcp: () => Promise.resolve({ tools: [], problems: [], close: async () => {} }) };
    const ask = async (message: string, conversationId?: string): Promise<string> => {
      const r = startRun(deps, { message, stream: false, ...(conversationId ? { conversationId } : {}) }, () => {});
      if (!r.ok) throw new Error(r.error);
      return (await r.value.finished).conversationId;
    };
    const requests = ['add milk', 'add bread', 'what is on today?', 'add eggs', 'plan my week', 'add butter'];
    const c = await ask(requests[0]!);
    for (const m of requests.slice(1)) await ask(m, c); // one conversation
    for (const m of requests) await ask(m); // each a new conversation
    const before = prefixes.length;
    updateMemory(db, newUserRequest(db), { memory: 'y1', text: 'groceries always go to Shopping' });
    for (const m of requests) await ask(m, c);
    const misses = (from: number, to: number) => prefixes.slice(from, to).filter((p, i) => i > 0 && p !== prefixes[from + i - 1]).length;
    const unchanged = before - 1;
    const identical = unchanged - misses(0, before);
    const afterChange = misses(before - 1, prefixes.length);
    console.log(`Prompt prefix with memory (3 memories, ${requests.length * 3} requests, in one conversation and in new ones; system prompt + memory block + tools)`);
    console.log(`  memory unchanged: ${identical} of ${unchanged} requests sent the previous request's prefix byte for byte (${((identical / unchanged) * 100).toFixed(1)}%, target 100%: ${identical === unchanged ? 'met' : 'NOT met'})`);
    console.log(`  one memory edited, then ${requests.length} requests: ${afterChange} cache miss${afterChange === 1 ? '' : 'es'} (target 1: ${afterChange === 1 ? 'met' : 'NOT met'})`);
    console.log(`  prefix size: ${prefixes[0]!.length.toLocaleString('en')} characters before the change, ${prefixes.at(-1)!.length.toLocaleString('en')} after`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
