/**
 * The quick-add grammar: "Buy milk tomorrow 9am #Birthday Celebration p1 every week" → the content
 * ("Buy milk"), a due date, a project, a priority and a recurrence. One parser for every way a task is
 * typed (the CLI's `tidy add`, the quick-capture box, the add fields), run in the renderer as the user
 * types (to highlight the recognised parts) and in the main side when the task is stored. So it uses no
 * Node API: its dates are read by date-words.ts (chrono-node), its repeats by repeat-phrases.ts into the
 * rules of repeat-rules.ts (RRULE, RFC 5545).
 *
 * The parser is cautious: text that only looks like a date ("Migrate from python 3.10 to 3.11", "Buy 2
 * apples", "March of the penguins") stays text. A part it recognises is removed from the content; what it
 * does not, stays.
 */
import { DANGLING, LEAD_WORDS, dateOf, dateTimeOf, dueOf, parseDates, parseDue } from './date-words';
import { ADVERB, ADVERB_RULES, REPEATISH, readRepeatAt, type Repeat } from './repeat-phrases';
import { firstOccurrence, nextOccurrence, validRecurrence } from './repeat-rules';

type Priority = 1 | 2 | 3 | 4;

interface QuickAddPart {
  kind: 'date' | 'project' | 'priority' | 'recurrence' | 'label' | 'deadline' | 'duration';
  /** Offsets in the original text: text.slice(start, end) === this.text. */
  start: number;
  end: number;
  text: string;
}

export interface QuickAdd {
  /** The text with the recognised parts removed and spaces tidied; the whole text when nothing else is left. */
  content: string;
  /** 'YYYY-MM-DD', or 'YYYY-MM-DDTHH:MM' (local time) when a time was given. */
  due: string | null;
  priority: Priority | null;
  project: { id: string; name: string } | null;
  /** A name after '#' that is no existing project (it stays in the content). */
  unknownProject: string | null;
  /** The existing project nearest to the unknown name, for "Did you mean Family?" ("#Famly"); null when none is near. */
  projectSuggestion: { id: string; name: string } | null;
  /** An RRULE value such as 'FREQ=WEEKLY;BYDAY=MO'. */
  recurrence: string | null;
  /** `@label` words (several, any case; without the @), in text order, no repeats. */
  labels: string[];
  /** `{friday}`: the date it must be done by (YYYY-MM-DD), beside the planned due. */
  deadline: string | null;
  /** `for 45m`, `for 2h`, `for 1h30m`: minutes. */
  durationMin: number | null;
  /**
   * An "every …" phrase that says a repeat but is none Tidy reads ("every 12 hours", "every fortnight"): it
   * stays whole in the content, and the preview says so. Null when there is none.
   */
  unread: string | null;
  /** The recognised parts, in text order, never overlapping. */
  parts: QuickAddPart[];
}

interface QuickAddContext {
  projects: readonly { id: string; name: string }[];
  now: Date;
}

/**
 * Longer text is not searched for dates, projects or priorities: quick-add text is a line, and chrono's
 * regular expressions are not meant for pages. Such text is stored as it is.
 */
export const QUICK_ADD_MAX_CHARS = 1000;

/** Longer repeat text is refused before it is read: a repeat rule is a few words. */
export const REPEAT_MAX_CHARS = 100;

export type RepeatReading = { ok: true; rule: string | null } | { ok: false; message: string; hint: string };

const REPEAT_HINT = 'try "every monday", "every weekday", "every 2 weeks" or "every month on the 1st"; leave it empty to stop repeating';

/**
 * A repeat rule typed on its own (the task editor's Repeats field): quick-add words ("every 2 weeks",
 * "weekday"), an RRULE, or nothing ('', "none", "never") for no repeat. It reads what the core's
 * parseRecurrence (src-main/core/domain/tasks.ts) reads, except that words must be only a repeat: "every
 * monday 9am" is refused here rather than its time dropped. Never throws.
 */
