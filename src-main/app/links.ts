/**
 * Links in answers open in the system browser, never in an Electron window. The renderer marks live
 * links `target="_blank"`, so a click reaches the window-open handler here; a plain navigation reaches
 * `will-navigate`. Either way the window stays where it is, and the address is opened outside only if
 * the main process's own check of the scheme passes (src-shared/links.ts) — whatever the renderer sent.
 */
import { shell, type WebContents } from 'electron';
import { liveLinkUrl } from '../../src-shared/links';
import { isOurRenderer } from './security';

/** Clicks closer together than this open one browser tab: a double click, or a page script in a loop. */
export const OPEN_INTERVAL_MS = 1000;

export interface LinkOpener {
  /** Opens `url` outside the app if the policy allows it; says whether it did. */
  open(url: string): boolean;
}

export function createLinkOpener(
  openExternal: (url: string) => Promise<void> = (url) => shell.openExternal(url),
  now: () => number = Date.now,
): LinkOpener {
  let last = -Infinity;
  return {
    open(raw) {
      const url = liveLinkUrl(raw);
      if (url === null) return false;
      const t = now();
      if (t - last < OPEN_INTERVAL_MS) return false;
      last = t;
      // The browser or mail program reports its own failures; nothing useful to do with one here.
      openExternal(url).catch(() => undefined);
      return true;
    },
  };
}

const defaultOpener = createLinkOpener();

/**
 * Routes a window's links outside the app. New windows are still always denied and navigation stays
 * prevented (src-main/app/security.ts does the same for every web contents); this only adds opening a
 * live link in the system browser, and only when the request comes from our own page.
 */
export function routeLinksOutside(contents: WebContents, opener: LinkOpener = defaultOpener): void {
  const fromOurPage = () => isOurRenderer(parse(contents.getURL()) ?? new URL('about:blank'));
  contents.setWindowOpenHandler(({ url }) => {
    if (fromOurPage()) opener.open(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    const target = parse(event.url);
    // A navigation to the renderer itself (a reload) is not a link to open.
    if (fromOurPage() && event.isMainFrame && target && !isOurRenderer(target)) opener.open(event.url);
  });
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
