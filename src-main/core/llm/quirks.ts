/**
 * What a server turned out not to accept, learnt from one failed request each, and how to change the
 * request so it does:
 * - `max_tokens`: OpenAI's reasoning models want `max_completion_tokens`;
 * - a custom `temperature`: the same models allow only the default;
 * - `stream_options`: older servers reject the field;
 * - streaming together with tools: old llama.cpp (conformance case 18) answers 500 "Cannot use tools
 *   with stream"; the turn is then fetched without streaming and replayed to the caller in one piece.
 *
 * A QuirkMemory keeps them per endpoint and model across runs (SQLite: quirk-store.ts), so only the
 * first run against a server pays the failing request.
 */
import { z } from 'zod';
import { isStreamWithToolsUnsupported } from './errors';
import type { ModelError, ModelRequest } from './port';

export const Quirks = z.object({
  maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']),
  temperature: z.boolean(),
  streamOptions: z.boolean(),
  streamWithTools: z.boolean(),
});
export type Quirks = z.infer<typeof Quirks>;

/** What every OpenAI-compatible server is first assumed to accept. */
export const DEFAULT_QUIRKS: Readonly<Quirks> = Object.freeze({
  maxTokensParam: 'max_tokens',
  temperature: true,
  streamOptions: true,
  streamWithTools: true,
});

/** The quirks of one endpoint and model, kept between runs. Both calls are best effort: they never throw. */
export interface QuirkMemory {
  /** What was learnt earlier (only the fields that differ from the defaults need be there). */
  load(): Partial<Quirks> | undefined;
  /** Called each time a quirk is learnt, with all of them. */
  save(quirks: Quirks): void;
}

/**
 * Two records of the same server merged: a quirk learnt by either stays learnt (a quirk is only ever
 * learnt from a refusal, so the fallback is the safe side).
 */
export function mergeQuirks(a: Partial<Quirks>, b: Partial<Quirks>): Quirks {
  return {
    maxTokensParam: a.maxTokensParam === 'max_completion_tokens' || b.maxTokensParam === 'max_completion_tokens' ? 'max_completion_tokens' : 'max_tokens',
    temperature: a.temperature !== false && b.temperature !== false,
    streamOptions: a.streamOptions !== false && b.streamOptions !== false,
    streamWithTools: a.streamWithTools !== false && b.streamWithTools !== false,
  };
}

/**
 * The one change to the request that should make this server accept it, given how it refused; undefined
 * when the refusal is not about a known quirk (or that quirk is already applied, so this cannot loop).
 */
export function adaptation(quirks: Quirks, error: ModelError, request: ModelRequest, stream: boolean): Partial<Quirks> | undefined {
  const msg = error.message;
  const param = error.details.param;
  if (isStreamWithToolsUnsupported(error) && stream && quirks.streamWithTools) return { streamWithTools: false };
  if (error.kind !== 'bad_request') return undefined;
  if (
    request.maxTokens !== undefined &&
    quirks.maxTokensParam === 'max_tokens' &&
    (param === 'max_tokens' || (/\bmax_tokens\b/.test(msg) && /max_completion_tokens/.test(msg)))
  ) {
    return { maxTokensParam: 'max_completion_tokens' };
  }
  if (
    request.temperature !== undefined &&
    quirks.temperature &&
    (param === 'temperature' || (/temperature/i.test(msg) && /unsupported|not support|only the default/i.test(msg)))
  ) {
    return { temperature: false };
  }
  if (stream && quirks.streamOptions && (param === 'stream_options' || /stream_options/.test(msg))) {
    return { streamOptions: false };
  }
  return undefined;
}
