import { formatUtcSeconds } from '../../domain/dates.js'
import { accountKey, type PlatformCode } from '../../domain/platforms.js'
import type { Store } from '../../storage/db.js'
import { findExistingAccountKeys, findExistingBrandIdSet } from '../../storage/repositories/import-lookup.repository.js'
import { openImportWriter } from '../../storage/repositories/import-writer.js'
import type { AccountRecord, BrandRecord, RecordKind } from './records.js'
import type { RecordSource } from './source.js'
import { validateRecord } from './validate-record.js'

/**
 * The import (docs/import.md, docs/import.md). Pass 1 reads every source and validates every
 * record, keeping only the declared brands and accounts (small) and the set of accounts referred
 * to; pass 2 reads the sources again and writes everything in ONE transaction. Memory does not
 * grow with the number of daily rows or posts, and an invalid import writes nothing.
 */

export interface ImportSummary {
  /** Valid records read, by kind (a record repeated with the same key counts each time). */
  counts: { brand: number, account: number, daily: number, post: number }
  records: number
  /** Wall time of the whole import (both passes), 3 decimals. */
  seconds: number
  /** records / seconds, rounded. */
  rowsPerSecond: number
  dryRun: boolean
}

export interface ImportOptions {
  /** Validate only: nothing is written. */
  dryRun?: boolean
  /** Called once per error with `NAME:LINE: message`, as soon as it is found. */
  onError?: (message: string) => void
  /** Called every few thousand records and at the end of each pass. */
  onProgress?: (recordsDone: number, pass: 'validate' | 'write') => void
}

/** Thrown when any error was found (each one already reported through onError); nothing was written. */
export class ImportRejectedError extends Error {
  readonly errorCount: number
  constructor (errorCount: number) {
    super(`import rejected: ${errorCount} error${errorCount === 1 ? '' : 's'}; nothing was written`)
    this.name = 'ImportRejectedError'
    this.errorCount = errorCount
  }
}

const PROGRESS_EVERY = 10_000

/** What pass 1 learned: the brands and accounts to write, and the references to check. */
interface Declarations {
  brands: Map<number, BrandRecord>
  accounts: Map<string, AccountRecord>
  /** Accounts named by daily rows and posts but not declared by this import. */
  referencedAccounts: Map<string, { platform: PlatformCode, account_id: number }>
  /** Brands named by account records. */
  referencedBrands: Set<number>
  counts: ImportSummary['counts']
  records: number
}

class ErrorSink {
  count = 0
  constructor (private readonly onError: (message: string) => void) {}
  report (source: RecordSource, line: number, message: string): void {
    this.count += 1
    this.onError(`${source.name}:${line}: ${message}`)
  }
}

export async function importSources (store: Store, sources: RecordSource[], options: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now()
  const errors = new ErrorSink(options.onError ?? (() => {}))
  const progress = options.onProgress ?? (() => {})

  const declared = await validateSources(sources, errors, progress)
  const unknown = await findUnknownReferences(store, declared)
  if (unknown.accounts.size > 0 || unknown.brands.size > 0) await reportUnknownReferences(sources, unknown, errors)
  if (errors.count > 0) throw new ImportRejectedError(errors.count)

  if (options.dryRun !== true) await writeSources(store, sources, declared, progress)
  const seconds = (performance.now() - started) / 1000
  return {
    counts: declared.counts,
    records: declared.records,
    seconds: Math.round(seconds * 1000) / 1000,
    rowsPerSecond: seconds > 0 ? Math.round(declared.records / seconds) : declared.records,
    dryRun: options.dryRun === true,
  }
}

