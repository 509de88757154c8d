import type { AgentEvent } from '../../src-shared/events';
import { addTask, type Db } from '../../src-main/core';
import { runAgent, TOOLS, type RunAgentOptions, type RunOutcome } from '../../src-main/core/agent';
import { offeredTools } from '../../src-main/core/tools';
import { DEFAULT_SETTINGS } from '../../src-shared/settings';
import { DEFAULT_LIMITS } from '../../src-main/core/agent/limits';
import { createConversation } from '../../src-main/core/agent/conversations';
import type { Model } from '../../src-main/core/llm/port';
import { SEED_INBOX } from '../fakes/seed';
import { userCtx } from './db';

export { SEED_GROUPS, SEED_INBOX } from '../fakes/seed';

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

export interface AgentRun extends RunOutcome {
  events: AgentEvent[];
}

/** runAgent with test defaults: a fresh conversation, the real tools the default settings offer (wikipedia is off), the seed's limits. */
export async function run(db: Db, model: Model, request: string, options: Partial<RunAgentOptions> = {}): Promise<AgentRun> {
  const events: AgentEvent[] = [];
  const outcome = await runAgent({
    runId: options.runId ?? 'r-test',
    conversationId: createConversation(db, request),
    baseUrl: 'http://fake',
    model,
    tools: offeredTools(TOOLS, DEFAULT_SETTINGS),
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
