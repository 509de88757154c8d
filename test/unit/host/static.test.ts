import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, resolveStaticFile } from '../../../src-main/host/static';

const root = resolve('/srv/renderer');

describe('serving the renderer', () => {
  it('maps / to index.html and assets to their files with their types', () => {
    expect(resolveStaticFile(root, '/')).toEqual({ file: join(root, 'index.html'), type: 'text/html; charset=utf-8' });
    expect(resolveStaticFile(root, '/assets/index-abc.js')).toEqual({ file: join(root, 'assets/index-abc.js'), type: 'text/javascript; charset=utf-8' });
  });

  it('never leaves the folder and serves no unknown file types', () => {
    for (const path of ['/../package.json', '/..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd.txt', '/assets/..%5c..%5cx.js', '/x.js%00.png', '/%E0%A4%A', '/db.sqlite', '/.env']) {
      expect(resolveStaticFile(root, path), path).toBeNull();
    }
  });

  it('has a CSP without remote content, inline scripts, eval or framing', () => {
    const csp = contentSecurityPolicy(['ws://127.0.0.1:5000']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|\*/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self' ws://127.0.0.1:5000");
  });
});
