/** Building the chat-completions request body from a ModelRequest, shaped by what the server accepts (quirks.ts). */
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ModelRequest } from './port';
import type { Quirks } from './quirks';

function toWire(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((tc) => ({
                id: tc.id,
                type: 'function' as const,
                function: { name: tc.name, arguments: tc.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Whether this attempt streams: asked for, unless the server cannot stream together with tools. */
export function streams(request: ModelRequest, quirks: Quirks): boolean {
  return request.stream && (quirks.streamWithTools || !request.tools?.length);
}

/** Whether the endpoint is OpenAI's own API, which takes `prompt_cache_key`. */
export const isOpenAI = (baseUrl: string): boolean => {
  try {
    return new URL(baseUrl).hostname.toLowerCase() === 'api.openai.com';
  } catch {
    return false;
  }
};

export function buildBody(model: string, request: ModelRequest, stream: boolean, quirks: Quirks, baseUrl = ''): ChatCompletionCreateParams {
  const tools: ChatCompletionTool[] | undefined = request.tools?.length
    ? request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }))
    : undefined;
  const body: ChatCompletionCreateParams = {
    model,
    messages: request.messages.map(toWire),
    stream,
  };
  if (stream && quirks.streamOptions) body.stream_options = { include_usage: true };
  if (tools) body.tools = tools;
  if (request.temperature !== undefined && quirks.temperature) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body[quirks.maxTokensParam] = request.maxTokens;
  if (request.cacheKey && isOpenAI(baseUrl)) body.prompt_cache_key = request.cacheKey;
  return body;
}
