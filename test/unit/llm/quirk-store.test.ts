import { describe, expect, it } from 'vitest';
import { QUIRKS_TTL_MS, quirkMemory, readQuirks, writeQuirks } from '../../../src-main/core/llm/quirk-store';
import { DEFAULT_QUIRKS, mergeQuirks, type Quirks } from '../../../src-main/core/llm/quirks';
import { tempDb } from '../../support/db';

const endpoint = { baseUrl: 'http://127.0.0.1:8080/v1', model: 'default' };
const learnt = (change: Partial<Quirks>): Quirks => ({ ...DEFAULT_QUIRKS, ...change });

describe('quirk store', () => {
  it('keeps one record per endpoint in normal form and model', () => {
    const { db } = tempDb();
    writeQuirks(db, { baseUrl: 'HTTP://127.0.0.1.:8080/v1/', model: 'default' }, learnt({ streamWithTools: false }));
    expect(readQuirks(db, endpoint)).toEqual(learnt({ streamWithTools: false }));
    expect(readQuirks(db, { ...endpoint, model: 'other' })).toBeUndefined();
    expect(db.prepare('SELECT base_url FROM model_quirks').all()).toEqual([{ base_url: 'http://127.0.0.1:8080/v1' }]);
  });

  it('merges with what another process learnt meanwhile: a quirk learnt by either stays learnt', () => {
    const { db } = tempDb();
    const a = quirkMemory(db, endpoint);
    const b = quirkMemory(db, endpoint);
    expect(a.load()).toBeUndefined();
    a.save(learnt({ temperature: false }));
    b.save(learnt({ maxTokensParam: 'max_completion_tokens' }));
    expect(a.load()).toEqual(learnt({ temperature: false, maxTokensParam: 'max_completion_tokens' }));
    expect(mergeQuirks({ streamOptions: false }, {})).toEqual(learnt({ streamOptions: false }));
  });

  it('trusts a record for 30 days, then asks the default way again', () => {
    const { db } = tempDb();
    let now = Date.parse('2026-03-01T00:00:00Z');
    const clock = { now: () => now };
    writeQuirks(db, endpoint, learnt({ streamOptions: false }), clock);
    now += QUIRKS_TTL_MS - 1000;
    expect(readQuirks(db, endpoint, clock)).toEqual(learnt({ streamOptions: false }));
    now += 2000;
    expect(readQuirks(db, endpoint, clock)).toBeUndefined();
    // A stale record is relearnt from scratch, not merged into.
    writeQuirks(db, endpoint, learnt({ temperature: false }), clock);
    expect(readQuirks(db, endpoint, clock)).toEqual(learnt({ temperature: false }));
  });

  it('a damaged record reads as what can be read of it, never as an error', () => {
    const { db } = tempDb();
    const put = db.prepare('INSERT OR REPLACE INTO model_quirks (base_url, model, quirks, updated_at) VALUES (?, ?, ?, ?)');
    const now = new Date().toISOString();
    put.run(endpoint.baseUrl, endpoint.model, '{"temperature": false, "maxTokensParam": "max_fancy_tokens", "streamOptions": "no"}', now);
    expect(readQuirks(db, endpoint)).toEqual({ temperature: false });
    for (const [quirks, at] of [['not json', now], ['[1,2]', now], ['null', now], ['{}', 'yesterday'], ['{"temperature":false}', '2999-01-01T00:00:00Z']]) {
      put.run(endpoint.baseUrl, endpoint.model, quirks, at);
      const r = readQuirks(db, endpoint);
      expect(r === undefined || Object.keys(r).length === 0, `${quirks} at ${at}`).toBe(true);
    }
    const memory = quirkMemory(db, endpoint);
    db.close();
    expect(memory.load()).toBeUndefined();
    expect(() => memory.save(learnt({ temperature: false }))).not.toThrow();
  });
});
