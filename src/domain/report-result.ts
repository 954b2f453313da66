import type { Period } from './period.js'
import type { PlatformCode } from './platforms.js'
import type { ReportDimension } from './reports.js'

/** A report as the service hands it back (POST /reports, docs/reports.md); HTTP writes the envelope. */

/** A row's value of each dimension (time dimensions: the bucket's label). */
export interface RowKeys {
  time?: string
  platform?: PlatformCode
  brandId?: number
  brandName?: string
  accountId?: number
  accountName?: string
}

export interface RowComparison {
  /** The label of the aligned bucket of the comparison period (with a time dimension). */
  time?: string
  /** Whether every account-day the comparison bucket expected was reported. */
  complete: boolean
  metrics: Record<string, number | null>
  /** Absolute and relative changes; null when incomplete, not applicable, or (relative) from 0. */
  change: Record<string, number | null>
  relativeChange: Record<string, number | null>
}

export interface ReportRow {
  keys: RowKeys
  metrics: Record<string, number | null>
  /** include status: account-days expected (inside coverage) and reported (with a row). */
  status?: { accountsExpected: number, accountsReported: number }
  /** With a comparison: the aligned bucket's figures; null when the comparison period has no bucket at this position. */
  comparison?: RowComparison | null
}

export interface ReportCost {
  /** Rows estimated before the report ran (what MAX_REPORT_ROWS bounds). */
  rowsEstimate: number
  /** Account-days read (both periods). */
  accountDaysRead: number
  heavy: boolean
}

export interface ReportResult {
  period: Period
  dimensions: ReportDimension[]
  metrics: string[]
  brandIds: number[]
  platforms: PlatformCode[] | undefined
  rows: ReportRow[]
  /** Rows of the whole result (every page). */
  totalRows: number
  /** Offset of the next page, when there is one. */
  nextOffset: number | undefined
  totals?: Record<string, number | null>
  comparison?: { period: Period, totals?: Record<string, number | null> }
  cost: ReportCost
}
