/**
 * The model port: the one interface the agent loop talks to. The real adapter wraps the `openai` SDK
 * (any OpenAI-compatible endpoint); tests use scripted fakes from test/fakes.
 */
import type { ModelErrorKind } from '../../../src-shared/model-errors';

export interface ToolCall {
  /** The provider's id; providers that send none (or an empty one) get a generated `call_<n>`. */
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them: JSON text, possibly invalid. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `at`: when the user wrote it (ISO 8601); the loop puts the date before the words (agent/context.ts). */
  | { role: 'user'; content: string; at?: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool as the model sees it: name, description and a JSON Schema for the arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens the server had cached (`prompt_tokens_details.cached_tokens`), when it says. */
  cachedTokens?: number;
}

/**
 * Why the turn ended, normalised across providers:
 * - `tool_calls`: the turn has tool calls (also when the server said "stop" or nothing, as Ollama, vLLM,
 *   Gemini and OpenRouter do);
 * - `length`: cut by max tokens; text and tool-call arguments may be incomplete;
 * - `content_filter`: the provider's filter stopped or flagged the answer (OpenAI/Azure finish_reason
 *   `content_filter`, or Azure's asynchronous filter flagging text after it was streamed). The text is what
 *   was received: it must not be treated as an answer;
 * - `unknown`: a finish reason this adapter does not know.
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'unknown';

/** One assistant turn, assembled from a streamed or a plain response. */
export interface ModelTurn {
  text: string;
  /** Set when the model refused (OpenAI's `refusal` field). */
  refusal: string | null;
  /** Reasoning: the `reasoning`/`reasoning_content` field some servers send, or a leading <think> block in the content; never sent back. */
  reasoning: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage | null;
}

export interface ModelRequest {
  messages: ChatMessage[];
  /**
   * Names the stable prefix (system prompt and tools) of the requests of one configuration, for servers
   * that route by it to their prompt cache (OpenAI's `prompt_cache_key`; sent only to OpenAI).
   */
  cacheKey?: string;
  /** Native tool calling; omitted for the json protocol. */
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  stream: boolean;
  signal?: AbortSignal;
}

/** Streamed pieces, for a live trace. The final ModelTurn is authoritative. */
export type ModelDelta = { kind: 'text' | 'reasoning' | 'refusal'; text: string };

export interface Model {
  /** Model name, for the trace and for remembering per-model protocol choices. */
  readonly name: string;
  complete(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelTurn>;
}

/** The kinds, with what each means: src-shared/model-errors.ts. */
export type { ModelErrorKind };

/** Optional facts about a failure, for the loop and the UI. */
export interface ModelErrorDetails {
  /** How long the provider asked us to wait (retry-after), when it said so. */
  retryAfterMs?: number;
  /** The parameter the provider blamed (`error.param`). */
  param?: string;
  /** The raw tool call the provider rejected (Groq's `failed_generation`), for `tool_call_invalid`. */
  failedGeneration?: string;
}

/**
 * Every failure of a model call, with a one-line message in the provider's own words where it gave
 * some (e.g. "401 invalid_api_key: Incorrect API key provided"). Never a stack trace for the user.
 */
export class ModelError extends Error {
  override name = 'ModelError';
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly status?: number,
    readonly code?: string,
    readonly details: ModelErrorDetails = {},
  ) {
    super(message);
  }
}
