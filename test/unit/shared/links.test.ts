// The link policy shared by the renderer (which links are live) and the main process (which it opens).
import { describe, expect, it } from 'vitest';
import { liveLinkUrl, MAX_LINK_LENGTH } from '../../../src-shared/links';

describe('liveLinkUrl: only http, https and mailto links are live', () => {
  it('keeps web and mail addresses, normalised the way they will open', () => {
    expect(liveLinkUrl('https://example.org/a?b=c#d')).toBe('https://example.org/a?b=c#d');
    expect(liveLinkUrl('http://example.org')).toBe('http://example.org/');
    expect(liveLinkUrl('HTTPS://EXAMPLE.ORG/Path')).toBe('https://example.org/Path');
    expect(liveLinkUrl('mailto:someone@example.org?subject=Hi')).toBe('mailto:someone@example.org?subject=Hi');
    // A look-alike host shows as what it is.
    expect(liveLinkUrl('https://exаmple.org/')).toBe('https://xn--exmple-4nf.org/');
  });

  it.each([
    ['javascript:alert(1)'],
    ['JavaScript:alert(1)'],
    ['javascript://example.org/%0aalert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['data:image/png;base64,iVBORw0KGgo='],
    ['file:///etc/passwd'],
    ['vbscript:msgbox(1)'],
    ['ftp://example.org/file'],
    ['blob:https://example.org/uuid'],
    ['app://tidy/index.html'],
    ['chrome://settings'],
    ['tel:+123'],
  ])('refuses other schemes: %s', (href) => {
    expect(liveLinkUrl(href)).toBeNull();
  });

  it.each([
    ['/relative/path'],
    ['relative.html'],
    ['#fragment'],
    ['?query=1'],
    ['//evil.example/path'],
    ['\\\\evil.example\\share'],
    ['https://'],
    ['https:'],
    ['mailto:'],
  ])('refuses relative, protocol-relative and empty addresses: %s', (href) => {
    expect(liveLinkUrl(href)).toBeNull();
  });

  it('refuses addresses that would not be what they look like', () => {
    // Browsers drop tabs and newlines inside a URL: `java\tscript:` runs as javascript:.
    expect(liveLinkUrl('java\tscript:alert(1)')).toBeNull();
    expect(liveLinkUrl('https://example.org/\nx')).toBeNull();
    expect(liveLinkUrl(' https://example.org')).toBeNull();
    expect(liveLinkUrl('\u0000https://example.org')).toBeNull();
    expect(liveLinkUrl('https://example.org\u2028')).toBeNull();
    // A user name before the host reads like the host.
    expect(liveLinkUrl('https://bank.example@evil.example/')).toBeNull();
    expect(liveLinkUrl('https://user:pass@example.org/')).toBeNull();
  });

  it('refuses what is not a string, and addresses too long to be honest', () => {
    for (const value of [undefined, null, 42, {}, ['https://example.org']]) expect(liveLinkUrl(value)).toBeNull();
    expect(liveLinkUrl('')).toBeNull();
    const long = `https://example.org/?d=${'x'.repeat(MAX_LINK_LENGTH)}`;
    expect(liveLinkUrl(long)).toBeNull();
    expect(liveLinkUrl(long.slice(0, MAX_LINK_LENGTH))).toBe(long.slice(0, MAX_LINK_LENGTH));
  });
});
