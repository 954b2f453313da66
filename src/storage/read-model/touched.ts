import { accountKey, type PlatformCode } from '../../domain/platforms.js'

/**
 * What an import wrote, at the grain the read model is refreshed at: account-months, and accounts
 * that moved to another brand (all their months then count for the brand they left and the one
 * they joined). Memory: one entry per account-month written (240 000 for 10 000 accounts × 2 years).
 */
export class TouchedKeys {
  /** `platform:account_id` → months (`YYYY-MM-01`) written. */
  readonly months = new Map<string, Set<string>>()
  /** `platform:account_id` → the brand it belonged to before the import, for accounts that moved. */
  readonly movedFrom = new Map<string, number>()
  private lastKey = ''
  private lastMonths: Set<string> | undefined

  /** A daily row was written. Called per row: the account's month set is cached between calls. */
  day (platform: PlatformCode, accountId: number, date: string): void {
    const key = accountKey(platform, accountId)
    if (key !== this.lastKey || this.lastMonths === undefined) {
      this.lastKey = key
      this.lastMonths = this.months.get(key)
      if (this.lastMonths === undefined) {
        this.lastMonths = new Set()
        this.months.set(key, this.lastMonths)
      }
    }
    this.lastMonths.add(`${date.slice(0, 7)}-01`)
  }

  /** An account record was written; `before` is its brand when the import started (undefined if new). */
  account (platform: PlatformCode, accountId: number, brandId: number, before: number | undefined): void {
    if (before !== undefined && before !== brandId) {
      const key = accountKey(platform, accountId)
      // The first brand seen is the one it left, however often the import moves it.
      if (!this.movedFrom.has(key)) this.movedFrom.set(key, before)
    }
  }

  get empty (): boolean {
    return this.months.size === 0 && this.movedFrom.size === 0
  }
}

/** `platform:account_id` → its parts. */
export function splitAccountKey (key: string): { platform: PlatformCode, accountId: number } {
  const colon = key.indexOf(':')
  return { platform: key.slice(0, colon) as PlatformCode, accountId: Number(key.slice(colon + 1)) }
}
