import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { DatabaseConfig } from '../config/schema.js'
import { createStore, type Store } from './db.js'

/**
 * Opening the configured store for an operator command, with failures that name their cause:
 * an SQLite file that is not there (only the commands allowed to create a store may create one,
 * so a typo in DATABASE_URL never silently starts an empty database) and a PostgreSQL server
 * that does not answer (named by its DATABASE_URL, password hidden).
 */

export class StoreUnavailableError extends Error {
  /** `missing`: no SQLite file at the path; `unreachable`: the server did not answer. */
  readonly reason: 'missing' | 'unreachable'

  constructor (reason: 'missing' | 'unreachable', message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'StoreUnavailableError'
    this.reason = reason
  }
}

/** A connection URL fit to print: the password, if any, replaced by `***`. */
export function withoutPassword (url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password === '') return url
    parsed.password = '***'
    return parsed.toString()
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
  }
}

export interface OpenStoreOptions {
  /** True for `migrate`, `serve` and `demo`: a missing SQLite file (and its folder) is created. */
  create: boolean
}

/**
 * The store named by the configuration, checked to answer: a missing SQLite file is refused
 * unless `create`, and a PostgreSQL server is asked once (`select 1`) so that "unreachable" is
 * reported here, naming DATABASE_URL, rather than as a bare ECONNREFUSED later.
 */
export async function openStore (config: DatabaseConfig, options: OpenStoreOptions): Promise<Store> {
  if (config.kind === 'sqlite' && config.file !== ':memory:' && !options.create && !existsSync(config.file)) {
    throw new StoreUnavailableError('missing', `no database at ${resolve(config.file)} (DATABASE_URL); run \`partner-analytics migrate\` first to create it, or fix DATABASE_URL`)
  }
  const store = createStore(config)
  await requireAnswer(store, config)
  return store
}

/**
 * Asks a PostgreSQL store once (`select 1`); when the server does not answer, closes the store
 * and throws an error naming DATABASE_URL (password hidden) and the cause. SQLite always answers.
 */
export async function requireAnswer (store: Store, config: DatabaseConfig): Promise<void> {
  if (config.kind !== 'postgres') return
  try {
    await store.ping()
  } catch (error) {
    await store.destroy()
    const cause = error instanceof Error && error.message !== '' ? error.message : String(error)
    throw new StoreUnavailableError('unreachable', `cannot reach PostgreSQL at DATABASE_URL=${withoutPassword(config.url)}: ${cause}`, error)
  }
}
