import { loadConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { createStore, type Store } from '../storage/db.js'
import { migrateToLatest } from '../storage/migrate.js'
import type { CliIo } from './io.js'

/**
 * Runs a command body against the configured store and always closes it afterwards, so no
 * CLI path leaves a pool open. The schema is brought up to date first: every command may
 * be the first thing an operator runs on a new database.
 */
export async function withStore<T> (io: CliIo, run: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env)
  const store = createStore(config.database)
  try {
    await migrateToLatest(store)
    return await run(store, config)
  } finally {
    await store.destroy()
  }
}
