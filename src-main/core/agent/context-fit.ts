/**
 * "Test and use" and `tidy config test` on a local server: whether Tidy's prompt (system prompt and tools)
 * fits the model's context window, with room for the answer and some conversation, and the context budget
 * (setting contextTokens) fitted to the window, so a 4k-context model is told about instead of silently
 * cutting every request.
 */
import type { ConnectionReport, PresetId } from '../../../src-shared/providers';
import { SETTINGS } from '../../../src-shared/settings';
import { readSettings, writeSetting } from '../settings';
import type { Db } from '../store/db';
import { offeredTools, type Tool } from '../tools/tool';
import { TOOLS } from '../tools';
import { promptTokens } from './loop';

/** Room a request needs beyond the prompt and the answer: the user's words and a few results. */
export const MIN_CONVERSATION_TOKENS = 1_500;

/** What to do about a small window, per kind of server. */
const BIGGER: Partial<Record<PresetId, string>> = {
  ollama: 'give it a bigger num_ctx (e.g. OLLAMA_CONTEXT_LENGTH=16384 ollama serve, or PARAMETER num_ctx 16384 in a Modelfile) or pick a model with a longer context',
  lmstudio: 'load it with a longer context length (in LM Studio, or lms load MODEL --context-length 16384) or pick another model',
  llamacpp: 'start llama-server with a bigger context (-c 16384) or pick another model',
};

/** How to tell Tidy the window when the server does not say it, per kind of server. */
const SAY: Partial<Record<PresetId, string>> = {
  ollama: 'set num_ctx or OLLAMA_CONTEXT_LENGTH (e.g. OLLAMA_CONTEXT_LENGTH=16384 ollama serve)',
  lmstudio: 'load the model in LM Studio with a context length of 16384 or more',
  llamacpp: 'start llama-server with -c 16384',
};

const n = (x: number) => x.toLocaleString('en');

/**
 * The report with its context window checked against Tidy's prompt; with `fit`, the context budget is set
 * to what the window holds (lowered when it is over; back up to the default at most when there is room).
 */
export function fitContextToModel(db: Db, report: ConnectionReport, preset: PresetId, o: { fit: boolean; tools?: readonly Tool[] } = { fit: true }): ConnectionReport {
  const ctx = report.context;
  if (!report.ok || !ctx) return report;
  const settings = readSettings(db);
  if (ctx.tokens === null) {
    // Unknown is said as unknown, with what Tidy goes by instead: never a guessed "too small".
    const why = ctx.source.replace(/^could not read the context window:\s*/, '');
    const assumed = `Tidy assumes ${n(settings.contextTokens)} tokens (its context budget)`;
    return { ...report, context: { ...ctx, budget: null, tooSmall: false, note: `could not read the context window (${why}); ${assumed} — ${SAY[preset] ?? 'use a model with a longer context'}` } };
  }
  const prompt = promptTokens(offeredTools(o.tools ?? TOOLS, settings));
  const room = ctx.tokens - settings.maxTokens;
  const tooSmall = room < prompt + MIN_CONVERSATION_TOKENS;
  const min = SETTINGS.contextTokens.schema;
  let budget: number | null = null;
  if (o.fit && !tooSmall) {
    const wanted = Math.max(2_000, Math.min(room, Math.max(settings.contextTokens, SETTINGS.contextTokens.default)));
    if (wanted !== settings.contextTokens && min.safeParse(wanted).success && writeSetting(db, 'contextTokens', wanted).ok) budget = wanted;
    else budget = settings.contextTokens;
  }
  const window = `context window ${n(ctx.tokens)} tokens (${ctx.source})`;
  const note = tooSmall
    ? `${window}: too small for Tidy's prompt of about ${n(prompt)} tokens (instructions and tools) plus ${n(settings.maxTokens)} for the answer — requests would be cut off; ${BIGGER[preset] ?? 'use a model with a longer context'}`
    : `${window}; Tidy's prompt takes about ${n(prompt)}${budget !== null ? `, context budget ${n(budget)} tokens` : ''}`;
  const warning = tooSmall ? [report.warning, note].filter(Boolean).join('; ') : report.warning;
  return { ...report, warning, context: { ...ctx, promptTokens: prompt, budget, tooSmall, note } };
}
