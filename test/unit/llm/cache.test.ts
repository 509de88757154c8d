import { describe, expect, it } from 'vitest';
import { mapUsage } from '../../../src-main/core/llm/assemble';
import { DEFAULT_QUIRKS } from '../../../src-main/core/llm/quirks';
import { buildBody, isOpenAI } from '../../../src-main/core/llm/request';

describe('prompt caching', () => {
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], stream: false, cacheKey: 'tidy-abc' };

  it('sends prompt_cache_key to OpenAI only', () => {
    expect(isOpenAI('https://api.openai.com/v1')).toBe(true);
    expect(isOpenAI('https://API.OpenAI.com/v1')).toBe(true);
    expect(isOpenAI('https://api.openai.com.evil.example/v1')).toBe(false);
    expect(isOpenAI('http://localhost:11434/v1')).toBe(false);
    expect(buildBody('gpt-4o-mini', request, false, DEFAULT_QUIRKS, 'https://api.openai.com/v1')).toMatchObject({ prompt_cache_key: 'tidy-abc' });
    expect(buildBody('llama3', request, false, DEFAULT_QUIRKS, 'http://localhost:11434/v1')).not.toHaveProperty('prompt_cache_key');
  });

  it('records the cached prompt tokens a provider reports, bounded by the prompt tokens', () => {
    expect(mapUsage({ prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: { cached_tokens: 1920 } })).toEqual({
      promptTokens: 2006,
      completionTokens: 300,
      totalTokens: 2306,
      cachedTokens: 1920,
    });
    expect(mapUsage({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 99 } })?.cachedTokens).toBe(10);
    expect(mapUsage({ prompt_tokens: 10, completion_tokens: 1 })).not.toHaveProperty('cachedTokens');
    expect(mapUsage({ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: -5 } })?.cachedTokens).toBe(0);
  });
});
