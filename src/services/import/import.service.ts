import { formatUtcSeconds } from '../../domain/dates.js'
import { accountKey } from '../../domain/platforms.js'
import type { Sync } from '../../domain/syncs.js'
import type { Store } from '../../storage/db.js'
import { listAccountKeys, listBrandIds } from '../../storage/repositories/import-lookup.repository.js'
import { openImportWriter, type ImportWriter } from '../../storage/repositories/import-writer.js'
import { renderBrandDayEntry } from '../analytics/entries.js'
import type { ImportRecord, RecordKind } from './records.js'
import type { RecordSource } from './source.js'
import { validateRecord, type Declaration, type Reference } from './validate-record.js'

/**
 * The import (docs/import.md), in one streaming pass inside one transaction: every record is
 * validated and, while the import is still clean, written at once; references to accounts and
 * brands are checked against what the store held at the start and what the import declares
 * anywhere (a record may come before the account it names). Any error — in a field, in a
 * reference — is reported with its line, the reading goes on so that every error is listed, and
 * the transaction is rolled back: an invalid import writes nothing. Memory holds the store's
 * brand ids and account keys, the keys the import declares, and the line numbers of records whose
 * account or brand has not been seen yet (none for a file that declares before it uses).
 */

export interface ImportSummary {
  /** Valid records read, by kind (a record repeated with the same key counts each time). */
  counts: Record<RecordKind, number>
  records: number
  /** Wall time of the whole import, 3 decimals. */
  seconds: number
  /** records / seconds, rounded. */
  rowsPerSecond: number
  dryRun: boolean
  /** The sync the import committed as (docs/import.md "Syncs"); null for a dry run. */
  sync: Sync | null
}

export interface ImportOptions {
  /** Validate only: nothing is written. */
  dryRun?: boolean
  /** Called once per error with `NAME:LINE: message`, as soon as it is found. */
  onError?: (message: string) => void
  /** Called every few thousand records and once at the end with the records read so far. */
  onProgress?: (recordsDone: number) => void
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

/** Where a record was read: its source (by index) and line. */
interface Place { source: number, line: number }

/**
 * Which brands and accounts exist for this import: those in the store when it started and those
 * it declares. References not yet satisfied wait here, with their lines, until a declaration
 * satisfies them or the import ends.
 */
class References {
  private readonly brands: Set<number>
  private readonly accounts: Set<string>
  /** Unsatisfied account references: key → lines naming it. */
  private readonly waitingAccounts = new Map<string, Place[]>()
  private readonly waitingBrands = new Map<number, Array<Place & { account: string }>>()

  constructor (brands: Iterable<number>, accounts: Iterable<string>) {
    this.brands = new Set(brands)
    this.accounts = new Set(accounts)
  }

  declare (declaration: Declaration): void {
    if (declaration.kind === 'brand') {
      this.brands.add(declaration.brand_id)
      this.waitingBrands.delete(declaration.brand_id)
    } else {
      const key = accountKey(declaration.platform, declaration.account_id)
      this.accounts.add(key)
      this.waitingAccounts.delete(key)
    }
  }

  use (reference: Reference, place: Place, naming: string): void {
    if (reference.kind === 'brand') {
      if (this.brands.has(reference.brand_id)) return
      const waiting = this.waitingBrands.get(reference.brand_id) ?? []
      waiting.push({ ...place, account: naming })
      this.waitingBrands.set(reference.brand_id, waiting)
      return
    }
    const key = accountKey(reference.platform, reference.account_id)
    if (this.accounts.has(key)) return
    const waiting = this.waitingAccounts.get(key) ?? []
    waiting.push(place)
    this.waitingAccounts.set(key, waiting)
  }

