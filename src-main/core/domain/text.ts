import { fail } from '../fail';

export const MAX_NAME = 120;
export const MAX_TEXT = 2000;

/** Trims, folds runs of white space (names are one line) and rejects empty or over-long names. */
export function cleanName(raw: unknown, what: string): string {
  const name = String(raw ?? '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
  if (!name) fail(`${what} name is empty`, `give the ${what} a name`);
  if (name.length > MAX_NAME) fail(`${what} name is ${name.length} characters long`, `use at most ${MAX_NAME} characters`);
  return name;
}

/** Task and item text: trimmed, may hold line breaks, never empty. */
export function cleanText(raw: unknown, what: string): string {
  const text = String(raw ?? '')
    .normalize('NFC')
    .trim();
  if (!text) fail(`${what} is empty`, `write what the ${what} should say`);
  if (text.length > MAX_TEXT) fail(`${what} is ${text.length} characters long`, `use at most ${MAX_TEXT} characters`);
  return text;
}

/** The key names are unique by: case-insensitive (Unicode-aware), white space folded. */
export const nameKey = (name: string): string => name.normalize('NFKC').toLowerCase();

export const now = (): string => new Date().toISOString();

export const quote = (s: string): string => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;
