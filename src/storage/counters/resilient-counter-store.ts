import { MemoryCounterStore, type Answered, type CounterSpec, type CounterStore, type CounterStoreEvent, type Counted, type Reservation, type ReserveRequest, type SettleEntry } from './counter-store.js'

/**
 * Redis, with this process's memory standing in while Redis does not answer (docs/reliability.md
 * "Redis down"). The policy: rate limits and lockout never fail open and never turn into 500s.
 *
 * - While Redis answers, every operation goes to Redis (state shared by every instance).
 * - The first operation Redis fails (error, or no answer within its command timeout) switches the
 *   process to its in-process counters; the operation is answered from them at once. From then on
 *   no request waits for Redis: operations go straight to memory, with the callers' stricter
 *   `fallbackLimit`s, and report `fallback: true` so rate-limit headers show the limits in force.
 * - A probe PINGs Redis every `probeIntervalMs`; the first answer switches back to Redis (no
 *   restart). Counts made in memory meanwhile are not copied to Redis, but locks set in memory
 *   keep refusing logins on this instance until they expire.
 * - Each switch is reported once to the `watch` listeners (the app logs it).
 */

export const FALLBACK_PROBE_INTERVAL_MS = 1000

export class ResilientCounterStore implements CounterStore {
  private state: 'shared' | 'fallback' = 'shared'
  private probe: NodeJS.Timeout | undefined
  private probing = false
  private readonly listeners: Array<(event: CounterStoreEvent) => void> = []
  private closed = false

  constructor (
    private readonly primary: CounterStore & { ping: () => Promise<void> },
    private readonly local: MemoryCounterStore = new MemoryCounterStore(),
    private readonly probeIntervalMs = FALLBACK_PROBE_INTERVAL_MS,
  ) {}

  /** True while this process's memory stands in for Redis. */
  get inFallback (): boolean {
    return this.state === 'fallback'
  }

  async increment (counters: readonly CounterSpec[]): Promise<Counted> {
    return await this.route(
      async () => await this.primary.increment(counters),
      async () => ({ ...(await this.local.increment(counters)), fallback: true }),
    )
  }

  async reserve (request: ReserveRequest): Promise<Reservation> {
    // A lock set in memory while Redis was away still holds on this instance.
    const localLock = Math.max(0, ...request.flags.map((flag) => this.local.remainingMs(flag)))
    if (localLock > 0) return { granted: false, retryAfterMs: localLock, fallback: this.inFallback }
    return await this.route(
      async () => await this.primary.reserve(request),
      async () => ({
        ...(await this.local.reserve({ ...request, counters: request.counters.map((counter) => ({ ...counter, limit: counter.fallbackLimit })) })),
        fallback: true,
      }),
    )
  }

  async settle (entries: readonly SettleEntry[]): Promise<Answered> {
    return await this.route(
      async () => await this.primary.settle(entries),
      async () => {
        await this.local.settle(entries.map((entry) => ({ ...entry, limit: entry.fallbackLimit })))
        return { fallback: true }
      },
    )
  }

  async release (keys: readonly string[]): Promise<Answered> {
    return await this.route(async () => await this.primary.release(keys), async () => {
      await this.local.release(keys)
      return { fallback: true }
    })
  }

  async delete (keys: readonly string[]): Promise<Answered> {
    // Both: a successful login clears what either store counted.
    await this.local.delete(keys)
    return await this.route(async () => await this.primary.delete(keys), async () => ({ fallback: true }))
  }

  async ping (): Promise<void> {
    await this.primary.ping()
  }

  watch (listener: (event: CounterStoreEvent) => void): void {
    this.listeners.push(listener)
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.probe)
    await this.primary.close()
    await this.local.close()
  }

  private async route<T> (shared: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (this.state === 'fallback') return await fallback()
    try {
      return await shared()
    } catch (error) {
      this.enterFallback(error)
      return await fallback()
    }
  }

  private enterFallback (error: unknown): void {
    if (this.state === 'fallback' || this.closed) return
    this.state = 'fallback'
    this.emit({ state: 'fallback', error })
    this.probe = setInterval(() => { this.tryShared().catch(() => {}) }, this.probeIntervalMs)
    this.probe.unref()
  }

  private async tryShared (): Promise<void> {
    if (this.probing || this.state === 'shared' || this.closed) return
    this.probing = true
    try {
      await this.primary.ping()
      if (this.closed) return
      clearInterval(this.probe)
      this.probe = undefined
      this.state = 'shared'
      this.emit({ state: 'shared' })
    } catch {
      // Still away: the next tick tries again.
    } finally {
      this.probing = false
    }
  }

  private emit (event: CounterStoreEvent): void {
    for (const listener of this.listeners) listener(event)
  }
}
