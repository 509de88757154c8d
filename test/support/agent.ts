import type { AgentEvent } from '../../src-shared/events';
import { addTask, type Db } from '../../src-main/core';
import { runAgent, TOOLS, type RunAgentOptions, type RunOutcome } from '../../src-main/core/agent';
import { DEFAULT_LIMITS } from '../../src-main/core/agent/limits';
import { createConversation } from '../../src-main/core/agent/store';
import type { Model } from '../../src-main/core/llm/port';
import { userCtx } from './db';

/** The nine tasks of the seed talk's inbox (001), in the order they were captured. */
export const SEED_INBOX = [
  'Finish presentation for PyData Amsterdam',
  "Don't forget laptop with presentation",
  'Make demo video for Pydata Amsterdam',
  'Bake the birthday cake',
  'Migrate personal website server from python 3.10 to 3.11',
  'Setup version control for personal website',
  'Buy birthday balloons',
  'Buy milk birthday cake',
  'Buy sugar for the birthday cake',
];

/** Captures the seed inbox; returns the task ids in order. */
export function seedInbox(db: Db): string[] {
  const ctx = userCtx(db);
  return SEED_INBOX.map((content) => {
    const r = addTask(db, ctx, { content });
    if (!r.ok) throw new Error(r.error);
    return r.value.id;
  });
}

/** Which of the seed tasks go to which project, as the seed's agent grouped them. */
export const SEED_GROUPS: Record<string, number[]> = {
  'PyData Amsterdam': [0, 1, 2],
  'Birthday Celebration': [3, 6, 7, 8],
  'Personal Website': [4, 5],
};

export interface AgentRun extends RunOutcome {
  events: AgentEvent[];
}

/** runAgent with test defaults: a fresh conversation, the real tools, the seed's limits. */
export async function run(db: Db, model: Model, request: string, options: Partial<RunAgentOptions> = {}): Promise<AgentRun> {
  const events: AgentEvent[] = [];
  const outcome = await runAgent({
    runId: options.runId ?? 'r-test',
    conversationId: createConversation(db, request),
    baseUrl: 'http://fake',
    model,
    tools: TOOLS,
    protocol: 'native',
    messages: [{ role: 'user', content: request }],
    limits: DEFAULT_LIMITS,
    db,
    ...options,
    onEvent: (e) => {
      events.push(e);
      options.onEvent?.(e);
    },
  });
  return { ...outcome, events };
}

export const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T): Extract<AgentEvent, { type: T }>[] =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