export function readRepeat(text: string): RepeatReading {
  const t = text.trim();
  if (t === '' || /^(none|never|no)$/i.test(t)) return { ok: true, rule: null };
  if (t.length > REPEAT_MAX_CHARS) return { ok: false, message: `That is too long for a repeat rule (${t.length} characters).`, hint: REPEAT_HINT };
  const rule = t.replace(/^RRULE:/i, '').toUpperCase();
  if (validRecurrence(rule)) return { ok: true, rule };
  const words = /^every\b/i.test(t) ? t : `every ${t}`;
  const shown = t.length > 40 ? `${t.slice(0, 40)}…` : t;
  const count = /^every\s+(-?\d+)/i.exec(words);
  if (count && !(Number(count[1]) >= 1 && Number(count[1]) <= 999))
    return { ok: false, message: `"${shown}": the number must be from 1 to 999.`, hint: 'as in "every 2 weeks" or "every 3 days"' };
  const parsed = parseQuickAdd(`x ${words}`, { projects: [], now: new Date() });
  if (parsed.recurrence && parsed.content === 'x' && parsed.parts.length === 1) return { ok: true, rule: parsed.recurrence };
  return { ok: false, message: `"${shown}" is not a repeat Tidy understands.`, hint: REPEAT_HINT };
}

/** "for 2h", "for 1.5 hours", "for 1h30m", "for 45m", "for 90 min", as a phrase of its own. */
const DURATION =
  /(?<![\p{L}\p{N}_])for\s+(?:(\d{1,3}(?:\.\d{1,2})?)\s*(?:h|hrs?|hours?)(?:\s*(\d{1,2})\s*(?:m|mins?|minutes?))?|(\d{1,4})\s*(?:m|mins?|minutes?))(?![\p{L}\p{N}_])/iu;

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The text with [start, end) blanked out, offsets kept. */
const mask = (text: string, start: number, end: number): string => text.slice(0, start) + ' '.repeat(end - start) + text.slice(end);

/**
 * Reads quick-add text. Never throws; the content never grows, and every part is a span of the text.
 */
export function parseQuickAdd(text: string, ctx: QuickAddContext): QuickAdd {
  const none: QuickAdd = {
    content: text.trim().replace(/\s+/g, ' '),
    due: null,
    priority: null,
    project: null,
    unknownProject: null,
    projectSuggestion: null,
    recurrence: null,
    labels: [],
    deadline: null,
    durationMin: null,
    unread: null,
    parts: [],
  };
  if (text.length > QUICK_ADD_MAX_CHARS) return { ...none, content: text.trim() };
  try {
    return parseLine(text, ctx) ?? none;
  } catch {
    // A date library surprised by some input: the text is kept as it is rather than lost.
    return none;
  }
}

