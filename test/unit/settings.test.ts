import { describe, expect, it } from 'vitest';
import { readSettings, writeSetting } from '../../src-main/core';
import { parseAccelerator } from '../../src-shared/accelerator';
import type { SETTINGS } from '../../src-shared/settings';
import { DEFAULT_SETTINGS } from '../../src-shared/settings';
import { okValue, tempDb } from '../support/db';

describe('settings: validated, with the allowed range in the refusal', () => {
  it('working hours and days: HH:MM, and days from text or a list, in week order', () => {
    const { db } = tempDb();
    expect(writeSetting(db, 'workStart', '08:30')).toMatchObject({ ok: true, value: '08:30' });
    expect(writeSetting(db, 'workEnd', '25:00')).toMatchObject({ ok: false });
    expect(writeSetting(db, 'workDays', 'fri, Monday,wed')).toMatchObject({ ok: true, value: ['mon', 'wed', 'fri'] });
    expect(writeSetting(db, 'workDays', 'funday')).toMatchObject({ ok: false });
    expect(writeSetting(db, 'workDays', [])).toMatchObject({ ok: false });
  });

  it('defaults', () => {
    const { db } = tempDb();
    expect(readSettings(db)).toEqual({
      profile: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      protocol: 'auto',
      temperature: 0.2,
      maxTokens: 1024,
      historyLength: 15,
      contextTokens: 16_000,
      maxActions: 20,
      bulkApproval: 25,
      timeLimitSec: 120,
      stream: true,
      // the user's choices only: each tool declares its own default (core/tools)
      approvals: {},
      // nothing leaves the machine beyond the model endpoint until the user turns it on
      wikipedia: false,
      wikipediaUrl: 'https://en.wikipedia.org',
      mcpServers: {},
      // memory on, within 800 tokens of the prompt
      memory: true,
      memoryTokens: 800,
      quickCaptureShortcut: 'CommandOrControl+Shift+Space',
      workStart: '09:00',
      workEnd: '17:00',
      workDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      planMinBlock: 25,
      planBuffer: 5,
      planDefaultDuration: 30,
      planSplit: true,
      // the desktop app stays in the tray when its window closes, so routines keep running
      keepInTray: true,
    });
    expect(readSettings(db)).toEqual({ ...DEFAULT_SETTINGS });
  });

  it.each([
    ['temperature', '2.5', 'must be from 0 to 2'],
    ['temperature', '-0.1', 'must be from 0 to 2'],
    ['temperature', 'hot', 'must be a number from 0 to 2'],
    ['maxTokens', '8', 'must be from 16 to 32000'],
    ['maxTokens', '100000', 'must be from 16 to 32000'],
    ['maxTokens', '512.5', 'must be a whole number from 16 to 32000'],
    ['historyLength', '1', 'must be from 2 to 200'],
    ['maxActions', '0', 'must be from 1 to 200'],
    ['maxActions', '201', 'must be from 1 to 200'],
    ['timeLimitSec', '4', 'must be from 5 to 3600'],
    ['timeLimitSec', '3601', 'must be from 5 to 3600'],
    ['protocol', 'xml', 'auto'],
    ['stream', 'maybe', ''],
    ['approvals.complete_task', 'never', ''],
    ['quickCaptureShortcut', 'Space', 'needs a modifier'],
    ['baseUrl', 'ftp://x', 'must be an http(s) URL'],
    ['model', '  ', 'must not be empty'],
  ])('%s %s is refused (%s) and nothing changes', (key, value, why) => {
    const { db } = tempDb();
    const before = readSettings(db);
    const r = writeSetting(db, key, value);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain(why);
      expect(r.error).toContain(JSON.stringify(value));
      expect(r.hint).not.toBe('');
    }
    expect(readSettings(db)).toEqual(before);
  });

  it.each([
    ['temperature', '0', 0],
    ['temperature', '2', 2],
    ['maxTokens', '16', 16],
    ['maxTokens', '32000', 32000],
    ['historyLength', '200', 200],
    ['maxActions', '1', 1],
    ['timeLimitSec', '3600', 3600],
    ['protocol', 'json', 'json'],
    ['stream', 'off', false],
    ['stream', true, true],
    ['quickCaptureShortcut', 'cmdorctrl+alt+t', 'CommandOrControl+Alt+T'],
  ])('%s %s is accepted at the edge of its range as %s', (key, value, stored) => {
    const { db } = tempDb();
    expect(okValue(writeSetting(db, key, value))).toEqual(stored);
    expect(readSettings(db)[key as keyof typeof SETTINGS]).toEqual(stored);
  });

  it('approvals are set per tool', () => {
    const { db } = tempDb();
    okValue(writeSetting(db, 'approvals.complete_task', 'auto'));
    expect(readSettings(db).approvals).toEqual({ complete_task: 'auto' });
  });

  it('an unknown key names the known ones', () => {
    const { db } = tempDb();
    const r = writeSetting(db, 'apiKey', 'sk-1');
    expect(r).toMatchObject({ ok: false, error: "unknown setting 'apiKey'" });
  });
});

