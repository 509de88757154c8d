// The main process's side of links in answers: the window never navigates or opens a window, and a
// live link (by the main process's own check) goes to the system browser. Electron is a stand-in here.
import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const openExternal = vi.hoisted(() => vi.fn((_url: string) => Promise.resolve()));
vi.mock('electron', () => ({
  shell: { openExternal },
  app: { isPackaged: true },
  protocol: {},
  session: {},
}));

const { createLinkOpener, OPEN_INTERVAL_MS, routeLinksOutside } = await import('../../../src-main/app/links');
const { mayWriteClipboard } = await import('../../../src-main/app/security');

/** Enough of a WebContents: the window-open handler, will-navigate listeners, and the page's URL. */
class FakeContents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  constructor(public url = 'app://tidy/index.html#/chat') {
    super();
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
  getURL() {
    return this.url;
  }
  navigate(url: string, isMainFrame = true): boolean {
    let prevented = false;
    this.emit('will-navigate', { url, isMainFrame, preventDefault: () => (prevented = true) });
    return prevented;
  }
}

function setup(page?: string) {
  let t = 0;
  const opened: string[] = [];
  const opener = createLinkOpener(
    (url) => {
      opened.push(url);
      return Promise.resolve();
    },
    () => (t += OPEN_INTERVAL_MS),
  );
  const contents = new FakeContents(page);
  routeLinksOutside(contents as unknown as Electron.WebContents, opener);
  return { contents, opened };
}

beforeEach(() => openExternal.mockClear());

describe('links from the renderer open in the system browser after the scheme check', () => {
  it('opens a live link from a target=_blank click outside, and denies the new window', () => {
    const { contents, opened } = setup();
    expect(contents.openHandler!({ url: 'https://example.org/docs' })).toEqual({ action: 'deny' });
    expect(contents.openHandler!({ url: 'mailto:someone@example.org' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.org/docs', 'mailto:someone@example.org']);
  });

  it('never opens what the policy refuses, whatever the renderer sends', () => {
    const { contents, opened } = setup();
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'vbscript:x', '//evil.example/', 'app://tidy/index.html', 'https://bank.example@evil.example/', 'smb://host/share']) {
      expect(contents.openHandler!({ url })).toEqual({ action: 'deny' });
      expect(contents.navigate(url)).toBe(true);
    }
    expect(opened).toEqual([]);
  });

  it('keeps the window where it is on a plain navigation, and opens a live target outside', () => {
    const { contents, opened } = setup();
    expect(contents.navigate('https://example.org/a')).toBe(true);
    // Our own page (a reload) is not a link to open; a subframe navigation is not a click on a link.
    expect(contents.navigate('app://tidy/index.html')).toBe(true);
    expect(contents.navigate('https://example.org/b', false)).toBe(true);
    expect(opened).toEqual(['https://example.org/a']);
  });

  it('opens nothing for a page that is not ours', () => {
    const { contents, opened } = setup('https://evil.example/');
    expect(contents.openHandler!({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(contents.navigate('https://example.org/')).toBe(true);
    expect(opened).toEqual([]);
  });

  it('opens one tab for a burst of clicks', () => {
    let now = 0;
    const opened: string[] = [];
    const opener = createLinkOpener(
      (url) => (opened.push(url), Promise.resolve()),
      () => now,
    );
    expect(opener.open('https://example.org/1')).toBe(true);
    now += 10;
    expect(opener.open('https://example.org/2')).toBe(false);
    now += OPEN_INTERVAL_MS;
    expect(opener.open('https://example.org/3')).toBe(true);
    expect(opened).toEqual(['https://example.org/1', 'https://example.org/3']);
  });

  it('hands the normalised address to shell.openExternal, and survives its failure', async () => {
    openExternal.mockImplementationOnce(() => Promise.reject(new Error('no browser')));
    const opener = createLinkOpener();
    expect(opener.open('HTTPS://Example.org/a%20b')).toBe(true);
    expect(openExternal).toHaveBeenCalledWith('https://example.org/a%20b');
    await Promise.resolve();
  });
});

describe('the one permission the session grants', () => {
  it('lets our page write the clipboard, and nothing else', () => {
    expect(mayWriteClipboard('clipboard-sanitized-write', 'app://tidy/index.html')).toBe(true);
    expect(mayWriteClipboard('clipboard-sanitized-write', 'app://tidy')).toBe(true);
    expect(mayWriteClipboard('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(mayWriteClipboard('clipboard-sanitized-write', 'not a url')).toBe(false);
    for (const permission of ['clipboard-read', 'notifications', 'media', 'openExternal', 'geolocation']) {
      expect(mayWriteClipboard(permission, 'app://tidy/index.html')).toBe(false);
    }
  });
});
