/**
 * Server quirks (quirks.ts) kept in SQLite per endpoint and model (table model_quirks), so a run starts
 * with what earlier runs learnt instead of relearning each quirk with a failing request.
 *
 * A record is trusted for QUIRKS_TTL_MS after it was last written: servers get upgraded (llama.cpp learnt
 * to stream with tools), and the only way to notice is to ask the default way again, which costs one
 * failing request a month at most. Two processes that learn different quirks at once both keep theirs:
 * writes merge with the stored record in one transaction.
 */
import { parseEndpointUrl } from '../../../src-shared/providers';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { mergeQuirks, Quirks, type QuirkMemory } from './quirks';

export const QUIRKS_TTL_MS = 30 * 24 * 60 * 60 * 1000;

interface QuirkStoreOptions {
  /** The clock, in ms since the epoch. */
  now?: () => number;
}

interface Key {
  baseUrl: string;
  model: string;
}

/** The endpoint as stored: its URL in normal form, so `HTTP://Host/v1/` and `http://host/v1` share a record. */
function key(endpoint: Key): Key {
  const e = parseEndpointUrl(endpoint.baseUrl);
  return { baseUrl: e.ok ? e.url : endpoint.baseUrl, model: endpoint.model };
}

/** The stored quirks of an endpoint and model, if a record is there, readable and fresh. */
export function readQuirks(db: Db, endpoint: Key, options: QuirkStoreOptions = {}): Partial<Quirks> | undefined {
  const k = key(endpoint);
  const row = cached(db, `SELECT quirks, updated_at AS updatedAt FROM model_quirks WHERE base_url = ? AND model = ?`).get(k.baseUrl, k.model) as
    | { quirks: unknown; updatedAt: unknown }
    | undefined;
  if (!row || typeof row.quirks !== 'string' || typeof row.updatedAt !== 'string') return undefined;
  const written = Date.parse(row.updatedAt);
  const now = (options.now ?? Date.now)();
  // A record from the future (a clock set back) is as doubtful as an old one.
  if (!Number.isFinite(written) || now - written > QUIRKS_TTL_MS || written - now > QUIRKS_TTL_MS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(row.quirks);
  } catch {
    return undefined;
  }
  // Field by field: one unreadable field (hand edited, or written by a newer Tidy) does not lose the others.
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Partial<Quirks> = {};
  for (const [field, schema] of Object.entries(Quirks.shape)) {
    const parsed = schema.safeParse((value as Record<string, unknown>)[field]);
    if (parsed.success) Object.assign(out, { [field]: parsed.data });
  }
  return out;
}

/** Records what was learnt, merged with what is stored (a quirk learnt by anyone stays learnt). */
export function writeQuirks(db: Db, endpoint: Key, quirks: Quirks, options: QuirkStoreOptions = {}): void {
  const k = key(endpoint);
  const now = (options.now ?? Date.now)();
  db.transaction(() => {
    const merged = mergeQuirks(readQuirks(db, k, options) ?? {}, quirks);
    cached(
      db,
      `INSERT INTO model_quirks (base_url, model, quirks, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(base_url, model) DO UPDATE SET quirks = excluded.quirks, updated_at = excluded.updated_at`,
    ).run(k.baseUrl, k.model, JSON.stringify(merged), new Date(now).toISOString());
  }).immediate();
}

/** The QuirkMemory of one endpoint and model, for createOpenAIModel. Never throws: a database error only means not remembering. */
export function quirkMemory(db: Db, endpoint: Key, options: QuirkStoreOptions = {}): QuirkMemory {
  return {
    load: () => {
      try {
        return db.open ? readQuirks(db, endpoint, options) : undefined;
      } catch {
        return undefined;
      }
    },
    save: (quirks) => {
      try {
        if (db.open) writeQuirks(db, endpoint, quirks, options);
      } catch {
        // Busy, read-only or full: this run still uses the quirk; the next one relearns it.
      }
    },
  };
}
