import type { ChatMessage } from '../llm/port';

/**
 * What the model is sent of a conversation: the current request and every step of its run, always, and
 * before it at most `max` messages of earlier turns. (Trimming the run itself made the model forget the
 * inbox it had listed and the errors it had already got, and repeat itself.) A run that outgrows the
 * context budget has its oldest tool results shortened instead (agent/context.ts).
 *
 * The earlier part never starts inside a step: not at a tool result (its assistant tool_calls message would
 * be cut off, which providers reject) nor at an observation the loop wrote (`isObservation`).
 */
export function historyWindow(
  messages: readonly ChatMessage[],
  requestIndex: number,
  max: number,
  isObservation: (m: ChatMessage) => boolean,
): ChatMessage[] {
  const startsStep = (m: ChatMessage) => m.role !== 'tool' && !isObservation(m);
  let start = Math.max(0, requestIndex - max);
  while (start < requestIndex && !startsStep(messages[start]!)) start++;
  return messages.slice(start);
}
