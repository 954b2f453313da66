import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import { DAILY_VALUE_COLUMNS, type DailyColumns } from '../../storage/repositories/import-writer.types.js'
import type { DailyRecord, ImportRecord } from './records.js'
import type { Place, ScanResult } from './scan.js'

/**
 * What the import's reading thread hands to the writing one (scan-in-worker.ts), in the order
 * read: valid records and errors, with the count of records read. Daily records, nearly all of an import, travel
 * as columns of numbers in typed arrays whose buffers are transferred, not copied: structured
 * cloning a record object costs more than parsing its line (docs/benchmarks.md), these cost a
 * copy of a few numbers per row. Other records are few and go as they are.
 */

const VALUES = DAILY_VALUE_COLUMNS
const WIDTH = VALUES.length

export type ScanItem =
  | DailyColumns
  | { kind: 'record', record: ImportRecord }
  | { kind: 'error', place: Place, message: string }

export type ScanMessage =
  /** `read`: records read so far, at the last progress mark (scan.ts PROGRESS_EVERY). */
  | { kind: 'batch', items: ScanItem[], read: number }
  | { kind: 'done', result: ScanResult }

const PLATFORM_INDEX = new Map<string, number>(PLATFORM_CODES.map((code, index) => [code, index]))

/** Fills DailyColumns of at most `capacity` records. */
export class DailyColumnsBuilder {
  readonly columns: DailyColumns
  private readonly dateIndex = new Map<string, number>()

  /** `spare`: columns of this capacity the writing thread is done with, filled again. */
  constructor (private readonly capacity: number, spare?: DailyColumns) {
    this.columns = spare !== undefined && spare.platforms.length === capacity
      ? { ...spare, length: 0, dateTable: [] }
      : {
          kind: 'daily-columns',
          length: 0,
          platforms: new Uint8Array(capacity),
          accounts: new Float64Array(capacity),
          dates: new Uint16Array(capacity),
          dateTable: [],
          values: new Float64Array(capacity * WIDTH),
        }
  }

  get full (): boolean {
    return this.columns.length >= this.capacity
  }

  add (record: DailyRecord): void {
    const columns = this.columns
    const row = columns.length
    columns.platforms[row] = PLATFORM_INDEX.get(record.platform) as number
    columns.accounts[row] = record.account_id
    let date = this.dateIndex.get(record.date)
    if (date === undefined) {
      date = columns.dateTable.length
      columns.dateTable.push(record.date)
      this.dateIndex.set(record.date, date)
    }
    columns.dates[row] = date
    const base = row * WIDTH
    for (let index = 0; index < WIDTH; index += 1) {
      const value = record[VALUES[index] as (typeof VALUES)[number]]
      columns.values[base + index] = value ?? Number.NaN
    }
    columns.length = row + 1
  }

  /** The buffers to transfer with the columns. */
  transfer (): ArrayBuffer[] {
    return buffersOf(this.columns)
  }
}

/**
 * The buffers under the columns, transferred with them both ways: to the writing thread, and back
 * once written, to be filled again. Their memory lives outside the JavaScript heap, and the writing
 * thread allocates so little that garbage collection, which frees unreachable ones, came rarely:
 * without reuse they piled up by tens of MB.
 */
export function buffersOf (columns: DailyColumns): ArrayBuffer[] {
  const { platforms, accounts, dates, values } = columns
  return [platforms.buffer, accounts.buffer, dates.buffer, values.buffer] as ArrayBuffer[]
}

/** What the writing thread answers to each batch: it is taken, and its columns may be filled again. */
export interface ScanAck { spare: DailyColumns[] }

/** Where each value sits in a row of DailyColumns. */
const AT = Object.fromEntries(VALUES.map((column, index) => [column, index])) as Record<(typeof VALUES)[number], number>

/** NaN (how the columns carry null) as null. */
function nullable (value: number): number | null {
  return Number.isNaN(value) ? null : value
}

/**
 * Row `row` of the columns as the record the validator built. Spelled out field by field: one
 * object shape, no keyed stores (the type checker says when a metric is missing here).
 */
export function dailyRecordOf (columns: DailyColumns, row: number): DailyRecord {
  const values = columns.values
  const base = row * WIDTH
  const at = (index: number): number | null => nullable(values[base + index] as number)
  return {
    kind: 'daily',
    platform: PLATFORM_CODES[columns.platforms[row] as number] as PlatformCode,
    account_id: columns.accounts[row] as number,
    date: columns.dateTable[columns.dates[row] as number] as string,
    revenue_micros: at(AT.revenue_micros),
    views: at(AT.views),
    followers: at(AT.followers),
    new_followers: at(AT.new_followers),
    posts_count: at(AT.posts_count),
    interactions: at(AT.interactions),
    video_views_3s: at(AT.video_views_3s),
    video_views_2s: at(AT.video_views_2s),
    views_video: at(AT.views_video),
    reach: at(AT.reach),
    impressions: at(AT.impressions),
    ad_reach: at(AT.ad_reach),
    likes: at(AT.likes),
    shares: at(AT.shares),
    comments: at(AT.comments),
    views_organic: at(AT.views_organic),
    views_paid: at(AT.views_paid),
    link_clicks: at(AT.link_clicks),
  }
}
