/** User settings: each key with its schema, allowed range and default. `tidy config` and the UI use these. */
import { z } from 'zod';
import { Accelerator } from './accelerator';
import { McpServers } from './mcp';
import { WEEKDAYS, type Weekday } from './calendar';
import { BaseUrl, DEFAULT_PROFILE_ID, DEFAULT_PROFILES, ModelName, ProfileId } from './providers';

export const Protocol = z.enum(['auto', 'native', 'json']);
export type Protocol = z.infer<typeof Protocol>;

const bool = z.union([z.boolean(), z.enum(['true', 'false', 'on', 'off', 'yes', 'no']).transform((s) => ['true', 'on', 'yes'].includes(s))]);
/** A number, or the text of one (from the CLI); never [], null, "" or [150], which Number() would turn into numbers. */
const numeric = (min: number, max: number) =>
  z.union([z.number(), z.string().trim().regex(/^-?\d+(\.\d+)?$/, `must be a number from ${min} to ${max}`).transform(Number)], {
    error: `must be a number from ${min} to ${max}`,
  });
const int = (min: number, max: number) =>
  numeric(min, max).pipe(z.number().int(`must be a whole number from ${min} to ${max}`).min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`));
const num = (min: number, max: number) => numeric(min, max).pipe(z.number().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`));

/** A time of day, HH:MM (24 hours). */
const clock = z.string().trim().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM, e.g. 09:00');
/** Days of the week: an array, or the CLI's comma-separated text ("mon,tue,wed"). */
const workDays = z
  .union([z.array(z.string()), z.string().transform((s) => s.split(/[\s,]+/).filter(Boolean))])
  .pipe(
    z
      .array(z.string().trim().toLowerCase().transform((d) => d.slice(0, 3)).pipe(z.enum(WEEKDAYS, { error: 'days are mon, tue, wed, thu, fri, sat, sun' })))
      .min(1, 'name at least one day')
      .max(7),
  )
  .transform((days) => WEEKDAYS.filter((d) => days.includes(d)));

/** A tool's name: lower_snake_case, starting with a letter (so never `__proto__`). */
export const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/** Per tool: pause the run and ask the user first, or run it without asking. */
export const ApprovalPolicy = z.enum(['ask', 'auto']);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

/** A MediaWiki site: http(s), no credentials, query or fragment; stored without a trailing slash. */
const WikipediaUrl = z
  .string()
  .trim()
  .max(500)
  .transform((input, ctx) => {
    let u: URL;
    try {
      u = new URL(input);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a URL like https://en.wikipedia.org' });
      return z.NEVER;
    }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash) {
      ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL without a user name, password, query or fragment' });
      return z.NEVER;
    }
    return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
  });

export const SETTINGS = {
  /** The active provider profile (`tidy config profile use ID`); baseUrl and model are that profile's. */
  profile: { schema: ProfileId, default: DEFAULT_PROFILE_ID as string, help: 'the active provider profile (tidy config profile list)' },
  baseUrl: { schema: BaseUrl, default: DEFAULT_PROFILES[0]!.baseUrl, help: "the active profile's OpenAI-compatible endpoint" },
  model: { schema: ModelName, default: DEFAULT_PROFILES[0]!.model, help: "the model name the active profile's endpoint knows" },
  protocol: { schema: Protocol, default: 'auto' as Protocol, help: 'native tool calls, the json ReAct format, or auto' },
  temperature: { schema: num(0, 2), default: 0.2, help: 'sampling temperature, 0 to 2' },
  maxTokens: { schema: int(16, 32_000), default: 1024, help: 'max response tokens per model call' },
  historyLength: { schema: int(2, 200), default: 15, help: 'messages of history sent to the model' },
  contextTokens: {
    schema: int(2_000, 2_000_000),
    default: 16_000,
    help: "tokens a request may use before the run's oldest tool results are shortened (the model's context window or less)",
  },
  maxActions: { schema: int(1, 200), default: 20, help: 'tool calls allowed per request' },
  timeLimitSec: { schema: int(5, 3600), default: 120, help: 'seconds allowed per request' },
  stream: { schema: bool, default: true as boolean, help: 'stream the answer as it is written' },
  bulkApproval: {
    schema: int(0, 10_000),
    default: 25,
    help: 'ask once when a request would change more than this many existing items (0: never ask)',
  },
  approvals: {
    schema: z.record(z.string().regex(TOOL_NAME, 'tool names are lower_snake_case').max(100), ApprovalPolicy),
    // Each tool declares its own default (src-main/core/tools); this holds the user's choices over them.
    default: {} as Record<string, ApprovalPolicy>,
    help: 'per tool: ask before running it, or auto (set one with approvals.<tool> ask|auto)',
  },
  wikipedia: {
    schema: bool,
    default: false as boolean,
    help: 'offer the agent the wikipedia tool (on sends its queries to wikipediaUrl)',
  },
  wikipediaUrl: {
    schema: WikipediaUrl,
    default: 'https://en.wikipedia.org',
    help: 'the MediaWiki site the wikipedia tool asks (its API is /w/api.php below it), e.g. https://de.wikipedia.org',
  },
  mcpServers: {
    schema: McpServers,
    default: {} as McpServers,
    help: 'MCP servers whose tools the agent may use (tidy mcp add|list|remove)',
  },
  workStart: { schema: clock, default: '09:00', help: 'start of working hours (HH:MM), for finding free time' },
  workEnd: { schema: clock, default: '17:00', help: 'end of working hours (HH:MM), for finding free time' },
  workDays: {
    schema: workDays,
    default: ['mon', 'tue', 'wed', 'thu', 'fri'] as Weekday[],
    help: 'working days, e.g. mon,tue,wed,thu,fri',
  },
  planMinBlock: { schema: int(5, 240), default: 25, help: 'planning: the shortest block of time a task gets, in minutes' },
  planBuffer: { schema: int(0, 120), default: 5, help: 'planning: free minutes kept between two planned blocks' },
  planDefaultDuration: { schema: int(5, 480), default: 30, help: 'planning: minutes assumed for a task without a duration' },
  planSplit: { schema: bool, default: true, help: 'planning: whether a long task may be split into blocks (each at least planMinBlock)' },
  memory: {
    schema: bool,
    default: true as boolean,
    help: 'memory: the agent reads the memories that apply and may remember what you tell it (off: neither)',
  },
  memoryTokens: {
    schema: int(0, 20_000),
    default: 800,
    help: "tokens of memories a request's prompt may carry; the oldest that fit go in, the rest are left out (the Memory page says so)",
  },
  quickCaptureShortcut: {
    schema: Accelerator,
    default: 'CommandOrControl+Shift+Space',
    help: 'global shortcut of the quick-capture window (an Electron accelerator)',
  },
  keepInTray: {
    schema: bool,
    default: true as boolean,
    help: 'desktop app: keep Tidy running in the tray when the window closes, so routines keep running (off: closing the window quits)',
  },
} as const;

export type SettingKey = keyof typeof SETTINGS;
type Widen<D> = D extends boolean ? boolean : D extends number ? number : D extends string ? string : D;
export type Settings = { [K in SettingKey]: Widen<(typeof SETTINGS)[K]['default']> };

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

// Own keys only: `constructor` or `__proto__` are not settings.
export const isSettingKey = (k: string): k is SettingKey => Object.hasOwn(SETTINGS, k);

export const DEFAULT_SETTINGS = Object.fromEntries(SETTING_KEYS.map((k) => [k, SETTINGS[k].default])) as Settings;
