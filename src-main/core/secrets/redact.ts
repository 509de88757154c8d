/**
 * Taking secrets (the API key we sent) out of text that came from elsewhere: a server's error body, a
 * proxy's page, a tool call the provider rejected. Servers do not only echo a whole key: they quote
 * part of it ("Incorrect API key provided: sk-proj-abc…xyz"), cut it at a length, or wrap it across
 * what they print. So every run of at least MIN_RUN consecutive characters of a secret is replaced,
 * not only the whole secret.
 *
 * Why 8: keys are long random strings (OpenAI's are over 150 characters, Azure's 32 hex digits), so a
 * run of 8 of them (48 bits of a base-62 key) appearing in a message by chance is practically
 * impossible, while runs shorter than that are what providers show on purpose to identify a key (the
 * last 4 characters) and cannot be pieced into one. The vendor prefix of a key (`sk-proj-`,
 * `sk-svcacct-`, `sk-or-v1-`, `gsk_`) is the same for everyone and is left readable when quoted alone,
 * as in "Incorrect API key provided: sk-proj-***mnop". Secrets shorter than 8 characters are replaced
 * only whole, and only from MIN_WHOLE characters up: a 3-letter "key" would redact ordinary words.
 */

export const MIN_RUN = 8;
export const MIN_WHOLE = 4;

/** A vendor tag and up to two lowercase segments, each ending in - or _: sk-, sk-proj-, sk-ant-api03-, sk-or-v1-, gsk_. */
const VENDOR_PREFIX = /^[a-z]{2,3}[-_](?:[a-z0-9]{2,10}[-_]){0,2}/;

const BASE = 0x01000193;
/** BASE to the power MIN_RUN - 1, in 32-bit arithmetic: the weight of the character leaving the window. */
const TOP = Array.from({ length: MIN_RUN - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);

/** A polynomial hash of text[i, i + MIN_RUN), as 32-bit integers, the same as the rolling update computes. */
function windowHash(text: string, i: number): number {
  let h = 0;
  for (let j = i; j < i + MIN_RUN; j++) h = (Math.imul(h, BASE) + text.charCodeAt(j)) | 0;
  return h;
}

/**
 * `text` with every run of at least MIN_RUN characters of any secret (and every whole secret of at
 * least MIN_WHOLE characters) replaced by `mark`; overlapping or adjacent runs become one mark.
 * Linear in the text: one rolling-hash lookup per position and secret.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[], mark = '***'): string {
  // [start, end) ranges of text to hide.
  const hide: [number, number][] = [];
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_WHOLE) continue;
    // The whole secret, prefix and all.
    for (let i = text.indexOf(secret); i !== -1; i = text.indexOf(secret, i + secret.length)) hide.push([i, i + secret.length]);
    // Every window of MIN_RUN characters of the secret past its vendor prefix; a text window found
    // among them is hidden. Windows are compared by a rolling hash first (no string per position),
    // then exactly.
    const prefix = VENDOR_PREFIX.exec(secret)?.[0].length ?? 0;
    const windows = new Set<string>();
    const hashes = new Set<number>();
    for (let i = prefix; i + MIN_RUN <= secret.length; i++) {
      windows.add(secret.slice(i, i + MIN_RUN));
      hashes.add(windowHash(secret, i));
    }
    if (windows.size === 0) continue;
    let h = text.length >= MIN_RUN ? windowHash(text, 0) : 0;
    for (let i = 0; i + MIN_RUN <= text.length; i++) {
      if (i > 0) h = (Math.imul(h - Math.imul(text.charCodeAt(i - 1), TOP), BASE) + text.charCodeAt(i + MIN_RUN - 1)) | 0;
      if (hashes.has(h) && windows.has(text.slice(i, i + MIN_RUN))) hide.push([i, i + MIN_RUN]);
    }
  }
  if (hide.length === 0) return text;
  hide.sort((a, b) => a[0] - b[0]);
  let out = '';
  let pos = 0;
  let cur = hide[0]!;
  const flush = (): void => {
    out += text.slice(pos, cur[0]) + mark;
    pos = cur[1];
  };
  for (const range of hide.slice(1)) {
    if (range[0] <= cur[1]) cur = [cur[0], Math.max(cur[1], range[1])];
    else {
      flush();
      cur = range;
    }
  }
  flush();
  return out + text.slice(pos);
}
