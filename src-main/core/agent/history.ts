import type { ChatMessage } from '../llm/port';

/**
 * What the model is sent of a conversation: at most `max` messages, always including the current request.
 *
 * A window never starts inside a step: not at a tool result (its assistant tool_calls message would be cut
 * off, which providers reject) nor at an observation the loop wrote (`isObservation`). The request is
 * pinned because a long run would otherwise push the user's own words out of view and the model would
 * forget what it was asked. A last step bigger than the whole window is still sent whole. Results whose
 * assistant message is not in `messages` at all (a conversation loaded from its tail) are skipped too.
 */
export function historyWindow(
  messages: readonly ChatMessage[],
  requestIndex: number,
  max: number,
  isObservation: (m: ChatMessage) => boolean,
): ChatMessage[] {
  const startsStep = (m: ChatMessage) => m.role !== 'tool' && !isObservation(m);
  const firstStepFrom = (i: number): number => {
    let j = i;
    while (j < messages.length && !startsStep(messages[j]!)) j++;
    if (j < messages.length) return j;
    for (j = messages.length - 1; j > 0 && !startsStep(messages[j]!); j--);
    return j;
  };
  let start = firstStepFrom(Math.max(0, messages.length - max));
  if (start <= requestIndex) return messages.slice(start);
  start = firstStepFrom(Math.max(start, messages.length - max + 1));
  return start <= requestIndex ? messages.slice(start) : [messages[requestIndex]!, ...messages.slice(start)];
}
