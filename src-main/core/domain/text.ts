import { fail } from '../fail';
import { MAX_NAME, nameKey } from '../store/names';

export { MAX_NAME, nameKey };

export const MAX_TEXT = 2000;

/**
 * Characters that show nothing on their own: white space, controls, format characters (zero-width space,
 * joiners, word joiner, BOM, bidi marks, soft hyphen), combining marks with nothing to combine with,
 * variation selectors, and the fillers that render blank (Hangul fillers, braille blank).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Z}\p{Mn}\p{Me}\u115f\u1160\u3164\uffa0\u2800\u{1d159}-\u{1d15a}\u{1d173}-\u{1d17a}]/gu;

/** Whether `text` has at least one character that shows: the one check every name and text goes through. */
export const hasVisibleText = (text: string): boolean => text.replace(INVISIBLE, '') !== '';

/** Trims, folds runs of white space (names are one line) and rejects empty or over-long names. */
export function cleanName(raw: unknown, what: string): string {
  const name = String(raw ?? '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
  if (!name) fail(`${what} name is empty`, `give the ${what} a name`);
  if (!hasVisibleText(name)) fail(`${what} name has only invisible characters (such as zero-width spaces)`, `give the ${what} a name that shows`);
  if (name.length > MAX_NAME) fail(`${what} name is ${name.length} characters long`, `use at most ${MAX_NAME} characters`);
  return name;
}

/** Task and item text: trimmed, may hold line breaks, never empty. */
export function cleanText(raw: unknown, what: string): string {
  const text = String(raw ?? '')
    .normalize('NFC')
    .trim();
  if (!text) fail(`${what} is empty`, `write what the ${what} should say`);
  if (!hasVisibleText(text)) fail(`${what} has only invisible characters (such as zero-width spaces)`, `write what the ${what} should say`);
  if (text.length > MAX_TEXT) fail(`${what} is ${text.length} characters long`, `use at most ${MAX_TEXT} characters`);
  return text;
}

/** The key names are unique by: case-insensitive (Unicode-aware), white space folded. */

export const now = (): string => new Date().toISOString();

export const quote = (s: string): string => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;
