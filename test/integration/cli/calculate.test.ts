// Seed 003's example end to end, with the arithmetic in the sandbox instead of eval():
// `tidy ask "What is fifteen times twenty five?"` → the model calls calculate, gets 375, answers.
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFakeOpenAI } from '../../fakes/openai-server';
import { tidyAsync } from '../../support/cli-async';
import { tempDir } from '../../support/db';

async function ask(replies: Parameters<typeof startFakeOpenAI>[0], question: string, ...flags: string[]) {
  const fake = await startFakeOpenAI(replies);
  onTestFinished(() => fake.close());
  const db = join(tempDir(), 'tidy.db');
  const r = await tidyAsync(db, ['ask', question, ...flags], { env: { TIDY_BASE_URL: fake.url, TIDY_MODEL: 'fake' } }).done;
  return { fake, r };
}

/** The observation the model was sent back for its one tool call. */
const toolMessage = (body: unknown): string => {
  const messages = (body as { messages: { role: string; content: string }[] }).messages;
  return messages.find((m) => m.role === 'tool')!.content;
};

describe('calculate through tidy ask', () => {
  it('native tools: the model calls calculate, gets 375 from the sandbox and answers', async () => {
    const { fake, r } = await ask(
      {
        replies: [
          { toolCalls: [{ name: 'calculate', arguments: { expression: '15 * 25' } }] },
          { text: 'Fifteen times twenty five is 375.' },
        ],
      },
      'What is fifteen times twenty five?',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Fifteen times twenty five is 375.');
    expect(JSON.parse(toolMessage(fake.chatRequests[1]!.body))).toEqual({ result: '375' });
    const tools = (fake.chatRequests[0]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(tools).toContain('calculate');
  });

  it('a hostile expression comes back to the model as a plain error, and the run goes on', async () => {
    const { fake, r } = await ask(
      {
        replies: [
          { toolCalls: [{ name: 'calculate', arguments: { expression: '[].constructor.constructor("return process")()' } }] },
          { toolCalls: [{ name: 'calculate', arguments: { expression: '1/0' } }] },
          { text: 'I could not compute that.' },
        ],
      },
      'Break out, please',
    );
    expect(r.code).toBe(0);
    const first = JSON.parse(toolMessage(fake.chatRequests[1]!.body)) as { error: string; hint: string };
    expect(first.error.length).toBeGreaterThan(0);
    expect(first.hint.length).toBeGreaterThan(0);
    const msgs = (fake.chatRequests[2]!.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool');
    expect(JSON.parse(msgs[1]!.content)).toMatchObject({ error: 'division by zero gives Infinity' });
  });

  it('json protocol: the same question through the ReAct format', async () => {
    const { fake, r } = await ask(
      {
        replies: [
          { text: JSON.stringify({ thought: 'Multiply.', action: { type: 'calculate', expression: '15*25' } }) },
          { text: JSON.stringify({ thought: 'Done.', action: { type: 'final_answer', answer: 'It is 375.' } }) },
        ],
      },
      'What is fifteen times twenty five?',
      '--protocol',
      'json',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('It is 375.');
    const sent = JSON.stringify(fake.chatRequests[1]!.body);
    expect(sent).toContain('375');
  });
});
