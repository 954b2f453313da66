import { loadConfig, resolveJwtSecret } from '../config/load.js'
import type { ResolvedConfig } from '../config/schema.js'
import { unfilteredChangesCursor } from '../http/cursors/changes-cursor.js'
import { createServices, type Services } from '../services/index.js'
import { MemoryCounterStore } from '../storage/counters/memory-counter-store.js'
import type { Store } from '../storage/db.js'
import { migrateToLatest } from '../storage/migrate.js'
import { openStore } from '../storage/open-store.js'
import type { CliIo } from './io.js'

export interface CommandContext {
  config: ResolvedConfig
  store: Store
  services: Services
}

export interface ServicesOptions {
  /**
   * Only `migrate`, `serve` and `demo` may create a store; every other command refuses a missing
   * SQLite file with one line naming its path (src/storage/open-store.ts).
   */
  create?: boolean
}

/**
 * Runs a command body with the configured store and the same services the HTTP API uses, and
 * always closes the store afterwards, so no CLI path leaves a pool open. The store must exist
 * (unless `create`) and answer; the schema is then brought up to date, so a command run right
 * after an upgrade works on the new schema.
 * Commands count nothing, so their services keep rate-limit state in memory (no Redis needed).
 */
export async function withServices<T> (io: CliIo, run: (context: CommandContext) => Promise<T>, options: ServicesOptions = {}): Promise<T> {
  const loaded = loadConfig(io.env)
  // Opened before the JWT secret is resolved: resolving may write into the data folder, which
  // must not appear for a store that is refused.
  const store = await openStore(loaded.database, { create: options.create === true })
  try {
    const config = resolveJwtSecret(loaded)
    await migrateToLatest(store)
    const services = createServices({ config, store, counters: new MemoryCounterStore(), changesCursor: unfilteredChangesCursor(config.jwtSecret) })
    return await run({ config, store, services })
  } finally {
    await store.destroy()
  }
}
