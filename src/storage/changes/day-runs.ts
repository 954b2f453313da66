import type SqliteDatabase from 'better-sqlite3'

/**
 * SQLite's side of `changed_day_runs` (changed-tables.ts): the writer reports every daily row its
 * upsert actually wrote (the statement's own `changes`: 0 when the row was equal and nothing was
 * written), and consecutive days of an account are kept as one open run. A day that does not
 * extend its account's run closes it into the table; closed runs are written a batch at a time.
 * Memory: one open run per account written and at most RUNS_PER_FLUSH closed ones, whatever the
 * number of rows. A run per row in the worst case (days scattered), in the store, not here.
 */

/** Closed runs written per flush. */
const RUNS_PER_FLUSH = 500

interface Run {
  platform: string
  accountId: number
  since: string
  until: string
  sinceDay: number
  untilDay: number
}

/** Days since 1970-01-01 of a valid `YYYY-MM-DD` (civil-from-days inverse, integer arithmetic only). */
export function dayNumber (date: string): number {
  let year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  const day = Number(date.slice(8, 10))
  year -= month <= 2 ? 1 : 0
  const era = Math.floor(year / 400)
  const yearOfEra = year - era * 400
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

export class DayRuns {
  private readonly open = new Map<string, Run>()
  private closed: Run[] = []
  private writes = 0
  private readonly insertRun: SqliteDatabase.Statement
  private readonly addWrites: SqliteDatabase.Statement

  constructor (sqlite: SqliteDatabase.Database) {
    this.insertRun = sqlite.prepare('insert into changed_day_runs (platform, account_id, since, until) values (?, ?, ?, ?)')
    this.addWrites = sqlite.prepare('update changed_counts set daily_writes = daily_writes + ?')
  }

  /** A daily row was written (inserted, or updated because it differed). */
  written (platform: string, accountId: number, date: string): void {
    this.writes += 1
    const key = `${platform}:${accountId}`
    const day = dayNumber(date)
    const run = this.open.get(key)
    if (run !== undefined) {
      if (day >= run.sinceDay && day <= run.untilDay) return
      if (day === run.untilDay + 1) {
        run.until = date
        run.untilDay = day
        return
      }
      if (day === run.sinceDay - 1) {
        run.since = date
        run.sinceDay = day
        return
      }
      this.close(run)
    }
    this.open.set(key, { platform, accountId, since: date, until: date, sinceDay: day, untilDay: day })
  }

  /** Writes every run, open ones included, and the count of writes; call once, at commit. */
  finish (): void {
    for (const run of this.open.values()) this.closed.push(run)
    this.open.clear()
    this.flush()
    this.addWrites.run(this.writes)
    this.writes = 0
  }

  private close (run: Run): void {
    this.closed.push(run)
    if (this.closed.length >= RUNS_PER_FLUSH) this.flush()
  }

  private flush (): void {
    for (const run of this.closed) this.insertRun.run(run.platform, run.accountId, run.since, run.until)
    this.closed = []
  }
}
