/**
 * Serving the built renderer (out/renderer), shared by the web host and the Electron app's app:// protocol:
 * safe path resolution (nothing outside the folder) and the security headers of every response.
 */
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file a URL path names inside `root` (`/` is index.html), or null for anything outside it or of an unknown type. */
export function resolveStaticFile(root: string, urlPath: string): { file: string; type: string } | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  if (path === '/' || path === '') path = '/index.html';
  const base = resolve(root);
  const file = resolve(base, `.${path}`);
  if (!file.startsWith(base + sep)) return null;
  const type = CONTENT_TYPES[extname(file).toLowerCase()];
  return type ? { file, type } : null;
}

/** The renderer's Content-Security-Policy: its own scripts only, no remote content, no framing. */
export function contentSecurityPolicy(connectSrc: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Stylesheets from the bundle only; React's style props go through the CSSOM, which CSP does not block.
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSrc].join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers for every response of the renderer, whichever host serves it. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=(), payment=()',
    'Cache-Control': 'no-store',
  };
}
