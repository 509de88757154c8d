// The one error under a field or a form: its markup (a paragraph announced as an alert by default), a
// problem as one line, nothing without one, and hostile text shown as text.
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FieldError } from '../../../../src-renderer/ui/FieldError';

const html = (el: ReactElement) => renderToStaticMarkup(el);

describe('FieldError', () => {
  it('draws a problem as "message — hint" in an alert paragraph, with its id and extra classes', () => {
    expect(html(<FieldError id="e1" className="wide" problem={{ code: 'failed', message: 'name is taken', hint: 'pick another' }} />)).toBe(
      '<p id="e1" class="field-error wide" role="alert">name is taken — pick another</p>',
    );
    expect(html(<FieldError problem={{ code: 'client', message: 'no hint', hint: '' }} />)).toBe('<p class="field-error" role="alert">no hint</p>');
  });

  it('draws nothing without a problem, and a sentence as it is, in the element and role asked for', () => {
    for (const none of [null, undefined, false, ''] as const) expect(html(<FieldError problem={none} />)).toBe('');
    expect(html(<FieldError as="span" role={null} problem="Could not list" />)).toBe('<span class="field-error">Could not list</span>');
    expect(html(<FieldError as="li" role="note" problem="Switched off" />)).toBe('<li class="field-error" role="note">Switched off</li>');
    expect(html(<FieldError problem={'<img src=x onerror=alert(1)>'} />)).toBe('<p class="field-error" role="alert">&lt;img src=x onerror=alert(1)&gt;</p>');
  });
});
