import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { say, type CliIo } from '../cli/io.js'
import type { Config } from '../config/schema.js'
import { importSources } from '../import/import.service.js'
import type { Store } from '../storage/db.js'
import { countBrands } from '../storage/repositories/brands.repository.js'
import { findActiveCredentialOfUser } from '../storage/repositories/users.repository.js'
import { createUser } from '../users/users.service.js'
import { DEMO_DEFAULTS, todayUtc } from './generator.js'
import { demoSource } from './source.js'

/**
 * The first-start experience on the embedded database (DATABASE_URL not set): an empty
 * database is filled with the default demo data and a demo partner, whose key pair is kept
 * in the data folder and printed, with a ready-to-paste login, on every start.
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

export function demoCredentialsPath (config: Config): string {
  return join(config.dataDir, DEMO_CREDENTIALS_FILE)
}

export async function prepareDemoDatabase (store: Store, config: Config, io: CliIo): Promise<void> {
  const file = demoCredentialsPath(config)
  if (await countBrands(store.db) === 0) await seedDemoDatabase(store, file, io)
  if (!existsSync(file)) return
  const credentials = readCredentials(file)
  if (credentials === undefined) {
    say(io, `Demo key pair: ${file} is not readable as JSON; delete it and the database to start the demo afresh.`)
    return
  }
  // An operator may have rotated or disabled the demo user since: say so rather than print a dead key.
  const live = await findActiveCredentialOfUser(store.db, credentials.user_id)
  printDemoAccess(io, config, credentials, live?.client_key === credentials.api_client_key)
}

async function seedDemoDatabase (store: Store, file: string, io: CliIo): Promise<void> {
  const options = { ...DEMO_DEFAULTS, until: todayUtc() }
  say(io, `Empty database: importing demo data (${options.brands} brands, ${options.days} days to ${options.until}, seed ${options.seed})…`)
  const summary = await importSources(store, [demoSource(options)], { onError: (message) => say(io, message) })
  say(io, `Imported ${summary.records} demo records in ${summary.seconds} s.`)
  const created = await createUser(store.db, { name: DEMO_USER_NAME, brandIds: DEMO_USER_BRANDS })
  const credentials: DemoCredentials = {
    user_id: created.user_id,
    name: created.name,
    api_client_key: created.api_client_key,
    api_secret_key: created.api_secret_key,
    brand_ids: created.brand_ids,
    created_at: new Date().toISOString().slice(0, 19) + 'Z',
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

/** The address to paste into curl: a wildcard listen address is reached through loopback. */
function baseUrl (config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
}

function printDemoAccess (io: CliIo, config: Config, credentials: DemoCredentials, live: boolean): void {
  const base = baseUrl(config)
  const body = JSON.stringify({ api_client_key: credentials.api_client_key, api_secret_key: credentials.api_secret_key })
  say(io, '')
  say(io, `Demo partner "${credentials.name}" (${credentials.user_id}), brands ${(credentials.brand_ids ?? []).join(',')}; key pair from ${demoCredentialsPath(config)}:`)
  say(io, `  api_client_key: ${credentials.api_client_key}`)
  say(io, `  api_secret_key: ${credentials.api_secret_key}`)
  if (!live) say(io, '  (this key pair no longer works: the demo user was rotated or removed; see `partner-analytics users list`)')
  say(io, 'Log in:')
  say(io, `  curl -s -X POST ${base}/auth/login -H 'Content-Type: application/json' -d '${body}'`)
  say(io, 'Then use the access_token it returns:')
  say(io, `  curl -s ${base}/me -H 'Authorization: Bearer ACCESS_TOKEN'`)
  say(io, `Or open the dashboard and sign in with the key pair above: ${base}/dashboard/`)
  say(io, '')
}