function parseLine(text: string, ctx: QuickAddContext): QuickAdd | null {
  const parts: QuickAddPart[] = [];
  let work = text;
  const take = (kind: QuickAddPart['kind'], start: number, end: number): void => {
    parts.push({ kind, start, end, text: text.slice(start, end) });
    work = mask(work, start, end);
  };

  // Recurrence first: "every monday" must not become a one-off date.
  let repeat: Repeat | null = null;
  // The words after an "every" that is no repeat Tidy reads: no date is taken from them, so "every 12 hours
  // tomorrow" or "every fortnight" stay whole rather than leave "every" behind.
  const unreadEvery: { start: number; end: number; phrase: string; said: boolean }[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_])every(?![\p{L}\p{N}_])/giu)) {
    if (repeat?.spans.some(([s, e]) => m.index >= s && m.index < e)) continue;
    // Not after a word it would leave dangling ("every every day", "of every month"): that stays text.
    const dangling = DANGLING.test(work.slice(Math.max(0, m.index - 24), m.index));
    const found: Repeat | null = repeat === null && !dangling ? readRepeatAt(work, m.index, ctx.now) : null;
    if (found) {
      repeat = found;
      continue;
    }
    const words = [...text.slice(m.index + 5, m.index + 125).matchAll(/\S+/gu)].slice(0, 3);
    const kept = words.findIndex((w) => /^[#@{]|^p[1-4]$/iu.test(w[0]));
    const window = kept === -1 ? words : words.slice(0, kept);
    const last = window.at(-1);
    const end = last ? m.index + 5 + last.index + last[0].length : m.index + 5;
    const next = window[0]?.[0] ?? '';
    const phraseEnd = window.length > 1 && /^\d|^(?:other|last|first|second|third|fourth|fifth)$/iu.test(next) ? 2 : window.length > 0 ? 1 : 0;
    const shownEnd = phraseEnd ? m.index + 5 + window[phraseEnd - 1]!.index + window[phraseEnd - 1]![0].length : end;
    unreadEvery.push({ start: m.index, end, phrase: text.slice(m.index, shownEnd), said: REPEATISH.test(next) });
  }
  // "daily" at the end, unless an "every" was typed that is not read: one repeat a line, and no "every" left.
  if (repeat === null && unreadEvery.length === 0) {
    const adverb = ADVERB.exec(work);
    if (adverb && !DANGLING.test(work.slice(Math.max(0, adverb.index - 24), adverb.index))) repeat = { rule: ADVERB_RULES[adverb[1]!.toLowerCase()]!, spans: [[adverb.index, adverb.index + adverb[0].trimEnd().length]], start: null, time: null };
  }
  const recurrence = repeat?.rule ?? null;
  for (const [s, e] of repeat?.spans ?? []) take('recurrence', s, e);

  // #Project: the longest existing name after '#', case-insensitively, ending at a word boundary.
  let project: QuickAdd['project'] = null;
  let unknownProject: string | null = null;
  const byLength = [...ctx.projects].sort((a, b) => b.name.length - a.name.length);
  const lower = work.toLowerCase();
  for (let i = work.indexOf('#'); i !== -1 && project === null; i = work.indexOf('#', i + 1)) {
    if (i > 0 && !/\s/.test(work[i - 1]!)) continue; // "C#", "issue#4"
    const found = byLength.find((p) => {
      const name = p.name.toLowerCase();
      return name.length > 0 && lower.startsWith(name, i + 1) && !isWordChar(work[i + 1 + name.length]);
    });
    if (found) {
      project = { id: found.id, name: found.name };
      take('project', i, i + 1 + found.name.length);
    } else if (unknownProject === null) {
      const word = /^[^\s#]+/u.exec(work.slice(i + 1))?.[0];
      if (word) unknownProject = word.replace(/[.,;:!?)]+$/, '') || null;
    }
  }

  // p1–p4 as a word of its own.
  let priority: Priority | null = null;
  const p = /(?<![\p{L}\p{N}_])p([1-4])(?![\p{L}\p{N}_])/iu.exec(work);
  if (p) {
    priority = Number(p[1]) as Priority;
    take('priority', p.index, p.index + p[0].length);
  }

  // {deadline}: a date in braces (Todoist's grammar); braces around anything else stay text.
  let deadline: string | null = null;
  const brace = /\{([^{}\n]{1,60})\}/.exec(work);
  if (brace) {
    const d = parseDue(brace[1]!, ctx.now);
    if (d) {
      deadline = d.slice(0, 10);
      take('deadline', brace.index, brace.index + brace[0].length);
    }
  }

  // "for 45m", "for 2h", "for 1h30m", "for 90 min": how long it takes (before the dates: chrono would read "2h").
  let durationMin: number | null = null;
  const dur = DURATION.exec(work);
  if (dur) {
    const minutes = Math.round(Number(dur[1] ?? 0) * 60) + Number(dur[2] ?? dur[3] ?? 0);
    if (minutes >= 1 && minutes <= 7 * 24 * 60) {
      durationMin = minutes;
      take('duration', dur.index, dur.index + dur[0].length);
    }
  }

  // @label words: after a space or at the start (so an email address is no label); several, any case.
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const m of work.matchAll(/(?<!\S)@([\p{L}\p{N}_\-.]*[\p{L}\p{N}_])/gu)) {
    if (m[1]!.length > 60 || labels.length >= 100) continue;
    const key = m[1]!.toLowerCase();
    if (!seen.has(key)) labels.push(m[1]!);
    seen.add(key);
    take('label', m.index, m.index + m[0].length);
  }

  // Dates and times, in what is left: not one inside the words of an "every" Tidy did not read, nor one
  // that "of", "every", "starting" or "ending" points at ("Think of tomorrow"), which would leave those behind.
  let due: string | null = null;
  const r = parseDates(work, ctx.now).find((d) => {
    const guard = unreadEvery.find((u) => d.index < u.end && d.index + d.text.length > u.start);
    if (guard) {
      guard.said = true;
      return false;
    }
    return !DANGLING.test(work.slice(Math.max(0, d.index - 24), d.index));
  });
  if (r) {
    let start = r.index;
    const end = r.index + r.text.length;
    const lead = LEAD_WORDS.exec(work.slice(Math.max(0, start - 12), start));
    if (lead) start -= lead[0].length;
    due = dueOf(r);
    // chrono may read across a blanked part ("tomorrow p1 9am"): the date is then the pieces around it.
    const masked = parts.filter((x) => x.start < end && x.end > start).sort((a, b) => a.start - b.start);
    let from = start;
    for (const m of [...masked, { start: end, end }]) {
      const s = from;
      const e = m.start;
      const piece = text.slice(s, e);
      const lead2 = piece.length - piece.trimStart().length;
      const tail = piece.length - piece.trimEnd().length;
      if (e - tail > s + lead2) take('date', s + lead2, e - tail);
      from = Math.max(from, m.end);
    }
  }

  const today = dateOf(ctx.now);
  if (repeat) {
    const timeOnly = r && !r.start.isCertain('day') && !r.start.isCertain('weekday');
    if (!due || timeOnly) {
      // The first occurrence on or after the start ("starting dec 3") or today, at the typed time, else the
      // start's time, else the phrase's ("every evening": 19:00).
      const time = due && due.length > 10 ? due.slice(10) : repeat.start && repeat.start.length > 10 ? repeat.start.slice(10) : repeat.time ? `T${repeat.time}` : '';
      const first = firstOccurrence(repeat.rule, (repeat.start ?? today).slice(0, 10));
      due = first ? `${first}${time}` : null;
      // "every day at 9am" typed at 10: the first one is tomorrow's.
      if (due && due.length > 10 && due < dateTimeOf(ctx.now)) due = nextOccurrence(repeat.rule, due, today) ?? due;
    }
  }
  const unread = unreadEvery.find((u) => u.said)?.phrase ?? null;

  parts.sort((a, b) => a.start - b.start);
  let content = '';
  let at = 0;
  for (const part of parts) {
    content += text.slice(at, part.start) + ' ';
    at = part.end;
  }
  content = (content + text.slice(at)).replace(/\s+/g, ' ').trim();
  // Nothing but a date (or a project) is no task: keep the words as the content, recognise nothing.
  if (content === '') return null;
  const projectSuggestion = unknownProject && !project ? nearestProject(unknownProject, ctx.projects) : null;
  return { content, due, priority, project, unknownProject, projectSuggestion, recurrence, labels, deadline, durationMin, unread, parts };
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) of two short strings. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The existing project a mistyped #name most likely meant ("Famly" → Family, "wrok" → Work, "birthday" →
 * "Birthday Celebration" as the start of its name): the nearest by edit distance, at most 1 for names of up to
 * 4 letters and 2 beyond; null when none is that near or two are equally near. Bounded: names over 60
 * characters and lists beyond 2,000 projects are not compared.
 */
export function nearestProject(name: string, projects: readonly { id: string; name: string }[]): { id: string; name: string } | null {
  const typed = name.toLowerCase();
  if (typed.length === 0 || typed.length > 60) return null;
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { id: string; name: string } | null = null;
  let bestD = Infinity;
  let tie = false;
  for (const p of projects.slice(0, 2000)) {
    const candidate = p.name.toLowerCase();
    if (candidate.length === 0 || candidate.length > 60 || Math.abs(candidate.length - typed.length) > limit) {
      // A multi-word name whose first word was typed ("#birthday" → Birthday Celebration) counts as near.
      if (!(candidate.startsWith(`${typed} `) && typed.length >= 3)) continue;
    }
    const dd = candidate.startsWith(`${typed} `) ? limit : distance(typed, candidate);
    if (dd > limit || dd === 0) continue;
    if (dd < bestD) {
      best = { id: p.id, name: p.name };
      bestD = dd;
      tie = false;
    } else if (dd === bestD) tie = true;
  }
  return tie ? null : best;
}
