/** Small builders of contract values for the store tests. */
import type { ActionVerb, ActionWhat, ReversedAction } from '../../../src-shared/actions';
import type { ActionEntry, Task } from '../../../src-shared/domain';
import type { AgentEvent, StopReason } from '../../../src-shared/events';
import type { ActionGroup } from '../../../src-shared/ipc';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
export const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

export function task(id: string, content: string, project = 'Inbox'): Task {
  return { id, content, projectId: project.toLowerCase(), project, priority: 4, due: null, recurrence: null, status: 'open', completedAt: null, createdAt: at(0), updatedAt: at(0) };
}

/** What an action did: by default, moved one task. */
export function what(verb: ActionVerb = 'moved', more: Partial<ActionWhat> = {}): ActionWhat {
  return { verb, kind: 'task', id: null, name: null, count: 1, reverses: null, ...more };
}

export function entry(id: string, requestId: string, summary: string, more: Partial<ActionEntry> = {}): ActionEntry {
  return { id, requestId, source: requestId.startsWith('r') ? 'agent' : 'user', tool: 'move_task', args: {}, summary, what: what(), createdAt: at(1), undoneAt: null, undoes: null, ...more };
}

/**
 * An action an undo report lists as reversed: a change (`moved`), an undo (`undid`: reversing it redoes)
 * or a redo (`redid`), about the change `subject`.
 */
export function reversed(id: string, subject: string, verb: 'moved' | 'completed' | 'created' | 'undid' | 'redid' = 'moved'): ReversedAction {
  const summary = verb === 'undid' || verb === 'redid' ? `${verb === 'undid' ? 'Undid' : 'Redid'}: ${subject}` : subject;
  return { id, summary, what: what(verb), subject };
}

export function group(requestId: string, ...actions: ActionEntry[]): ActionGroup {
  return { requestId, source: requestId.startsWith('r') ? 'agent' : 'user', request: requestId.startsWith('r') ? `request of ${requestId}` : null, actions };
}

type Body = AgentEvent extends infer E ? (E extends AgentEvent ? Omit<E, 'runId' | 'seq' | 'at'> : never) : never;

/** The events of one run, stamped with run id, seq and time in order. */
export function events(runId: string, ...bodies: Body[]): AgentEvent[] {
  return bodies.map((b, seq) => ({ ...b, runId, seq, at: at(seq) }) as AgentEvent);
}

export const started = (conversationId: string, request: string): Body => ({
  type: 'run_started',
  conversationId,
  request,
  model: 'fake-model',
  baseUrl: 'http://127.0.0.1:9/v1',
  protocol: 'native',
});

export const finished = (status: 'done' | 'error' | 'cancelled' | 'limit', actions = 0, message?: string, stopReason?: StopReason): Body => ({
  type: 'run_finished',
  status,
  actions,
  usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
  ...(message ? { message } : {}),
  ...(stopReason ? { stopReason } : {}),
});
