/**
 * What the model is sent at each step, prepared by one function the loop calls before every request
 * (STYLE: per-step hooks, not special cases in the loop): the user's messages carry their date (so the
 * system prompt never changes and providers' prompt caches hit), and a run that outgrows its context
 * budget has its oldest tool results shortened, in bulk, to a one-line note saying how to get them again.
 */
import type { ChatMessage } from '../llm/port';
import { OBSERVATION } from './protocols';

/** A rough token count: JSON and short words run about 3 characters a token; erring high keeps within a real window. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 3);

/** Shortening goes down to this share of the budget at once, so it happens rarely and the prefix stays stable in between. */
const AFTER_COMPACTION = 0.6;

/** A note is never longer than the result it replaces; results shorter than this are left alone. */
const MIN_SHORTENED = 200;

/**
 * The zone this process runs in. Resolving it builds a formatter (a fraction of a millisecond, and the loop
 * dates every user message at every step), so it is kept while TZ, the one way a Node process's zone changes,
 * stays the same.
 */
let processZone: { tz: string | undefined; zone: string } | undefined;
function localZone(): string {
  const tz = process.env['TZ'];
  if (!processZone || processZone.tz !== tz) processZone = { tz, zone: Intl.DateTimeFormat().resolvedOptions().timeZone };
  return processZone.zone;
}

/** One formatter per zone (building one costs far more than formatting with it); a handful of zones at most. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, weekday: 'long', year: 'numeric', month: '2-digit', day: '2-digit' });
    if (formatters.size >= 16) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Lines already made, by zone and time: the loop dates the same user messages at every step, and formatting
 * one costs about a tenth of a millisecond. Bounded, as a long-lived host dates ever new messages.
 */
const lines = new Map<string, string>();

/** "Monday 2026-11-23, time zone Europe/Berlin", in the zone this process runs in. */
export function dateLine(at: string, timeZone = localZone()): string {
  const key = `${timeZone}\n${at}`;
  const known = lines.get(key);
  if (known !== undefined) return known;
  const d = new Date(at);
  let line = '';
  if (!Number.isNaN(d.getTime())) {
    const parts = formatterFor(timeZone).formatToParts(d);
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
    line = `[${get('weekday')} ${get('year')}-${get('month')}-${get('day')}, time zone ${timeZone}]`;
  }
  if (lines.size >= 256) lines.clear();
  lines.set(key, line);
  return line;
}

/** The user's own messages with their date line in front; observations and other messages as they are. */
export function dated(messages: readonly ChatMessage[], isObservation: (m: ChatMessage) => boolean): ChatMessage[] {
  return messages.map((m) => (m.role === 'user' && m.at && !isObservation(m) ? { role: 'user', content: `${dateLine(m.at)}\n${m.content}` } : m));
}

const sizeOf = (m: ChatMessage): number =>
  estimateTokens(m.content ?? '') + (m.role === 'assistant' && m.toolCalls ? estimateTokens(JSON.stringify(m.toolCalls)) : 0) + 4;

/** The tool a result answers, from the assistant message that called it. */
function toolOf(transcript: readonly ChatMessage[], i: number): string | null {
  const m = transcript[i]!;
  if (m.role !== 'tool') return null;
  for (let j = i - 1; j >= 0; j--) {
    const a = transcript[j]!;
    if (a.role === 'assistant' && a.toolCalls) {
      const call = a.toolCalls.find((c) => c.id === m.toolCallId);
      if (call) return call.name;
    }
  }
  return null;
}

interface Compaction {
  /** Results shortened in this pass. */
  shortened: number;
  /** Estimated tokens of the messages after it. */
  tokens: number;
}

/**
 * Fits the messages from `from` on into `budget` tokens (the system prompt and tool list already taken
 * off) by replacing the oldest tool results and observations with a short note, oldest first, down to
 * AFTER_COMPACTION of the budget. The results of the latest step are never shortened, and a result keeps
 * its place (so an assistant tool call is never left without its answer). Replaces entries of `transcript`
 * (never mutates a message: the stored conversation keeps the full results).
 */
export function compactToBudget(
  transcript: ChatMessage[],
  from: number,
  budget: number,
  isObservation: (m: ChatMessage) => boolean,
): Compaction {
  let tokens = 0;
  for (let i = from; i < transcript.length; i++) tokens += sizeOf(transcript[i]!);
  if (tokens <= budget) return { shortened: 0, tokens };
  // The latest step: from the last assistant message on.
  let lastStep = transcript.length;
  for (let i = transcript.length - 1; i >= from; i--) {
    if (transcript[i]!.role === 'assistant') {
      lastStep = i;
      break;
    }
  }
  const target = budget * AFTER_COMPACTION;
  let shortened = 0;
  for (let i = from; i < lastStep && tokens > target; i++) {
    const m = transcript[i]!;
    if (m.role === 'assistant' || m.role === 'system' || (m.role === 'user' && !isObservation(m))) continue;
    if (m.content.length < MIN_SHORTENED || m.content.includes('"shortened":true')) continue;
    const tool = toolOf(transcript, i);
    const note = JSON.stringify({
      shortened: true,
      note: `an earlier result${tool ? ` of ${tool}` : ''} (${m.content.length.toLocaleString('en')} characters) was shortened to save context; ${tool ? `call ${tool} again` : 'repeat the call'} if you need it`,
    });
    const replaced: ChatMessage = m.role === 'tool' ? { ...m, content: note } : { role: 'user', content: `${OBSERVATION}${note}` };
    tokens += sizeOf(replaced) - sizeOf(m);
    transcript[i] = replaced;
    shortened++;
  }
  return { shortened, tokens };
}
