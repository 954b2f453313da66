import { AppError } from '../../domain/errors.js'
import type { Sync } from '../../domain/syncs.js'
import type { Store } from '../../storage/db.js'
import { findSync, listSyncs } from '../../storage/repositories/syncs.repository.js'

/**
 * The imports that committed, as operators see them (`imports list`, `imports show`;
 * docs/import.md "Syncs"). Paged newest first: a page ends with the id to ask `before` next.
 */

export const SYNC_PAGE_DEFAULT = 20
export const SYNC_PAGE_MAX = 100

export interface SyncPage {
  syncs: Sync[]
  /** Older syncs exist. */
  hasMore: boolean
  /** The `before` of the next page (the last sync id of this one) when there is one. */
  nextBefore: number | null
}

export interface SyncsService {
  list: (options?: { limit?: number, before?: number }) => Promise<SyncPage>
  /** One sync; NOT_FOUND when no sync has this id. */
  show: (syncId: number) => Promise<Sync>
}

export function createSyncsService (deps: { store: Store }): SyncsService {
  const { db } = deps.store
  return {
    list: async (options = {}) => {
      const limit = options.limit ?? SYNC_PAGE_DEFAULT
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > SYNC_PAGE_MAX) {
        throw new AppError('VALIDATION_ERROR', `The limit must be an integer from 1 to ${SYNC_PAGE_MAX} (got ${limit})`)
      }
      // One more than asked says whether an older page exists, without counting.
      const rows = await listSyncs(db, limit + 1, options.before)
      const syncs = rows.slice(0, limit)
      const hasMore = rows.length > limit
      return { syncs, hasMore, nextBefore: hasMore ? syncs.at(-1)?.syncId ?? null : null }
    },
    show: async (syncId) => {
      const sync = await findSync(db, syncId)
      if (sync === undefined) throw new AppError('NOT_FOUND', `No sync with id ${syncId}`)
      return sync
    },
  }
}
