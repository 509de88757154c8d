/** The error under a field or a form: a refusal as one line (what went wrong — what to do), or a sentence. */
import { problemLine, type Problem } from '../lib/problem';

interface FieldErrorProps {
  /** Nothing is drawn without one. A problem reads "message — hint" (the hint left out when empty). */
  problem: Problem | string | null | undefined | false;
  /** For the field's aria-describedby. */
  id?: string | undefined;
  /** Classes beside `field-error` (e.g. `wide` in a grid form). */
  className?: string;
  /** How it is announced: an alert by default; a standing fact is a note; null for none (a list's load failure). */
  role?: 'alert' | 'note' | null;
  /** The element: a paragraph by default; a span inside a line; a list item inside a list. */
  as?: 'p' | 'span' | 'li';
}

export function FieldError({ problem, id, className, role = 'alert', as: Element = 'p' }: FieldErrorProps) {
  if (!problem) return null;
  return (
    <Element id={id} className={className ? `field-error ${className}` : 'field-error'} role={role ?? undefined}>
      {typeof problem === 'string' ? problem : problemLine(problem)}
    </Element>
  );
}
