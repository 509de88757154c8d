/**
 * Which links in model output are live. Answers are untrusted text, so one policy decides for both
 * sides: the renderer makes only these links clickable (src-renderer/ui/Markdown.tsx), and the main
 * process opens only these in the system browser (src-main/app/links.ts), whatever the renderer sends.
 */

/** The schemes a link may have to be live; everything else is shown as text. */
const LIVE_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];

/** Longer addresses are shown as text: no real link needs more, and a huge one only hides what it does. */
export const MAX_LINK_LENGTH = 8192;

/**
 * The address a link may open — normalised by the URL parser, so what is shown on hover is exactly what
 * opens — or null when it must stay text: another scheme (javascript:, data:, file:, vbscript:…), a
 * relative or protocol-relative address (`/x`, `//host`), a web address without a host or with a user
 * name in it (`https://bank.example@evil.example`), control characters or spaces (browsers drop tabs
 * and newlines inside URLs, so `java\tscript:` would not be what it looks like), or an address too long.
 */
export function liveLinkUrl(href: unknown): string | null {
  if (typeof href !== 'string' || href.length === 0 || href.length > MAX_LINK_LENGTH) return null;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u0020\u007f-\u009f\u2028\u2029]/.test(href)) return null;
  let url: URL;
  try {
    // No base URL: anything relative fails to parse, so it can never resolve against the app's origin.
    url = new URL(href);
  } catch {
    return null;
  }
  if (!LIVE_SCHEMES.includes(url.protocol)) return null;
  // The scheme must be written out: the parser alone would accept what a reader would not call one.
  if (!href.toLowerCase().startsWith(url.protocol)) return null;
  if (url.protocol === 'mailto:') return url.pathname.length > 0 ? url.href : null;
  if (!url.hostname || url.username || url.password) return null;
  return url.href;
}
