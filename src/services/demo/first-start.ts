import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../config/schema.js'
import { formatUtcSeconds, utcToday } from '../../domain/dates.js'
import { countOf } from '../../domain/plural.js'
import type { Store } from '../../storage/db.js'
import { countBrands } from '../../storage/repositories/brands.repository.js'
import { listLiveCredentialsOfUser } from '../../storage/repositories/users.repository.js'
import { importSources } from '../import/import.service.js'
import { createUser } from '../users/users.service.js'
import { DEMO_DEFAULTS } from './generator.js'
import { demoSource } from './source.js'

/**
 * The first-start experience on the embedded database (DATABASE_URL not set): an empty
 * database is filled with the default demo data and a demo partner, whose key pair is kept
 * in the data folder so that `serve` can show it on every start. Progress is told through a
 * callback; what to print, and where, is the caller's business (src/cli/commands/serve.ts).
 */

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json'
export const DEMO_USER_NAME = 'Demo Partner'
/** Brands 1..7 of 8: most but not all, so a 403 on brand 8 can be tried too. */
export const DEMO_USER_BRANDS = [1, 2, 3, 4, 5, 6, 7]

/** What demo-credentials.json holds. */
export interface DemoCredentials {
  user_id: string
  name: string
  api_client_key: string
  api_secret_key: string
  brand_ids: number[]
  created_at: string
}

export type DemoAccess =
  | { state: 'ready', file: string, credentials: DemoCredentials, live: boolean }
  | { state: 'unreadable', file: string }

export function demoCredentialsPath (config: Config): string {
  return join(config.dataDir, DEMO_CREDENTIALS_FILE)
}

/**
 * Seeds an empty database, then reads the demo key pair back. `live` is false when an operator
 * rotated or disabled the demo user since (so the caller can say so rather than print a dead key).
 * Undefined when there is no demo key pair (the database was filled by other means).
 */
export async function prepareDemoDatabase (store: Store, config: Config, report: (line: string) => void): Promise<DemoAccess | undefined> {
  const file = demoCredentialsPath(config)
  if (await countBrands(store.db) === 0) await seedDemoDatabase(store, file, report)
  if (!existsSync(file)) return undefined
  const credentials = readCredentials(file)
  if (credentials === undefined) return { state: 'unreadable', file }
  const live = await listLiveCredentialsOfUser(store.db, credentials.user_id, formatUtcSeconds())
  return { state: 'ready', file, credentials, live: live.some((credential) => credential.client_key === credentials.api_client_key) }
}

async function seedDemoDatabase (store: Store, file: string, report: (line: string) => void): Promise<void> {
  const options = { ...DEMO_DEFAULTS, until: utcToday() }
  report(`Empty database: importing demo data (${countOf(options.brands, 'brand')}, ${countOf(options.days, 'day')} to ${options.until}, seed ${options.seed})…`)
  const summary = await importSources(store, [demoSource(options)], { onError: report })
  report(`Imported ${countOf(summary.records, 'demo record')} in ${summary.seconds} s.`)
  const created = await createUser(store.db, { name: DEMO_USER_NAME, brandIds: DEMO_USER_BRANDS })
  const credentials: DemoCredentials = {
    user_id: created.user_id,
    name: created.name,
    api_client_key: created.api_client_key,
    api_secret_key: created.api_secret_key,
    brand_ids: created.brand_ids,
    created_at: formatUtcSeconds(),
  }
  mkdirSync(join(file, '..'), { recursive: true })
  // Written aside and renamed, so a crash never leaves half a file; 0600: it holds a secret.
  const partial = `${file}.partial`
  writeFileSync(partial, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 })
  renameSync(partial, file)
}

function readCredentials (file: string): DemoCredentials | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoCredentials>
    if (typeof value.user_id !== 'string' || typeof value.api_client_key !== 'string' || typeof value.api_secret_key !== 'string') return undefined
    return value as DemoCredentials
  } catch {
    return undefined
  }
}