/** Pass 1: every record of every source, every error reported. */
async function validateSources (sources: RecordSource[], errors: ErrorSink, progress: NonNullable<ImportOptions['onProgress']>): Promise<Declarations> {
  const declared: Declarations = {
    brands: new Map(),
    accounts: new Map(),
    referencedAccounts: new Map(),
    referencedBrands: new Set(),
    counts: { brand: 0, account: 0, daily: 0, post: 0 },
    records: 0,
  }
  let seen = 0
  for (const source of sources) {
    for await (const raw of source.read()) {
      seen += 1
      if (seen % PROGRESS_EVERY === 0) progress(seen, 'validate')
      if ('parseError' in raw) {
        errors.report(source, raw.line, raw.parseError)
        continue
      }
      const result = validateRecord(raw.value)
      if (result.errors !== undefined) {
        for (const message of result.errors) errors.report(source, raw.line, message)
        continue
      }
      const record = result.record
      declared.counts[record.kind as RecordKind] += 1
      declared.records += 1
      if (record.kind === 'brand') {
        declared.brands.set(record.brand_id, record)
      } else if (record.kind === 'account') {
        declared.accounts.set(accountKey(record.platform, record.account_id), record)
        declared.referencedBrands.add(record.brand_id)
      } else {
        const key = accountKey(record.platform, record.account_id)
        if (!declared.referencedAccounts.has(key)) declared.referencedAccounts.set(key, { platform: record.platform, account_id: record.account_id })
      }
    }
  }
  progress(seen, 'validate')
  return declared
}

interface UnknownReferences {
  /** accountKey strings. */
  accounts: Set<string>
  brands: Set<number>
}

/** References that neither this import nor the store can satisfy. */
async function findUnknownReferences (store: Store, declared: Declarations): Promise<UnknownReferences> {
  const undeclaredAccounts = [...declared.referencedAccounts.entries()]
    .filter(([key]) => !declared.accounts.has(key)).map(([, account]) => account)
  const existingAccounts = await findExistingAccountKeys(store.db, undeclaredAccounts)
  const undeclaredBrands = [...declared.referencedBrands].filter((id) => !declared.brands.has(id))
  const existingBrands = await findExistingBrandIdSet(store.db, undeclaredBrands)
  return {
    accounts: new Set(undeclaredAccounts.map((a) => accountKey(a.platform, a.account_id)).filter((key) => !existingAccounts.has(key))),
    brands: new Set(undeclaredBrands.filter((id) => !existingBrands.has(id))),
  }
}

/**
 * Only when something is unknown: one more read to name every line that refers to it (pass 1
 * could not tell, since an account may be declared after the rows that use it).
 */
async function reportUnknownReferences (sources: RecordSource[], unknown: UnknownReferences, errors: ErrorSink): Promise<void> {
  for (const source of sources) {
    for await (const raw of source.read()) {
      if ('parseError' in raw) continue
      const { record } = validateRecord(raw.value)
      if (record === undefined || record.kind === 'brand') continue
      if (record.kind === 'account') {
        if (unknown.brands.has(record.brand_id)) {
          errors.report(source, raw.line, `account ${record.platform}:${record.account_id} refers to unknown brand ${record.brand_id} (not in the database and not declared in this import)`)
        }
      } else if (unknown.accounts.has(accountKey(record.platform, record.account_id))) {
        errors.report(source, raw.line, `unknown account ${record.platform}:${record.account_id} (not in the database and not declared in this import)`)
      }
    }
  }
}

/** Pass 2: brands, then accounts (so every reference resolves), then rows as they stream. */
async function writeSources (store: Store, sources: RecordSource[], declared: Declarations, progress: NonNullable<ImportOptions['onProgress']>): Promise<void> {
  const writer = await openImportWriter(store, formatUtcSeconds())
  try {
    await writer.upsertBrands(declared.brands.values())
    await writer.upsertAccounts(declared.accounts.values())
    let done = 0
    for (const source of sources) {
      for await (const raw of source.read()) {
        done += 1
        if (done % PROGRESS_EVERY === 0) progress(done, 'write')
        const record = 'parseError' in raw ? undefined : validateRecord(raw.value).record
        // Pass 1 found this source valid; a different answer now means the file changed under us.
        if (record === undefined) throw new Error(`${source.name}:${raw.line}: the source changed during the import; nothing was written`)
        // The writers return a promise only when a batch is due: no await (and no tick) per row.
        const pending = record.kind === 'daily' ? writer.addDaily(record) : record.kind === 'post' ? writer.addPost(record) : undefined
        if (pending !== undefined) await pending
      }
    }
    await writer.commit()
    progress(done, 'write')
  } catch (error) {
    await writer.rollback()
    throw error
  }
}

/** The import bound to a store (src/services/index.ts). */
export interface ImportService {
  run: (sources: RecordSource[], options?: ImportOptions) => Promise<ImportSummary>
}

export function createImportService (deps: { store: Store }): ImportService {
  return { run: async (sources, options) => await importSources(deps.store, sources, options) }
}
