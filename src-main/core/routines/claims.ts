/**
 * Which device runs a routine while sync is on: a claim that syncs (`routine_claims`, migration 18), one
 * row per routine and device, written only by that device — {stamp, claimed_at, until}. The live claim
 * (until later than now) with the earliest stamp holds the routine; a device runs a due routine only
 * while it holds it. The stamp is the device's sync clock (a hybrid logical clock), so a claim made after
 * another was received is always later and loses; two made at once are ordered by their stamps the same
 * way on every device. The holder renews its claim while it runs (so one device keeps a routine), and
 * when it stops syncing its claim expires and another device takes over.
 *
 * A new claim does not run at once: it waits until it has been sent and a round that ended at least
 * `settleMs` after the claim was made has read the others' claims. Storage is read after it is written in
 * every round, so of two devices claiming at once at least one sees the other's claim before it runs;
 * the settle time covers the other (a claim sent within it of the check before it is seen too).
 * With sync off, or no other device known, a routine runs where it is due (and the claim is written, so
 * a device that joins later sees it).
 */
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { HlcClock } from '../sync/hlc';

/** How long a claim holds without being renewed (the holder renews it when half is left). */
const CLAIM_LEASE_MS = 60 * 60_000;
/** How long a new claim waits (and needs a round after that) before its routine runs. */
const CLAIM_SETTLE_MS = 2 * 60_000;

export interface ClaimOptions {
  leaseMs?: number;
  settleMs?: number;
  /** The real clock the sync rounds record their time with (tests keep it; the routine clock may be far). */
  wall?: () => number;
}

type ClaimAnswer = { run: true } | { run: false; reason: 'wait' } | { run: false; reason: 'other'; device: string; name: string | null };

interface ClaimRow {
  id: string;
  device: string;
  stamp: string;
  claimed_at: string;
  until: string;
}

interface SyncState {
  device: string;
  clock: string;
  last_synced_at: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const hasTable = (db: Db, name: string): boolean => cached(db, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;

function syncState(db: Db): SyncState | null {
  if (!hasTable(db, 'sync_state') || !hasTable(db, 'routine_claims')) return null;
  return (cached(db, `SELECT device, clock, last_synced_at FROM sync_state WHERE id = 1`).get() as SyncState | undefined) ?? null;
}

const claimId = (routineId: string, device: string): string => `${routineId}@${device}`;

/** A new claim of this device (stamped from the sync clock, which moves past it). */
function writeClaim(db: Db, s: SyncState, routineId: string, now: number, wall: number, leaseMs: number): void {
  const clock = new HlcClock(s.device, () => wall, undefined, s.clock);
  const stamp = clock.stampAt(wall);
  cached(db, `UPDATE sync_state SET clock = ? WHERE id = 1`).run(clock.current);
  cached(
    db,
    `INSERT INTO routine_claims (id, routine_id, device, stamp, claimed_at, until) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET stamp = excluded.stamp, claimed_at = excluded.claimed_at, until = excluded.until`,
  ).run(claimId(routineId, s.device), routineId, s.device, stamp, iso(wall), iso(now + leaseMs));
}

/**
 * Whether this device may run a due routine now (and the claim it writes or renews for that). Call it
 * inside the transaction that records the run, or alone.
 */
export function routineClaim(db: Db, routineId: string, now: number, options: ClaimOptions = {}): ClaimAnswer {
  const s = syncState(db);
  if (!s) return { run: true };
  const leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
  const settleMs = options.settleMs ?? CLAIM_SETTLE_MS;
  const wall = (options.wall ?? Date.now)();
  return db
    .transaction((): ClaimAnswer => {
      const others = cached(db, `SELECT COUNT(*) AS n FROM sync_devices WHERE device != ? AND forgotten = 0`).get(s.device) as { n: number };
      const live = cached(db, `SELECT id, device, stamp, claimed_at, until FROM routine_claims WHERE routine_id = ? AND until > ? ORDER BY stamp, device`).all(routineId, iso(now)) as ClaimRow[];
      const winner = live[0];
      if (others.n === 0 && (!winner || winner.device === s.device)) {
        // alone: runs where it is due; the claim tells a device that joins later
        if (!winner || Date.parse(winner.until) - now < leaseMs / 2) writeClaim(db, s, routineId, now, wall, leaseMs);
        return { run: true };
      }
      if (!winner) {
        writeClaim(db, s, routineId, now, wall, leaseMs);
        return { run: false, reason: 'wait' };
      }
      if (winner.device !== s.device) {
        const name = (cached(db, `SELECT name FROM sync_devices WHERE device = ?`).get(winner.device) as { name: string | null } | undefined)?.name ?? null;
        return { run: false, reason: 'other', device: winner.device, name };
      }
      // the claim itself (its stamp) has been sent; a renewal (until) that has not yet is no matter
      const unsent = cached(db, `SELECT 1 FROM sync_outbox WHERE tbl = 'routine_claims' AND row = ? AND col = 'stamp' LIMIT 1`).get(winner.id) !== undefined;
      const settled = !unsent && s.last_synced_at !== null && Date.parse(s.last_synced_at) >= Date.parse(winner.claimed_at) + settleMs;
      if (!settled) return { run: false, reason: 'wait' };
      if (Date.parse(winner.until) - now < leaseMs / 2)
        cached(db, `UPDATE routine_claims SET until = ? WHERE id = ?`).run(iso(now + leaseMs), winner.id);
      return { run: true };
    })
    .immediate();
}

/** Renews this device's claims that hold their routines and are half used (each scheduler tick), so the device keeps them. */
export function renewClaims(db: Db, now: number, options: ClaimOptions = {}): void {
  const s = syncState(db);
  if (!s) return;
  const leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
  const mine = cached(db, `SELECT id, routine_id, until FROM routine_claims WHERE device = ? AND until > ? AND until < ?`).all(s.device, iso(now), iso(now + leaseMs / 2)) as {
    id: string;
    routine_id: string;
  }[];
  for (const c of mine) {
    const first = cached(db, `SELECT device FROM routine_claims WHERE routine_id = ? AND until > ? ORDER BY stamp, device LIMIT 1`).get(c.routine_id, iso(now)) as { device: string };
    if (first.device === s.device) cached(db, `UPDATE routine_claims SET until = ? WHERE id = ?`).run(iso(now + leaseMs), c.id);
  }
}
