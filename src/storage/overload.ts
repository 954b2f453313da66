import { AppError } from '../domain/errors.js'

/** Seconds a refused caller is asked to wait: heavy reports take tens of milliseconds each. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1

/**
 * A read refused because its lane is full (src/storage/heavy-reads.ts): 503 SERVICE_UNAVAILABLE
 * with Retry-After. Nothing was read, and the same request a moment later is welcome.
 */
export class StoreOverloadedError extends AppError {
  constructor () {
    super('SERVICE_UNAVAILABLE', `Too many large reports are being computed. Please retry in ${OVERLOADED_RETRY_AFTER_SECONDS} second.`, {
      headers: { 'retry-after': String(OVERLOADED_RETRY_AFTER_SECONDS) },
    })
    this.name = 'StoreOverloadedError'
  }
}

/** What a lane is doing, read by /metrics at scrape time. */
export interface LaneStats {
  running: number
  queued: number
  /** Tasks refused since the start (503). */
  refused: number
}

/**
 * At most `limit` tasks at once and at most `queue` more waiting, in arrival order; one more is
 * refused at once with StoreOverloadedError.
 */
export class BoundedLane {
  private active = 0
  private refused = 0
  private readonly waiting: Array<() => void> = []

  constructor (private readonly limit: number, private readonly queue: number) {}

  stats (): LaneStats {
    return { running: this.active, queued: this.waiting.length, refused: this.refused }
  }

  async run<T> (task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.queue) {
        this.refused += 1
        throw new StoreOverloadedError()
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.active += 1
    }
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift()
      if (next !== undefined) next()
      else this.active -= 1
    }
  }
}
