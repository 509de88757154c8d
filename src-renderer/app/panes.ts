/**
 * F6 / Shift+F6 (as in VS Code and browsers): the focus goes round the areas of the window — the
 * navigation, the view's list (conversations, projects, lists), the view's main part, the trace. Areas
 * are marked with `data-pane`; inside one, the focus goes to its `data-pane-focus` element, else its
 * current item, else its heading, else its first control.
 */
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function panes(): HTMLElement[] {
  const main = document.querySelector<HTMLElement>('main');
  const found = [
    document.querySelector<HTMLElement>('[data-pane="sidebar"]'),
    main?.querySelector<HTMLElement>('[data-pane="list"]'),
    main?.querySelector<HTMLElement>('[data-pane="main"]') ?? main,
    document.querySelector<HTMLElement>('[data-pane="trace"]'),
  ];
  return found.filter((p): p is HTMLElement => p !== null && p !== undefined);
}

function focusPane(pane: HTMLElement): void {
  const target =
    pane.querySelector<HTMLElement>('[data-pane-focus]') ??
    pane.querySelector<HTMLElement>('[aria-current]:not([aria-current="false"])') ??
    pane.querySelector<HTMLElement>('[data-view-heading]') ??
    pane.querySelector<HTMLElement>(FOCUSABLE);
  if (target) return target.focus();
  pane.tabIndex = -1;
  pane.focus();
}

export function cyclePanes(back: boolean): void {
  const all = panes();
  if (all.length === 0) return;
  const active = document.activeElement;
  // The innermost area holding the focus (the main part may hold the list).
  let at = -1;
  all.forEach((p, i) => {
    if (active && p.contains(active) && (at < 0 || all[at]!.contains(p))) at = i;
  });
  const next = at < 0 ? (back ? all.length - 1 : 0) : (at + (back ? -1 : 1) + all.length) % all.length;
  focusPane(all[next]!);
}