describe('parseAccelerator (Electron accelerators for the global quick-capture shortcut)', () => {
  it.each([
    ['CommandOrControl+Shift+Space', 'CommandOrControl+Shift+Space'],
    ['CmdOrCtrl+Shift+Space', 'CommandOrControl+Shift+Space'],
    ['ctrl+alt+delete', 'Control+Alt+Delete'],
    ['Super+Plus', 'Super+Plus'],
    ['Alt+F4', 'Alt+F4'],
    ['F12', 'F12'],
    ['Shift+F7', 'Shift+F7'],
    ['Control+num5', 'Control+num5'],
    ['Alt+/', 'Alt+/'],
    ['Option+Return', 'Option+Return'],
    [' Meta + k ', 'Meta+K'],
  ])('%s → %s', (text, canonical) => expect(parseAccelerator(text)).toEqual({ ok: true, value: canonical }));

  it.each([
    ['', 'empty part'],
    ['Ctrl+', 'empty part'],
    ['Ctrl++', 'empty part'],
    ['A', 'needs a modifier'],
    ['Shift+A', 'needs a modifier'],
    ['Ctrl+Shift', 'has no key'],
    ['Ctrl+A+B', 'has two keys'],
    ['A+Ctrl', 'modifiers come before the key'],
    ['Ctrl+Ctrl+A', 'repeats the modifier'],
    ['Ctrl+Hyper+A', '"Hyper" is not a key'],
    ['Ctrl+F25', '"F25" is not a key'],
  ])('%s is refused: %s', (text, why) => {
    const r = parseAccelerator(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });
});

describe('settings: hostile keys and values', () => {
  it.each([[[]], [null], [''], [[150]], [{}], ['1e3'], ['  '], [true], [Number.NaN], [Number.POSITIVE_INFINITY]])('maxActions %j is refused and nothing changes', (value) => {
    const { db } = tempDb();
    const before = readSettings(db);
    const r = writeSetting(db, 'maxActions', value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^maxActions .* is not allowed: must be a (whole )?number from 1 to 200/);
    expect(readSettings(db)).toEqual(before);
  });

  it('takes numbers and their text', () => {
    const { db } = tempDb();
    okValue(writeSetting(db, 'maxActions', 150));
    okValue(writeSetting(db, 'temperature', ' 0.7 '));
    expect(readSettings(db)).toMatchObject({ maxActions: 150, temperature: 0.7 });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('%s is not a setting', (key) => {
    const { db } = tempDb();
    const r = writeSetting(db, key, '1');
    expect(r).toMatchObject({ ok: false, error: `unknown setting '${key}'` });
  });

  it.each(['approvals.__proto__', 'approvals.constructor_', 'approvals.9lives', 'approvals.'])('%s cannot poison the approvals', (key) => {
    const { db } = tempDb();
    const r = writeSetting(db, key, 'auto');
    if (key === 'approvals.constructor_') {
      expect(r.ok).toBe(true);
      expect(Object.getPrototypeOf(readSettings(db).approvals)).toBe(Object.prototype);
      return;
    }
    expect(r.ok).toBe(false);
    expect(readSettings(db).approvals).toEqual({});
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('settings: wikipedia and MCP servers', () => {
  it('takes a MediaWiki site as an http(s) origin and path, and refuses credentials, queries and other schemes', () => {
    const { db } = tempDb();
    expect(okValue(writeSetting(db, 'wikipediaUrl', 'https://de.wikipedia.org/'))).toBe('https://de.wikipedia.org');
    expect(okValue(writeSetting(db, 'wikipediaUrl', 'http://127.0.0.1:8080/mirror/'))).toBe('http://127.0.0.1:8080/mirror');
    for (const bad of ['file:///etc/passwd', 'https://u:p@wiki.example', 'https://wiki.example/?x=1', 'javascript:alert(1)', 'not a url', 42]) {
      expect(writeSetting(db, 'wikipediaUrl', bad).ok).toBe(false);
    }
    expect(okValue(writeSetting(db, 'wikipedia', 'on'))).toBe(true);
  });

  it('checks MCP servers: names, commands, URLs, environment names, and how many', () => {
    const { db } = tempDb();
    expect(writeSetting(db, 'mcpServers', { notes: { command: 'npx', args: ['-y', 'notes'], env: { NOTES_DIR: '/tmp' } }, web: { url: 'https://mcp.example/mcp' } }).ok).toBe(true);
    expect(readSettings(db).mcpServers['notes']).toEqual({ command: 'npx', args: ['-y', 'notes'], env: { NOTES_DIR: '/tmp' }, enabled: true });
    const refused = [
      { 'Bad Name': { command: 'x' } },
      { a__b: { command: 'x' } },
      { x: { command: '' } },
      { x: { url: 'ftp://mcp.example' } },
      { x: { url: 'https://user:pw@mcp.example/mcp' } },
      { x: { command: 'x', url: 'https://mcp.example' } },
      { x: { command: 'x', env: { 'BAD NAME': '1' } } },
      { x: { command: 'x', args: Array(101).fill('a') } },
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`s${i}`, { command: 'x' }])),
    ];
    for (const value of refused) expect(writeSetting(db, 'mcpServers', value).ok, JSON.stringify(value).slice(0, 80)).toBe(false);
    expect(Object.keys(readSettings(db).mcpServers)).toEqual(['notes', 'web']);
    // A `__proto__` key (JSON.parse makes it an own key) is dropped, never a server nor a prototype.
    expect(writeSetting(db, 'mcpServers', JSON.parse('{"__proto__": {"command": "x"}}') as unknown).ok).toBe(true);
    const after = readSettings(db).mcpServers;
    expect(Object.keys(after)).toEqual([]);
    expect(Object.getPrototypeOf(after)).toBe(Object.prototype);
  });
});
