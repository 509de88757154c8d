/**
 * The model's answers as Markdown, safely (docs/ARCHITECTURE.md, "Security rules"). markdown-it parses with raw HTML
 * off, and its tokens become React elements here, so nothing in an answer is ever parsed as HTML or
 * written as innerHTML:
 * - raw HTML (`<img src=…>`, `<script>`) stays visible text;
 * - no image is ever loaded: `![alt](url)` becomes a link that shows its address;
 * - only http(s) and mailto links are live (src-shared/links.ts). They open outside the app — a new tab
 *   without an opener in the browser, the system browser in the desktop app (src-main/app/links.ts) —
 *   and show their real address on hover and on keyboard focus; any other link is shown as text;
 * - an answer too long or nested too deep to format is shown as plain text instead (a very long one
 *   cut after PLAIN_SHOWN_CHARS until the user asks for all of it; Copy always takes all of it).
 * While an answer streams (its text arrives at most once per animation frame: src-renderer/features/chat/slice.ts),
 * only the text from the last blocks on is parsed again, and each top-level block is a memoised component
 * keyed by its own source: new text re-renders only the last block, and the elements already on screen
 * stay the same nodes.
 */
import MarkdownIt, { type Env, type Token } from 'markdown-it';
import { Fragment, memo, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { liveLinkUrl } from '../../src-shared/links';

/** How deep blocks and inline markup may nest; a deeper answer is shown as plain text. */
const MAX_NESTING = 24;
/** Longer answers are shown as plain text: formatting one would take seconds, and real answers are far shorter. */
export const MAX_MARKDOWN_CHARS = 100_000;
/** More tokens than this would be tens of thousands of elements: shown as plain text instead. */
const MAX_TOKENS = 30_000;
/** Of a longer plain-text answer, this much shows until the user asks for all of it (laying out a megabyte takes seconds). */
export const PLAIN_SHOWN_CHARS = 100_000;
/** An answer's `#` is rendered as <h3>: the page and the conversation own the levels above. */
const HEADING_OFFSET = 2;

const md = new MarkdownIt('default', { html: false, linkify: true, breaks: true, typographer: false, maxNesting: MAX_NESTING });
// Bare addresses become links only when written with http(s):// or as an e-mail address: not `//host`,
// not ftp:, and `node.js` stays a word.
md.linkify.set({ fuzzyLink: false }).add('//', null).add('ftp:', null);

interface Block {
  /** The block's kind and source text (and the document's link references): equal ids render alike. */
  id: string;
  tokens: Token[];
  /** Where the block's first line starts in the source, and how many tokens it has (children included). */
  start: number;
  size: number;
}

type Parsed = { kind: 'markdown'; blocks: Block[]; hasReferences: boolean } | { kind: 'plain'; reason: string };

const PLAIN_TOO_LONG = 'Shown as plain text: this answer is too long to format.';
const PLAIN_TOO_BIG = 'Shown as plain text: this answer has too many parts to format.';
const PLAIN_TOO_DEEP = 'Shown as plain text: this answer is nested too deeply to format.';
const PLAIN_FAILED = 'Shown as plain text: this answer could not be formatted.';

/**
 * The last few parses, by source: the chat and the trace show the same answer (while it streams, every
 * frame), and a conversation opened again shows the same ones. Parsed tokens are never changed after.
 * `whole` says the text was parsed from its start, not extended from an earlier parse.
 */
const recent = new Map<string, { parsed: Parsed; whole: boolean }>();
const RECENT_MAX = 32;

/** An earlier parse of the same answer, while it streams: the text then and what it became. */
interface Earlier {
  source: string;
  parsed: Parsed;
}

/**
 * Parses an answer into top-level blocks, or says why it is to be shown as plain text. Given the parse of
 * an earlier prefix of it (while it streams), the blocks before that parse's last two are kept and only
 * the text from there on is parsed: a block closed by a later block's start stays as it is, whatever is
 * appended. Link references are the exception (one defined later changes links anywhere), so an answer
 * with any is parsed whole. A finished answer is always parsed whole.
 */
export function parseMarkdown(source: string, earlier?: Earlier): Parsed {
  const known = recent.get(source);
  if (known && (known.whole || earlier)) return known.parsed;
  const extended = earlier ? extend(source, earlier) : null;
  const parsed = extended ?? parse(source);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  recent.set(source, { parsed, whole: extended === null });
  return parsed;
}

/** `source` parsed by keeping the settled blocks of an earlier parse of its start; null when that cannot be done. */
function extend(source: string, { source: before, parsed }: Earlier): Parsed | null {
  if (parsed.kind !== 'markdown' || parsed.hasReferences || parsed.blocks.length < 3 || !source.startsWith(before)) return null;
  if (source.length > MAX_MARKDOWN_CHARS) return { kind: 'plain', reason: PLAIN_TOO_LONG };
  const kept = parsed.blocks.slice(0, -2);
  const from = parsed.blocks[parsed.blocks.length - 2]!.start;
  const tail = parse(source.slice(from), kept.reduce((n, b) => n + b.size, 0));
  if (tail.kind === 'plain') return tail;
  if (tail.hasReferences) return null;
  return { kind: 'markdown', blocks: [...kept, ...tail.blocks.map((b) => ({ ...b, start: b.start + from }))], hasReferences: false };
}

/** Parses `source` whole; `tokensBefore` counts the tokens of blocks kept from before it, against MAX_TOKENS. */
function parse(source: string, tokensBefore = 0): Parsed {
  if (source.length > MAX_MARKDOWN_CHARS) return { kind: 'plain', reason: PLAIN_TOO_LONG };
  const env: Env = {};
  let tokens: Token[];
  try {
    tokens = md.parse(source, env);
  } catch {
    // The parser has no known way to fail on text; if it ever does, the answer is still shown.
    return { kind: 'plain', reason: PLAIN_FAILED };
  }
  let count = tokensBefore;
  for (const t of tokens) {
    // At the limit markdown-it stops and drops the rest of the block; plain text keeps all of it.
    if (t.level >= MAX_NESTING - 1) return { kind: 'plain', reason: PLAIN_TOO_DEEP };
    count += 1 + (t.children?.length ?? 0);
  }
  if (count > MAX_TOKENS) return { kind: 'plain', reason: PLAIN_TOO_BIG };

  const lines = source.split('\n');
  // Where each line starts in the source.
  const lineStart = [0];
  for (const line of lines) lineStart.push(lineStart[lineStart.length - 1]! + line.length + 1);
  // A reference definition anywhere changes links everywhere, so it is part of every block's id.
  const refs = env.references ? JSON.stringify(env.references) : '';
  const blocks: Block[] = [];
  let first = 0;
  let size = 0;
  tokens.forEach((t, i) => {
    size += 1 + (t.children?.length ?? 0);
    // A top-level block ends with its level-0 closing token, or is a single level-0 token (fence, hr).
    if (t.level !== 0 || t.nesting === 1) return;
    const head = tokens[first]!;
    const own = tokens.slice(first, i + 1);
    const text = head.map ? lines.slice(head.map[0], head.map[1]).join('\n') : own.map((x) => x.content).join('\n');
    blocks.push({ id: `${head.type}\n${text}\n${refs}`, tokens: own, start: head.map ? lineStart[head.map[0]]! : 0, size });
    first = i + 1;
    size = 0;
  });
  return { kind: 'markdown', blocks, hasReferences: refs !== '' };
}

const TABLE_ROW = /^ {0,3}\|/;
const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * What to show of an answer still streaming. A table's header line reads as a paragraph of pipes until
 * its delimiter row has arrived, then turns into a table: those one or two lines are held back until
 * the delimiter row is complete, so the table appears once instead of flickering from text to table.
 */
export function streamingView(text: string): string {
  const lines = text.split('\n');
  let last = lines.length - 1;
  // Text ending in a line break has an empty last "line": the line before it is complete.
  if (lines[last] === '') last--;
  let first = last + 1;
  while (first > 0 && TABLE_ROW.test(lines[first - 1]!)) first--;
  const rows = last - first + 1;
  if (rows === 0 || rows > 2) return text;
  const delimiterDone = rows === 2 && last < lines.length - 1 && TABLE_DELIMITER.test(lines[last]!);
  return delimiterDone ? text : lines.slice(0, first).join('\n');
}

interface MarkdownProps {
  /** The Markdown text of an answer. */
  source: string;
  /** The answer is still arriving: a table head is held back until it is one (see streamingView). */
  streaming?: boolean;
  className?: string;
}

export const Markdown = memo(function Markdown({ source, streaming = false, className }: MarkdownProps) {
  // While the answer streams, each parse extends the one before (see parseMarkdown).
  const earlier = useRef<Earlier | undefined>(undefined);
  const parsed = useMemo(() => {
    if (!streaming) return parseMarkdown(source);
    const view = streamingView(source);
    const result = parseMarkdown(view, earlier.current);
    earlier.current = { source: view, parsed: result };
    return result;
  }, [source, streaming]);
  const [showAll, setShowAll] = useState(false);
  const classes = `md${className ? ` ${className}` : ''}`;
  if (parsed.kind === 'plain') {
    const cut = !showAll && source.length > PLAIN_SHOWN_CHARS;
    return (
      <div className={`${classes} md-plain`}>
        <p className="md-note">{parsed.reason}</p>
        <div className="md-plain-text">{cut ? `${source.slice(0, PLAIN_SHOWN_CHARS)}…` : source}</div>
        {cut && (
          <button type="button" className="btn small" onClick={() => setShowAll(true)}>
            Show all {source.length.toLocaleString()} characters
          </button>
        )}
      </div>
    );
  }
  return (
    <div className={classes}>
      {parsed.blocks.map((block, i) => (
        <MarkdownBlock key={i} block={block} />
      ))}
    </div>
  );
});

const MarkdownBlock = memo(
  function MarkdownBlock({ block }: { block: Block }) {
    return <>{renderTokens(block.tokens)}</>;
  },
  (before, after) => before.block.id === after.block.id,
);

/** Turns a token list into elements: opening and closing tokens pair up on a stack, the rest are leaves. */
function renderTokens(tokens: Token[]): ReactNode[] {
  const stack: { open: Token | null; children: ReactNode[] }[] = [{ open: null, children: [] }];
  const top = () => stack[stack.length - 1]!;
  const close = (key: number) => {
    const { open, children } = stack.pop()!;
    top().children.push(element(open!, children, key));
  };
  tokens.forEach((t, i) => {
    if (t.nesting === 1) stack.push({ open: t, children: [] });
    else if (t.nesting === -1) {
      if (stack.length > 1) close(i);
    } else top().children.push(leaf(t, i));
  });
  while (stack.length > 1) close(tokens.length + stack.length);
  return stack[0]!.children;
}

const ALIGN = /text-align:(left|center|right)/;

function element(open: Token, children: ReactNode[], key: number): ReactNode {
  switch (open.type) {
    case 'paragraph_open':
      // Paragraphs in tight lists are hidden: their text sits in the list item directly.
      return open.hidden ? <Fragment key={key}>{children}</Fragment> : <p key={key}>{children}</p>;
    case 'heading_open': {
      const level = Math.min(6, Number(open.tag.slice(1)) + HEADING_OFFSET);
      const Heading = `h${Number.isInteger(level) && level >= 3 ? level : 6}` as 'h3' | 'h4' | 'h5' | 'h6';
      return <Heading key={key}>{children}</Heading>;
    }
    case 'blockquote_open':
      return <blockquote key={key}>{children}</blockquote>;
    case 'bullet_list_open':
      return <ul key={key}>{children}</ul>;
    case 'ordered_list_open': {
      const start = Number(attr(open, 'start') || 1);
      return (
        <ol key={key} start={Number.isSafeInteger(start) && start !== 1 ? start : undefined}>
          {children}
        </ol>
      );
    }
    case 'list_item_open':
      return <li key={key}>{children}</li>;
    case 'table_open':
      // A wide table scrolls sideways in its own box instead of widening the message.
      return (
        <div key={key} className="md-table">
          <table>{children}</table>
        </div>
      );
    case 'thead_open':
      return <thead key={key}>{children}</thead>;
    case 'tbody_open':
      return <tbody key={key}>{children}</tbody>;
    case 'tr_open':
      return <tr key={key}>{children}</tr>;
    case 'th_open':
      return (
        <th key={key} style={alignment(open)}>
          {children}
        </th>
      );
    case 'td_open':
      return (
        <td key={key} style={alignment(open)}>
          {children}
        </td>
      );
    case 'strong_open':
      return <strong key={key}>{children}</strong>;
    case 'em_open':
      return <em key={key}>{children}</em>;
    case 's_open':
      return <s key={key}>{children}</s>;
    case 'link_open':
      return (
        <Link key={key} href={attr(open, 'href')}>
          {children}
        </Link>
      );
    default:
      // Nothing else is enabled in the parser; an unknown pair would still only show its text.
      return <Fragment key={key}>{children}</Fragment>;
  }
}

function leaf(t: Token, key: number): ReactNode {
  switch (t.type) {
    case 'inline':
      return <Fragment key={key}>{renderTokens(t.children ?? [])}</Fragment>;
    // A line break in an answer is a line break (`breaks`, as in GitHub comments).
    case 'softbreak':
    case 'hardbreak':
      return <br key={key} />;
    case 'code_inline':
      return <code key={key}>{t.content}</code>;
    case 'fence':
    case 'code_block':
      return <CodeBlock key={key} code={t.content.replace(/\n$/, '')} language={t.info.trim().split(/\s+/)[0] ?? ''} />;
    case 'hr':
      return <hr key={key} />;
    case 'image':
      return <ImageLink key={key} src={attr(t, 'src')} alt={t.content} />;
    default:
      // text, and anything else: its content as text (html_block and html_inline never occur with html
      // off, and would be text here too).
      return t.content;
  }
}

const attr = (t: Token, name: string): string => String(t.attrGet(name) ?? '');

function alignment(t: Token): CSSProperties | undefined {
  const m = ALIGN.exec(attr(t, 'style'));
  return m ? { textAlign: m[1] as 'left' | 'center' | 'right' } : undefined;
}

/** Long addresses are shortened on screen (the title, or the copy, has all of it). */
function shortened(url: string): string {
  return url.length > 160 ? `${url.slice(0, 120)}…${url.slice(-30)}` : url;
}

const NOT_OPENED = 'Not opened: Tidy opens only http, https and mailto links';

/**
 * A live link for an http(s)/mailto address, text for anything else. The title is the address itself,
 * normalised (so `https://bank.example@evil.example` can never hide behind its words), and the
 * stylesheet shows it beside the link on keyboard focus too.
 */
function Link({ href, children, showAddress = true }: { href: string; children: ReactNode; showAddress?: boolean }) {
  const url = liveLinkUrl(href);
  if (url === null) {
    return (
      <span className="md-inert" title={NOT_OPENED}>
        {children}
        {showAddress && href && <span className="md-url"> ({shortened(href)})</span>}
      </span>
    );
  }
  return (
    <a className="md-link" href={url} target="_blank" rel="noopener noreferrer" title={url}>
      {children}
    </a>
  );
}

/** An image is never loaded (its address could carry data out): it becomes a link that shows where it points. */
function ImageLink({ src, alt }: { src: string; alt: string }) {
  return (
    <span className="md-image">
      {alt ? `Image “${alt}”, not loaded: ` : 'Image, not loaded: '}
      <Link href={src} showAddress={false}>
        {shortened(src)}
      </Link>
    </span>
  );
}

const CodeBlock = memo(function CodeBlock({ code, language }: { code: string; language: string }) {
  const lang = language.slice(0, 40);
  return (
    <div className="md-code" role="group" aria-label={lang ? `Code, ${lang}` : 'Code'}>
      <div className="md-code-head">
        <span>{lang}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      {/* Focusable, so a wide block can be scrolled sideways with the keyboard. */}
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </div>
  );
});

/** A "Copy" button: writes `text` to the clipboard and says whether that worked, for a moment. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  const copy = () => {
    // The clipboard API exists only in a secure context; the app and `tidy serve` (127.0.0.1) are one.
    if (!navigator.clipboard) return setState('failed');
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button type="button" className="btn ghost small md-copy" aria-label={label} onClick={copy}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
