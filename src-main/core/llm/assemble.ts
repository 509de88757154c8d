/**
 * Builds one ModelTurn from what OpenAI-compatible servers really send: streamed chunks or a whole
 * chat.completion. Tolerant of every quirk in the conformance corpus (test/fixtures/conformance): tool-call
 * deltas keyed by `index` (which may start at 1), or with no index at all (Ollama, Gemini), empty ids on
 * continuation chunks (Qwen), id and name repeated on every chunk (OpenRouter/kimi), numeric ids, finish
 * reasons that say "stop" although tools were called, no finish reason, two finish chunks, usage in a
 * chunk with or without choices, reasoning under `reasoning` or `reasoning_content`, refusals, Azure's
 * filter annotations. Pure: no I/O.
 */
import { classifyInBandError, tooLarge } from './errors';
import type { FinishReason, ModelDelta, ModelTurn, ToolCall, Usage } from './port';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a content field: a string, or an array of `{type:"text", text}` parts. */
function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    return value.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

function idText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

function mapFinishReason(value: unknown): FinishReason | null {
  if (value === null || value === undefined || value === '') return null;
  switch (String(value).toLowerCase()) {
    case 'stop':
    case 'eos':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'length':
    case 'max_tokens':
    case 'model_length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'content_filter':
    case 'safety':
      return 'content_filter';
    default:
      return 'unknown';
  }
}

/**
 * The most tokens one call is believed to use. The largest context windows are a few million tokens; a
 * count beyond a billion is a broken server, and capping it keeps a run's sums exact integers.
 */
export const MAX_CALL_TOKENS = 1_000_000_000;

/**
 * A token count as stored and summed: a whole number from 0 to MAX_CALL_TOKENS. Servers have sent
 * negative, fractional and absurdly large counts, and numeric strings; anything else is 0.
 */
function tokenCount(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : undefined;
  if (n === undefined || Number.isNaN(n)) return undefined;
  return Math.min(MAX_CALL_TOKENS, Math.max(0, Math.round(n)));
}

/** Usage as the trace stores it; missing counts are 0, a missing total is the sum of the others. */
export function mapUsage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const prompt = tokenCount(value.prompt_tokens);
  const completion = tokenCount(value.completion_tokens);
  const total = tokenCount(value.total_tokens);
  if (prompt === undefined && completion === undefined && total === undefined) return null;
  const details = value.prompt_tokens_details;
  const cached = isRecord(details) ? tokenCount(details.cached_tokens) : undefined;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    totalTokens: total ?? Math.min(MAX_CALL_TOKENS, (prompt ?? 0) + (completion ?? 0)),
    ...(cached !== undefined ? { cachedTokens: Math.min(cached, prompt ?? cached) } : {}),
  };
}

/** True when an Azure content-filter result anywhere below says `filtered: true`. */
function flagged(value: unknown, depth = 0): boolean {
  if (depth > 5) return false;
  if (Array.isArray(value)) return value.some((v) => flagged(v, depth + 1));
  if (!isRecord(value)) return false;
  if (value.filtered === true) return true;
  return Object.values(value).some((v) => flagged(v, depth + 1));
}

interface Slot {
  id: string;
  name: string;
  args: string;
  /** `index` the server gave, if any. */
  index: number | undefined;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Reasoning models served without a reasoning parser (DeepSeek-R1 on some routers, Qwen3 or R1 on older
 * Ollama and llama.cpp builds) write their thinking into `content` as a leading <think>…</think> block.
 * It belongs with `reasoning`: as text it would be taken for the answer, and the json protocol would
 * refuse every reply for the text around its JSON. Works on streamed pieces, tags split anywhere.
 */
class ThinkSplitter {
  private state: 'start' | 'inside' | 'gap' | 'after' = 'start';
  private buffer = '';

  push(piece: string): { kind: 'text' | 'reasoning'; text: string }[] {
    this.buffer += piece;
    const out: { kind: 'text' | 'reasoning'; text: string }[] = [];
    for (;;) {
      if (this.state === 'start') {
        const head = this.buffer.trimStart();
        if (head.length < OPEN.length && OPEN.startsWith(head)) return out; // maybe a tag still arriving
        if (head.startsWith(OPEN)) {
          this.state = 'inside';
          this.buffer = head.slice(OPEN.length);
        } else this.state = 'after';
      } else if (this.state === 'inside') {
        const end = this.buffer.indexOf(CLOSE);
        if (end < 0) {
          // Keep what could be the start of a closing tag split across pieces.
          const keep = Math.min(this.buffer.length, CLOSE.length - 1);
          const ready = this.buffer.slice(0, this.buffer.length - keep);
          this.buffer = this.buffer.slice(ready.length);
          if (ready) out.push({ kind: 'reasoning', text: ready });
          return out;
        }
        if (end > 0) out.push({ kind: 'reasoning', text: this.buffer.slice(0, end) });
        this.buffer = this.buffer.slice(end + CLOSE.length);
        this.state = 'gap';
      } else if (this.state === 'gap') {
        // The blank lines between the block and the answer belong to neither.
        this.buffer = this.buffer.trimStart();
        if (!this.buffer) return out;
        this.state = 'after';
      } else {
        if (this.buffer) out.push({ kind: 'text', text: this.buffer });
        this.buffer = '';
        return out;
      }
    }
  }

