/**
 * Where the keyboard focus goes when the screen changes under it. Two rules:
 * - Something that appears on its own (an approval card, a refusal, a finished run) never takes the focus
 *   from where the user is: keys meant for the message box must never answer a prompt. It may take the
 *   focus only when the focus is on nothing (the page body), and then on itself, not on a button.
 * - When the control the user acted on goes away (a ticked task leaving the list, Undo turning into Redo),
 *   the focus moves to the sensible next control instead of falling to the page body.
 */

/** Whether the focus is on nothing: the page body, or an element that is no longer in the page. */
export function focusIsLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/** Focuses `el` only when the focus is on nothing (rule 1). */
export function focusIfIdle(el: HTMLElement | null | undefined): void {
  if (el && focusIsLost()) el.focus({ preventScroll: false });
}

/** The message box of the chat. */
export const composer = (): HTMLElement | null => document.getElementById('composer');

/**
 * Focuses what `find` returns once it is in the page (it may arrive with the next data refresh), unless
 * the user has put the focus somewhere else meanwhile. Gives up after `timeoutMs`.
 */
export function focusWhenReady(find: () => HTMLElement | null, timeoutMs = 3000): void {
  const from = document.activeElement;
  const moved = () => !focusIsLost() && document.activeElement !== from;
  const attempt = (): boolean => {
    if (moved()) return true;
    const el = find();
    if (!el) return false;
    el.focus();
    return true;
  };
  if (attempt()) return;
  const observer = new MutationObserver(() => {
    if (attempt()) stop();
  });
  const timer = setTimeout(() => stop(), timeoutMs);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
}
