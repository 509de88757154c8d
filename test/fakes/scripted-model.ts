/**
 * An in-process scripted Model (the port of src-main/core/llm/port.ts): replies from a script, one entry per
 * call, and records every request it was sent so tests assert on what the loop asked, not only on what it did.
 */
import { ModelError, type Model, type ModelDelta, type ModelRequest, type ModelTurn, type ToolCall } from '../../src-main/core/llm/port';

/** A reply: a (partial) turn, an error to throw, or a function of the request (to hang, to look at it). */
export type ScriptStep = Partial<ModelTurn> | ModelError | ((request: ModelRequest, n: number) => Partial<ModelTurn> | Promise<Partial<ModelTurn>>);

/** What the model was sent, without the signal. */
export type RecordedModelRequest = Omit<ModelRequest, 'signal'>;

export class ScriptedModel implements Model {
  readonly requests: RecordedModelRequest[] = [];
  /** When the script runs out: repeat the last step (a model that never stops) or fail the test. */
  constructor(
    private readonly script: ScriptStep[],
    readonly name = 'scripted',
    private readonly whenDone: 'repeat' | 'fail' = 'fail',
  ) {}

  async complete(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelTurn> {
    const { signal, ...rest } = request;
    this.requests.push(structuredClone(rest));
    const n = this.requests.length - 1;
    const step = this.script[n] ?? (this.whenDone === 'repeat' ? this.script[this.script.length - 1] : undefined);
    if (step === undefined) throw new Error(`the script has no reply for call ${n + 1}`);
    if (signal?.aborted) throw new ModelError('the request was cancelled', 'aborted');
    if (step instanceof ModelError) throw step;
    const partial = typeof step === 'function' ? await step(request, n) : step;
    const turn: ModelTurn = { text: '', refusal: null, reasoning: '', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, ...partial };
    if (request.stream && onDelta && turn.text) for (const piece of turn.text.match(/.{1,4}/gs) ?? []) onDelta({ kind: 'text', text: piece });
    return turn;
  }
}

let ids = 0;
/** A native tool call. */
export const call = (name: string, args: unknown = {}, id = `call_${++ids}`): ToolCall => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** A native turn calling these tools (in order). */
export const calls = (...toolCalls: ToolCall[]): Partial<ModelTurn> => ({ toolCalls, finishReason: 'tool_calls' });

/** A text answer (native), or any raw text (json protocol replies). */
export const say = (text: string): Partial<ModelTurn> => ({ text });

/** A json-protocol reply. */
export const act = (type: string, args: Record<string, unknown> = {}, thought = `next: ${type}`): Partial<ModelTurn> => ({
  text: JSON.stringify({ thought, action: { type, ...args } }),
});
export const finalAnswer = (answer: string, thought = 'done'): Partial<ModelTurn> => act('final_answer', { answer }, thought);

/** A reply that never comes: waits until the request's signal aborts. */
export const hang: ScriptStep = (request) =>
  new Promise((_, reject) => {
    const abort = () => reject(new ModelError('the request was cancelled', 'aborted'));
    if (request.signal?.aborted) abort();
    request.signal?.addEventListener('abort', abort, { once: true });
  });
