import type { Kysely, Transaction } from 'kysely'
import type { Database } from './database.js'

/**
 * Group commit: small units of write work queued from many places run together in one
 * transaction, one commit for all. While a transaction is running the next units gather, so under
 * load they share commits and when idle a unit runs at once, alone. Used by the webhook worker,
 * which writes one small outcome per attempt (in SQLite, the commit was half of that write's
 * cost). Units are isolated from each other: if the shared transaction fails (one unit's statement
 * refused, a lost connection), nothing of it is kept and every unit is run again alone, in a
 * transaction of its own, so one unit's failure is its own and never undoes another's. A unit may
 * therefore run twice (the first run rolled back): it must not count on effects outside the
 * transaction of a run that failed.
 */

export interface TransactionBatcher {
  run: <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>
}

interface Unit {
  work: (trx: Transaction<Database>) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export function createTransactionBatcher (db: Kysely<Database>, options: { maxUnits?: number, gatherMs?: number } = {}): TransactionBatcher {
  const maxUnits = options.maxUnits ?? 64
  const gatherMs = options.gatherMs ?? 2
  let queue: Unit[] = []
  let flushing = false

  let timer: NodeJS.Timeout | undefined
  // flush settles every unit itself and never rejects. Units gather for `gatherMs` first: work
  // arriving one by one (SQLite runs each transaction to its end at once) still shares commits.
  const start = (): void => {
    if (timer !== undefined || flushing) return
    timer = setTimeout(() => {
      timer = undefined
      flush().catch(() => {})
    }, gatherMs)
  }

  async function flush (): Promise<void> {
    if (flushing || queue.length === 0) return
    flushing = true
    const units = queue.slice(0, maxUnits)
    queue = queue.slice(units.length)
    try {
      const results = await db.transaction().execute(async (trx) => {
        const done: unknown[] = []
        for (const unit of units) done.push(await unit.work(trx))
        return done
      })
      units.forEach((unit, index) => unit.resolve(results[index]))
    } catch (error) {
      if (units.length === 1) units[0]?.reject(error)
      else await runAlone(units)
    } finally {
      flushing = false
      if (queue.length > 0) start()
    }
  }

  /** The shared transaction failed: each unit again in its own, settled by its own outcome. */
  async function runAlone (units: Unit[]): Promise<void> {
    for (const unit of units) {
      try {
        unit.resolve(await db.transaction().execute(async (trx) => await unit.work(trx)))
      } catch (error) {
        unit.reject(error)
      }
    }
  }

  return {
    run: async <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => await new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      start()
    }),
  }
}
