#!/usr/bin/env node
// Electronegativity (Doyensec's Electron security scanner) over the whole project, for CI: prints every
// finding and exits 1 on any that is not a reviewed manual-review note below, or on a file it cannot parse
// (a file it cannot parse is a file it did not check). Run `npx electron-vite build` first so that the
// built bundles in out/ are checked too.
//
// Why not `npx electronegativity -i .`: its 1.10.3 CLI requires `commander` without declaring it, gets
// the hoisted commander 14 and dies ("_commander2.default.version is not a function"). Its runner, which
// does the work, is fine; this calls it directly.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = require('@doyensec/electronegativity/dist/runner.js');
const electron = require('electron/package.json').version;

/**
 * Manual-review notes that were reviewed, with why they are fine. Anything else fails the run.
 * Keyed by check id and the finding's description, so a new kind of finding of the same check still fails.
 */
const REVIEWED = [
  {
    id: 'OPEN_EXTERNAL_JS_CHECK',
    why: 'src-main/app/links.ts is the only caller: it opens an address only after the main process checks it with liveLinkUrl (src-shared/links.ts: http, https and mailto only, no credentials or control characters, bounded length), at most once a second, for our own renderer; tested in test/unit/app/links.test.ts and test/unit/shared/links.test.ts.',
  },
  {
    id: 'PRELOAD_JS_CHECK',
    why: 'src-preload/index.ts exposes only invoke/on of the IPC contract, refuses unknown channel and event names, and never hands the page an Electron object; main parses every input and checks the sender frame (src-main/host/electron-ipc.ts).',
  },
  {
    id: 'CSP_GLOBAL_CHECK',
    description: /seems to be vulnerable/,
    why: "the only note is csp-evaluator's \"'self' can be problematic if you host JSONP, Angular or user uploaded files\": our origin (app://tidy, or 127.0.0.1:PORT for tidy serve) serves nothing but the built renderer bundle.",
  },
  {
    id: 'CSP_GLOBAL_CHECK',
    description: /^Failed to parse CSP/,
    why: 'the session-header CSP is built by contentSecurityPolicy() in src-main/host/static.ts, which a static scan cannot read; its value is the same strict policy, checked in test/unit/host/static.test.ts.',
  },
  {
    id: 'ELECTRON_VERSION_JSON_CHECK',
    why: `informational: Electron ${electron} is current; the release check that needs the network is skipped (CI is offline).`,
  },
];

const { issues, errors } = await run(
  {
    input: root,
    isRelative: true,
    electronVersionOverride: electron,
    customScan: [],
    // Fetches Electron's release list from GitHub: no network in CI, and the version is kept current by hand.
    excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
    parserPlugins: [],
  },
  false,
);

// The scanner's traversal predates ES2022 class private fields, which libraries bundled into the renderer
// use (the quick-add date parser). The renderer's sources are scanned as written (src-renderer), and the
// eslint layer rules (eslint.config.js) keep Electron out of the renderer, so this one error in the built
// renderer bundle is known and said; any other parse error fails the scan.
const privateFields = (e) => /out[\\/]renderer[\\/]assets[\\/]/.test(e.file) && /Unknown node type ClassPrivate(Property|Method)/.test(e.message);
let failed = 0;
for (const e of errors.filter((x) => !x.tolerable)) {
  if (privateFields(e)) {
    console.log(`reviewed  PARSE ERROR  ${e.file}: ${e.message}\n          why it is fine: ES2022 private fields in a bundled library; the renderer's own sources are scanned`);
    continue;
  }
  failed++;
  console.log(`PARSE ERROR  ${e.file}: ${e.message}`);
}
for (const i of issues) {
  const reviewed = i.manualReview && REVIEWED.find((r) => r.id === i.id && (!r.description || r.description.test(i.description)));
  if (!reviewed) failed++;
  console.log(
    `${reviewed ? 'reviewed' : 'FINDING '}  ${i.id} (${i.severity.name}, ${i.confidence.name})  ${i.file}:${i.location.line}  ${i.description}${reviewed ? `\n          why it is fine: ${reviewed.why}` : `\n          ${i.shortenedURL}`}`,
  );
}
console.log(`electronegativity: ${issues.length} note(s), ${failed} unreviewed finding(s) or parse error(s)`);
process.exit(failed ? 1 : 0);