  /** What is left at the end of the turn: an unfinished think block is reasoning; a lone tag prefix is text. */
  flush(): { kind: 'text' | 'reasoning'; text: string }[] {
    const rest = this.buffer;
    this.buffer = '';
    if (!rest) return [];
    if (this.state === 'gap') return [];
    return [{ kind: this.state === 'inside' ? 'reasoning' : 'text', text: rest }];
  }
}

export class TurnAssembler {
  private readonly think = new ThinkSplitter();
  /** Whether the caller is shown live pieces (so what the think splitter still holds is shown too). */
  private live = false;
  private text = '';
  private refusal = '';
  private sawRefusal = false;
  private reasoning = '';
  private finish: FinishReason | null = null;
  private usage: Usage | null = null;
  private filtered = false;
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  /** Whether any delta went to the caller: then a retry would show the same text twice. */
  emitted = false;
  /** Whether a chunk carried anything at all (content, tool call, finish, usage). */
  sawData = false;
  /** Characters collected so far (text, reasoning, refusal, tool calls), against `maxChars`. */
  private size = 0;

  /**
   * `maxChars` bounds what one turn may collect (a server that streams without end gets a `protocol`
   * error, not the process's memory); `where` names the endpoint in that error.
   */
  constructor(
    private readonly hadTools: boolean,
    private readonly onDelta?: (delta: ModelDelta) => void,
    private readonly maxChars = Infinity,
    private readonly where = 'the server',
  ) {}

  private grow(chars: number): void {
    this.size += chars;
    if (this.size > this.maxChars) {
      throw tooLarge(this.where, 'the answer', this.maxChars);
    }
  }

  get finished(): boolean {
    return this.finish !== null;
  }

  private emit(kind: ModelDelta['kind'], text: string): void {
    if (!text || !this.onDelta) return;
    this.emitted = true;
    this.onDelta({ kind, text });
  }

