import { sql } from 'kysely'
import type { Store } from '../db.js'

/**
 * Where a server is, as the replica check compares them (docs/operations.md "Read replicas"):
 * the change clock (the last sync id and event number committed there) and the WAL position —
 * the primary's current one, a standby's last replayed one.
 */
export interface Position {
  lastSyncId: number
  lastEventId: number
  /** WAL position as a number (pg_lsn `X/Y` is two 32-bit hex halves). */
  lsn: bigint
  /** True on a standby (in recovery); a primary-only function answers otherwise. */
  standby: boolean
}

interface PositionRow {
  last_sync_id: number
  last_event_id: number
  lsn: string | null
  standby: boolean
}

export function parseLsn (text: string): bigint {
  const [high = '0', low = '0'] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

/** The primary: its change clock and current WAL position. */
export async function primaryPosition (store: Store): Promise<Position> {
  const { rows } = await sql<PositionRow>`select last_sync_id, last_event_id, pg_current_wal_lsn()::text as lsn, false as standby from change_clock where singleton = 1`.execute(store.db)
  return positionOf(rows[0])
}

/** A standby: its change clock (what it has replayed) and its last replayed WAL position. */
export async function replicaPosition (store: Store): Promise<Position> {
  const { rows } = await sql<PositionRow>`select last_sync_id, last_event_id, pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as standby from change_clock where singleton = 1`.execute(store.db)
  return positionOf(rows[0])
}

function positionOf (row: PositionRow | undefined): Position {
  if (row === undefined) throw new Error('change_clock has no row (not migrated?)')
  return { lastSyncId: Number(row.last_sync_id), lastEventId: Number(row.last_event_id), lsn: row.lsn === null ? -1n : parseLsn(row.lsn), standby: row.standby }
}

/** Holds every import and event the primary had: the rule that lets a replica serve reads. */
export function holdsEverything (replica: Position, primary: Position): boolean {
  return replica.lastSyncId >= primary.lastSyncId && replica.lastEventId >= primary.lastEventId
}

/**
 * The primary's WAL positions at recent checks, to say how long a standby has been missing WAL
 * the primary had: the age of the oldest check whose position it has not replayed. Kept for
 * `keepMs`, so a standby missing the oldest kept one is at least that far behind.
 */
export class LagClock {
  private readonly marks: Array<{ at: number, lsn: bigint }> = []

  constructor (private readonly keepMs: number) {}

  mark (at: number, lsn: bigint): void {
    this.marks.push({ at, lsn })
    while (this.marks.length > 1 && (this.marks[0]?.at ?? 0) < at - this.keepMs) this.marks.shift()
  }

  lagMs (replayed: bigint, now: number): number {
    const missing = this.marks.find((mark) => mark.lsn > replayed)
    return missing === undefined ? 0 : Math.max(0, Math.round(now - missing.at))
  }
}
