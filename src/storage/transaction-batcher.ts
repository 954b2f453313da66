import type { Kysely, Transaction } from 'kysely'
import type { Database } from './database.js'

/**
 * Group commit: small units of write work queued from many places run together in one
 * transaction, one commit for all. While a transaction is running the next units gather, so under
 * load they share commits and when idle a unit runs at once, alone. Used by the webhook worker,
 * which writes one small outcome per attempt (in SQLite, the commit was half of that write's
 * cost). A unit must not fail on its own: if the transaction fails, every unit of it is rejected.
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
      for (const unit of units) unit.reject(error)
    } finally {
      flushing = false
      if (queue.length > 0) start()
    }
  }

  return {
    run: async <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => await new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      start()
    }),
  }
}
