import { loadConfig, resolveJwtSecret } from '../config/load.js'
import type { ResolvedConfig } from '../config/schema.js'
import { createServices, type Services } from '../services/index.js'
import { MemoryCounterStore } from '../storage/counters/counter-store.js'
import { createStore, type Store } from '../storage/db.js'
import { migrateToLatest } from '../storage/migrate.js'
import type { CliIo } from './io.js'

export interface CommandContext {
  config: ResolvedConfig
  store: Store
  services: Services
}

/**
 * Runs a command body with the configured store and the same services the HTTP API uses, and
 * always closes the store afterwards, so no CLI path leaves a pool open. The schema is brought
 * up to date first: every command may be the first thing an operator runs on a new database.
 * Commands count nothing, so their services keep rate-limit state in memory (no Redis needed).
 */
export async function withServices<T> (io: CliIo, run: (context: CommandContext) => Promise<T>): Promise<T> {
  const config = resolveJwtSecret(loadConfig(io.env))
  const store = createStore(config.database)
  try {
    await migrateToLatest(store)
    const services = createServices({ config, store, counters: new MemoryCounterStore() })
    return await run({ config, store, services })
  } finally {
    await store.destroy()
  }
}
