import type { Store } from '../../storage/db.js'
import { rebuildReadModel as rebuildStoredReadModel } from '../../storage/read-model/rebuild.js'
import { renderBrandDayEntry } from './entries.js'

/**
 * Sums the whole read model again from the raw rows, rendering every brand-day's daily entry
 * (docs/storage.md "Read model"). The import keeps it current by itself; this is for rows written
 * by other means (test fixtures that insert raw rows, a repair by hand).
 */
export async function rebuildReadModel (store: Store): Promise<void> {
  await rebuildStoredReadModel(store, renderBrandDayEntry)
}
