import { accountKey } from '../../domain/platforms.js'
import type { DailyColumns } from '../../storage/repositories/import-writer.types.js'
import type { ImportRecord, RecordKind } from './records.js'
import type { RecordSource } from './source.js'
import { validateRecord, type Declaration, type Reference } from './validate-record.js'

/**
 * The import's reading side (docs/import.md), with no store: every record of the sources read,
 * validated, and its references to accounts and brands checked against what the store held at the
 * start and what the import declares anywhere (a record may come before the account it names).
 * Valid records go to the sink in the order read, until the first error: from then on nothing will
 * be kept, and the reading goes on only to list every error. The same code runs in the import's
 * process or in its reading thread (scan-in-worker.ts).
 */

/** Where a record was read: its source (by index) and line. */
export interface Place { source: number, line: number }

/** Records read between two progress reports. */
export const PROGRESS_EVERY = 10_000

export interface ScanSink {
  /** A valid record, while the import is still clean; a promise only when the caller must wait. */
  record: (record: ImportRecord) => Promise<void> | undefined
  /**
   * Consecutive valid daily records as columns (from the reading thread only), instead of `record`
   * for each; without it they are given to `record` one by one.
   */
  dailyColumns?: (columns: DailyColumns) => Promise<void> | undefined
  /** One error, as soon as found. */
  error: (place: Place, message: string) => void
  /** Records read so far, every PROGRESS_EVERY. */
  read: (count: number) => void
}

export interface ScanResult {
  /** Valid records read, by kind (a record repeated with the same key counts each time). */
  counts: Record<RecordKind, number>
  records: number
  /** Records read, valid or not. */
  read: number
  errorCount: number
}

/**
 * Which brands and accounts exist for this import: those in the store when it started and those
 * it declares. References not yet satisfied wait here, with their lines, until a declaration
 * satisfies them or the import ends.
 */
export class References {
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

export async function scanSources (sources: readonly RecordSource[], references: References, sink: ScanSink): Promise<ScanResult> {
  const counts: Record<RecordKind, number> = { brand: 0, account: 0, daily: 0, post: 0 }
  let records = 0
  let read = 0
  let errorCount = 0
  const report = (place: Place, message: string): void => {
    errorCount += 1
    sink.error(place, message)
  }
  for (const [index, source] of sources.entries()) {
    for await (const raw of source.read()) {
      read += 1
      if (read % PROGRESS_EVERY === 0) sink.read(read)
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
      if (errorCount === 0) {
        // The sink returns a promise only when a batch is due: no await (and no tick) per row.
        const pending = sink.record(record)
        if (pending !== undefined) await pending
      }
    }
  }
  for (const unsatisfied of references.unsatisfied()) report(unsatisfied, unsatisfied.message)
  return { counts, records, read, errorCount }
}
