import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileSource } from '../../src/services/import/file-source.js'
import { ImportRejectedError, importSources, type ImportOptions, type ImportSummary } from '../../src/services/import/import.service.js'
import type { Store } from '../../src/storage/db.js'

/** Shared plumbing for the import tests: temp files, one-call imports, row counts. */

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import')

export interface TempFiles {
  dir: string
  /** Writes a file into the temp dir and returns its path. */
  write: (name: string, content: string) => string
  cleanup: () => void
}

export function tempFiles (): TempFiles {
  const dir = mkdtempSync(join(tmpdir(), 'pa-import-'))
  return {
    dir,
    write: (name, content) => {
      const path = join(dir, name)
      writeFileSync(path, content)
      return path
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** NDJSON text: one JSON object per line. */
export function ndjson (...records: unknown[]): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + '\n'
}

export interface ImportOutcome {
  summary?: ImportSummary
  errors: string[]
  /** Set when the import was rejected. */
  errorCount?: number
}

/** Imports files and collects what the caller would see, rejected or not. */
export async function importFiles (store: Store, paths: string[], options: Omit<ImportOptions, 'onError'> = {}): Promise<ImportOutcome> {
  const errors: string[] = []
  try {
    const summary = await importSources(store, paths.map(fileSource), { ...options, onError: (message) => errors.push(message) })
    return { summary, errors }
  } catch (error) {
    if (!(error instanceof ImportRejectedError)) throw error
    return { errors, errorCount: error.errorCount }
  }
}

export interface RowCounts { brands: number, accounts: number, daily: number, posts: number }

export async function countRows (store: Store): Promise<RowCounts> {
  const count = async (table: 'brands' | 'accounts' | 'daily_metrics' | 'posts'): Promise<number> => {
    const row = await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    return Number(row.n)
  }
  return { brands: await count('brands'), accounts: await count('accounts'), daily: await count('daily_metrics'), posts: await count('posts') }
}

/** Deletes every imported row, children first, so each test starts from an empty store. */
export async function emptyStore (store: Store): Promise<void> {
  await store.db.deleteFrom('posts').execute()
  await store.db.deleteFrom('daily_metrics').execute()
  await store.db.deleteFrom('accounts').execute()
  await store.db.deleteFrom('brands').execute()
}

export async function dailyRow (store: Store, platform: string, accountId: number, date: string) {
  return await store.db.selectFrom('daily_metrics').selectAll()
    .where('platform', '=', platform as never).where('account_id', '=', accountId).where('date', '=', date).executeTakeFirst()
}

export async function postRow (store: Store, platform: string, id: string) {
  return await store.db.selectFrom('posts').selectAll().where('platform', '=', platform as never).where('id', '=', id).executeTakeFirst()
}
