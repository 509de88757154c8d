/**
 * What the chat says when a run did not end with an answer, or a message could not be sent: a title
 * in plain words, the provider's own message, and what to do, with the buttons that do it.
 */
import type { RunState } from './runs';
import type { Problem } from './problem';
import type { StopReason } from '../../src-shared/events';

type Remedy = 'settings' | 'retry' | 'continue';

export interface Advice {
  tone: 'error' | 'warn' | 'info';
  title: string;
  detail: string | null;
  todo: string;
  remedies: Remedy[];
}


/** Advice for a run that ended without an answer; null for one that answered (or goes on). */
export function runAdvice(run: RunState): Advice | null {
  const detail = run.message;
  switch (run.status) {
    case 'running':
    case 'done':
      return null;
    case 'cancelled':
      return { tone: 'info', title: 'Stopped', detail: null, todo: 'You stopped this request. Changes made before the stop stay; undo them in Actions if you like.', remedies: ['retry'] };
    case 'limit':
      return { tone: 'warn', detail, ...LIMIT_ADVICE[run.stopReason ?? 'actions'], remedies: ['continue', 'settings'] };
    case 'error':
      return errorAdvice(run.errorKind, detail ?? 'the request failed');
  }
}

const LIMIT_ADVICE: Record<StopReason, { title: string; todo: string }> = {
  actions: { title: 'Action limit reached', todo: 'Tidy stopped before finishing. Raise "Max actions" in Settings, or ask Tidy to continue where it stopped.' },
  time: { title: 'Time limit reached', todo: 'The request took longer than the time limit. Raise "Time limit" in Settings, or ask Tidy to continue.' },
  loop: {
    title: 'Stopped a loop',
    todo: 'Tidy made the same call three times in a row without getting further. Say more precisely what you want, or ask Tidy to continue another way.',
  },
};

function errorAdvice(kind: string | null, detail: string): Advice {
  if (kind === 'auth' || kind === 'no_key' || kind === 'keychain_unavailable') {
    return {
      tone: 'error',
      title: kind === 'auth' ? 'The API key was refused' : kind === 'no_key' ? 'No API key set' : 'The keychain is not available',
      detail,
      todo: 'Set a valid key for this provider in Settings (it is kept in your OS keychain), or switch to a local model that needs none.',
      remedies: ['settings', 'retry'],
    };
  }
  if (kind === 'network' || kind === 'timeout') {
    return {
      tone: 'error',
      title: "Can't reach the model endpoint",
      detail,
      todo: 'Is the server running (e.g. `ollama serve`) and the address right? Check the provider in Settings and use "Test connection".',
      remedies: ['retry', 'settings'],
    };
  }
  if (kind === 'rate_limit') {
    return { tone: 'warn', title: 'The provider is rate limiting', detail, todo: 'Wait a moment and try again, or switch to another model in Settings.', remedies: ['retry', 'settings'] };
  }
  if (kind === 'context_length') {
    return { tone: 'error', title: 'The conversation is too long for this model', detail, todo: 'Lower "History length" in Settings or start a new conversation.', remedies: ['settings'] };
  }
  if (kind === 'server') {
    return { tone: 'error', title: 'The model endpoint failed', detail, todo: 'The provider had an error; try again in a moment.', remedies: ['retry'] };
  }
  return { tone: 'error', title: 'The request failed', detail, todo: 'Try again; if it keeps failing, check the provider in Settings.', remedies: ['retry', 'settings'] };
}

/** Advice for a message that could not be sent at all. */
export function sendAdvice(p: Problem): Advice {
  if (p.code === 'disconnected') {
    return { tone: 'error', title: 'Tidy is not connected', detail: p.message, todo: p.hint, remedies: ['retry'] };
  }
  if (p.reason === 'no_key' || p.reason === 'keychain_unavailable') return { ...errorAdvice(p.reason, p.message), todo: p.hint || errorAdvice(p.reason, p.message).todo };
  return { tone: 'error', title: 'Could not send', detail: p.message, todo: p.hint, remedies: ['retry', 'settings'] };
}
