import { Gauge, type Registry } from 'prom-client'
import { totalChanges, type Sync } from '../../domain/syncs.js'
import { readChangeClock } from '../../storage/changes/change-log.repository.js'
import type { Store } from '../../storage/db.js'
import { listSyncsAfter } from '../../storage/repositories/syncs.repository.js'
import { boundedRead } from './bounded-read.js'

/**
 * Imports run in the CLI, not in the server, so their metrics are read from what they commit
 * (docs/operations.md "Metrics"): the `syncs` table and `change_clock`, at scrape time, from the
 * primary, within IMPORT_READ_TIMEOUT_MS (a scrape never waits longer on the store; the gauges
 * then keep their last values). Syncs are read incrementally, at most SYNCS_PER_SCRAPE at a time,
 * so a scrape's work is bounded however many imports there were.
 */

export const IMPORT_READ_TIMEOUT_MS = 1000
const SYNCS_PER_SCRAPE = 1000

function seconds (from: string, to: string): number {
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000)
}

export function registerImportMetrics (registry: Registry, store: Store, now: () => number): void {
  let seenThrough = 0
  let committed = 0
  let rows = 0
  let last: Sync | undefined
  let lastSyncId = 0

  const refresh = async (): Promise<void> => {
    const clock = await readChangeClock(store.db)
    lastSyncId = clock.lastSyncId
    const syncs = await listSyncsAfter(store.db, seenThrough, SYNCS_PER_SCRAPE)
    for (const sync of syncs) {
      committed += 1
      rows += totalChanges(sync.counts.changed)
      seenThrough = sync.syncId
      last = sync
    }
  }

  // A scrape collects every gauge at once: they share one read of the tables, and a read that
  // outlives its scrape is joined by the next scrape rather than run twice (which would count twice).
  const fresh = boundedRead(refresh, IMPORT_READ_TIMEOUT_MS)

  // Every worker reads the same tables: the primary keeps one worker's values, not their sum.
  const gauge = (name: string, help: string, value: () => number): void => {
    // eslint-disable-next-line no-new -- registered on the registry, which owns it
    new Gauge({
      name,
      help,
      aggregator: 'max',
      registers: [registry],
      async collect () {
        await fresh()
        this.set(value())
      },
    })
  }
  gauge('pa_imports_committed', 'Imports committed (rows of the syncs table)', () => committed)
  gauge('pa_import_rows_committed', 'Rows the committed imports changed, summed', () => rows)
  gauge('pa_import_last_sync_id', 'The last committed sync id (change_clock)', () => lastSyncId)
  gauge('pa_import_last_sync_age_seconds', 'Seconds since the last committed import committed (-1: none yet)', () => last === undefined ? -1 : Math.max(0, (now() - Date.parse(last.committedAt)) / 1000))
  gauge('pa_import_last_duration_seconds', 'How long the last committed import took, start to commit (-1: none yet)', () => last === undefined ? -1 : seconds(last.startedAt, last.committedAt))
  gauge('pa_import_last_rows', 'Rows the last committed import changed (-1: none yet)', () => last === undefined ? -1 : totalChanges(last.counts.changed))
}
