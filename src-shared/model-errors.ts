/**
 * Why a model call failed, as a code the loop, the trace and the UI can act on without reading the
 * message. The model adapter (src-main/core/llm) raises ModelErrors of these kinds; an agent `error`
 * event carries one (src-shared/events.ts).
 *
 * - `auth`: 401/403, or the API key could not be read.
 * - `no_key`: 401 while no API key was sent (none is set for the profile): set one.
 * - `rate_limit`: 429 that retries did not cure, a retry-after longer than the adapter may wait, or a
 *   quota that waiting cannot fix (`insufficient_quota`).
 * - `server`: 5xx (and 409) after the retries.
 * - `timeout`: no response, or a stream went silent, for longer than the request timeout.
 * - `network`: connection refused/reset/lost, DNS or TLS failure.
 * - `bad_request`: any other 4xx (unknown model, invalid parameter, ...), an invalid base URL, a redirect.
 * - `tools_unsupported`: the server cannot do native tool calling (Ollama "does not support tools",
 *   llama.cpp without --jinja, vLLM without --enable-auto-tool-choice): use the json protocol.
 * - `tool_call_invalid`: the server rejected the tool call the model wrote (Groq `tool_use_failed`). The
 *   model does support tools: feed the message (and `failedGeneration`) back and ask again.
 * - `context_length`: the request is too large for the model or for the account's tokens-per-minute
 *   limit (OpenAI answers a too-large prompt with a 429 "Request too large"): trim the history.
 * - `content_filter`: the provider refused the request (prompt) because of its content policy.
 * - `aborted`: the caller's AbortSignal fired.
 * - `protocol`: the answer was not OpenAI-compatible: garbage, HTML, a stream that broke off or carried
 *   an error object in the middle, or an answer larger than the adapter reads.
 */
import { z } from 'zod';

export const ModelErrorKind = z.enum([
  'auth',
  'no_key',
  'rate_limit',
  'server',
  'timeout',
  'network',
  'bad_request',
  'tools_unsupported',
  'tool_call_invalid',
  'context_length',
  'content_filter',
  'aborted',
  'protocol',
]);
export type ModelErrorKind = z.infer<typeof ModelErrorKind>;
