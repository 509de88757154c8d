/** Cuts text to at most `max` characters, saying how long it was. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `… (${text.length} characters in total)`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}