  /** The references nothing satisfied, as errors, in source and line order. */
  unsatisfied (): Array<Place & { message: string }> {
    const found: Array<Place & { message: string }> = []
    for (const [key, places] of this.waitingAccounts) {
      for (const place of places) found.push({ ...place, message: `unknown account ${key} (not in the database and not declared in this import)` })
    }
    for (const [brandId, places] of this.waitingBrands) {
      for (const place of places) found.push({ ...place, message: `account ${place.account} refers to unknown brand ${brandId} (not in the database and not declared in this import)` })
    }
    return found.sort((a, b) => a.source - b.source || a.line - b.line)
  }
}

/** The key a valid record declares. */
function declarationOf (record: ImportRecord): Declaration | undefined {
  if (record.kind === 'brand') return { kind: 'brand', brand_id: record.brand_id }
  if (record.kind === 'account') return { kind: 'account', platform: record.platform, account_id: record.account_id }
  return undefined
}

/** The reference a valid record makes. */
function referenceOf (record: ImportRecord): Reference | undefined {
  if (record.kind === 'account') return { kind: 'brand', brand_id: record.brand_id }
  if (record.kind === 'daily' || record.kind === 'post') return { kind: 'account', platform: record.platform, account_id: record.account_id }
  return undefined
}

function naming (reference: Reference | undefined, raw: unknown): string {
  const value = raw as { platform?: unknown, account_id?: unknown }
  return reference?.kind === 'brand' ? `${String(value.platform)}:${String(value.account_id)}` : ''
}

export async function importSources (store: Store, sources: RecordSource[], options: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now()
  const progress = options.onProgress ?? (() => {})
  let errorCount = 0
  const report = (place: Place, message: string): void => {
    errorCount += 1
    options.onError?.(`${sources[place.source]?.name ?? '?'}:${place.line}: ${message}`)
  }

  const references = new References(await listBrandIds(store.db), await listAccountKeys(store.db))
  const writer: ImportWriter | undefined = options.dryRun === true ? undefined : await openImportWriter(store, formatUtcSeconds(), renderBrandDayEntry)
  const counts: Record<RecordKind, number> = { brand: 0, account: 0, daily: 0, post: 0 }
  let records = 0
  let read = 0
  let sync: Sync | null = null
  try {
    for (const [index, source] of sources.entries()) {
      for await (const raw of source.read()) {
        read += 1
        if (read % PROGRESS_EVERY === 0) progress(read)
        const place = { source: index, line: raw.line }
        if ('parseError' in raw) {
          report(place, raw.parseError)
          continue
        }
        const validation = validateRecord(raw.value)
        if (validation.errors !== undefined) {
          for (const message of validation.errors) report(place, message)
          // Its key and the names it makes still count, so one round of fixes is enough.
          if (validation.declares !== undefined) references.declare(validation.declares)
          if (validation.reference !== undefined) references.use(validation.reference, place, naming(validation.reference, raw.value))
          continue
        }
        const record = validation.record
        counts[record.kind] += 1
        records += 1
        const declaration = declarationOf(record)
        if (declaration !== undefined) references.declare(declaration)
        const reference = referenceOf(record)
        if (reference !== undefined) references.use(reference, place, naming(reference, record))
        // Once anything is wrong nothing will be kept: reading goes on only to list every error.
        if (writer !== undefined && errorCount === 0) {
          // The writers return a promise only when a batch is due: no await (and no tick) per row.
          const pending = writer.add(record)
          if (pending !== undefined) await pending
        }
      }
    }
    for (const unsatisfied of references.unsatisfied()) report(unsatisfied, unsatisfied.message)
    if (errorCount > 0) throw new ImportRejectedError(errorCount)
    sync = await writer?.commit({ sourceFiles: sources.map((source) => source.name), read: counts }) ?? null
  } catch (error) {
    await writer?.rollback()
    throw error
  }
  progress(read)
  const seconds = (performance.now() - started) / 1000
  return {
    counts,
    records,
    seconds: Math.round(seconds * 1000) / 1000,
    rowsPerSecond: seconds > 0 ? Math.round(records / seconds) : records,
    dryRun: options.dryRun === true,
    sync,
  }
}

/** The import bound to a store (src/services/index.ts). */
export interface ImportService {
  run: (sources: RecordSource[], options?: ImportOptions) => Promise<ImportSummary>
}

export function createImportService (deps: { store: Store }): ImportService {
  return { run: async (sources, options) => await importSources(deps.store, sources, options) }
}