  /** One parsed stream chunk. Throws a ModelError for an error object in the stream. */
  addChunk(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    if (chunk.error !== undefined && chunk.error !== null) throw classifyInBandError(chunk, this.hadTools, true);
    const usage = mapUsage(chunk.usage);
    if (usage) {
      this.usage = usage;
      this.sawData = true;
    }
    if (Array.isArray(chunk.prompt_filter_results) && flagged(chunk.prompt_filter_results)) this.filtered = true;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!isRecord(choice)) continue;
      // We never ask for n > 1; a server that sends other choices is ignored for them.
      if (choice.index !== undefined && choice.index !== 0 && choice.index !== '0') continue;
      if (choice.finish_reason === 'error') throw classifyInBandError(chunk, this.hadTools, true);
      const delta = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : undefined;
      if (delta) this.addDelta(delta, false, true);
      if (flagged(choice.content_filter_results)) this.filtered = true;
      this.setFinish(choice.finish_reason);
    }
  }

  /** A whole (non-streamed) chat.completion body. `emit` replays it as deltas for a caller who asked to stream. */
  addCompletion(body: Json, emit: boolean): void {
    const usage = mapUsage(body.usage);
    if (usage) this.usage = usage;
    if (Array.isArray(body.prompt_filter_results) && flagged(body.prompt_filter_results)) this.filtered = true;
    const choices = Array.isArray(body.choices) ? body.choices : [];
    const choice = choices.find((c) => isRecord(c) && (c.index === undefined || c.index === 0)) ?? choices[0];
    if (!isRecord(choice)) return;
    const message = isRecord(choice.message) ? choice.message : isRecord(choice.delta) ? choice.delta : undefined;
    if (message) this.addDelta(message, true, emit);
    if (flagged(choice.content_filter_results)) this.filtered = true;
    this.setFinish(choice.finish_reason);
    this.sawData = true;
  }

  private setFinish(value: unknown): void {
    const reason = mapFinishReason(value);
    if (reason === null) return;
    this.sawData = true;
    // The first finish reason wins (OpenRouter sends two); a later content_filter overrides.
    if (this.finish === null || reason === 'content_filter') this.finish = reason;
  }

  private addDelta(delta: Json, whole: boolean, emit: boolean): void {
    if (emit) this.live = true;
    const text = contentText(delta.content);
    if (text) {
      this.grow(text.length);
      this.sawData = true;
      for (const part of this.think.push(text)) this.addText(part, emit);
    }
    if (typeof delta.refusal === 'string') {
      this.grow(delta.refusal.length);
      this.sawRefusal = true;
      this.refusal += delta.refusal;
      this.sawData = true;
      if (emit) this.emit('refusal', delta.refusal);
    }
    const reasoning =
      typeof delta.reasoning === 'string' ? delta.reasoning
        : typeof delta.reasoning_content === 'string' ? delta.reasoning_content
          : '';
    if (reasoning) {
      this.grow(reasoning.length);
      this.reasoning += reasoning;
      this.sawData = true;
      if (emit) this.emit('reasoning', reasoning);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (isRecord(tc)) this.addToolCall(tc, whole);
      }
    } else if (isRecord(delta.function_call)) {
      // The legacy single `function_call` field, still sent by a few old servers.
      this.addToolCall({ function: delta.function_call }, whole);
    }
  }

  /**
   * Merges one tool-call fragment. With an `index`, fragments of one call share it (whatever it starts
   * at); a new non-empty id on a known index starts a new call (servers that send every call as index 0).
   * Without an index: a known id continues its call, a new id or a new name starts one, a nameless
   * fragment continues the last call. In a whole message (`whole`) every entry is its own call.
   * Names are never concatenated: the first non-empty name stays (some servers repeat it on every chunk).
   */
  private addToolCall(tc: Json, whole: boolean): void {
    const fn = isRecord(tc.function) ? tc.function : {};
    const id = idText(tc.id);
    const name = typeof fn.name === 'string' ? fn.name : '';
    const rawArgs = fn.arguments;
    const args =
      typeof rawArgs === 'string' ? rawArgs : rawArgs === undefined || rawArgs === null ? '' : JSON.stringify(rawArgs);
    const index =
      typeof tc.index === 'number' ? tc.index : typeof tc.index === 'string' && /^\d+$/.test(tc.index) ? Number(tc.index) : undefined;
    this.grow(id.length + name.length + args.length);
    this.sawData = true;

    let slot: Slot | undefined;
    if (whole) {
      slot = undefined;
    } else if (index !== undefined) {
      slot = this.byIndex.get(index);
      if (slot && id && slot.id && id !== slot.id) slot = undefined;
    } else if (id) {
      slot = this.slots.find((s) => s.id === id);
    } else {
      const last = this.slots.at(-1);
      slot = last && !(name && last.name) ? last : undefined;
    }
    if (!slot) {
      slot = { id: '', name: '', args: '', index };
      this.slots.push(slot);
      if (index !== undefined && !whole) this.byIndex.set(index, slot);
    }
    if (!slot.id && id) slot.id = id;
    if (!slot.name && name) slot.name = name;
    slot.args += args;
  }

  private addText(part: { kind: 'text' | 'reasoning'; text: string }, emit: boolean): void {
    if (part.kind === 'text') this.text += part.text;
    else this.reasoning += part.text;
    if (emit) this.emit(part.kind, part.text);
  }

  /** The finished turn. */
  result(): ModelTurn {
    for (const part of this.think.flush()) this.addText(part, this.live);
    const used = new Set<string>();
    const toolCalls: ToolCall[] = [];
    for (const slot of this.slots) {
      if (!slot.id && !slot.name && !slot.args) continue;
      let id = slot.id;
      // No id, or one an earlier call of this turn already has: tool results could not be told apart.
      if (!id || used.has(id)) {
        let n = toolCalls.length;
        const base = id ? `${id}_` : 'call_';
        while (used.has(`${base}${n}`)) n++;
        id = `${base}${n}`;
      }
      used.add(id);
      toolCalls.push({ id, name: slot.name, arguments: slot.args });
    }
    let finishReason: FinishReason = this.finish ?? 'stop';
    if (this.filtered) finishReason = 'content_filter';
    else if (toolCalls.length > 0 && (finishReason === 'stop' || finishReason === 'unknown')) finishReason = 'tool_calls';
    return {
      text: this.text,
      refusal: this.sawRefusal && this.refusal !== '' ? this.refusal : null,
      reasoning: this.reasoning,
      toolCalls,
      finishReason,
      usage: this.usage,
    };
  }
}
