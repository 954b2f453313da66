import type { Admission, Answered, AttemptSubject, AttemptRequest, AttemptSettlement, CounterSpec, CounterStore, CounterStoreEvent, Counted } from './counter-store.js'
import { MemoryCounterStore } from './memory-counter-store.js'

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

  async admitAttempt (request: AttemptRequest): Promise<Admission> {
    // A lock set in memory while Redis was away still holds on this instance.
    const localLock = Math.max(0, ...request.subjects.map((subject) => this.local.remainingMs(subject.lock)))
    if (localLock > 0) return { admitted: false, reason: 'locked', retryAfterMs: localLock, fallback: this.inFallback }
    return await this.route(
      async () => await this.primary.admitAttempt(request),
      async () => ({ ...(await this.local.admitAttempt({ ...request, subjects: withFallbackLimits(request.subjects) })), fallback: true }),
    )
  }

  async settleAttempt (settlement: AttemptSettlement): Promise<Answered> {
    const inMemory = async (): Promise<Answered> => {
      await this.local.settleAttempt({ ...settlement, subjects: withFallbackLimits(settlement.subjects) })
      return { fallback: true }
    }
    // Settled where it was admitted: an attempt memory counted in flight leaves memory's sets.
    if (settlement.admittedInFallback) return await inMemory()
    // A success also clears what memory counted while Redis was away.
    if (settlement.outcome === 'success') await inMemory()
    return await this.route(async () => await this.primary.settleAttempt(settlement), inMemory)
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

function withFallbackLimits (subjects: readonly AttemptSubject[]): AttemptSubject[] {
  return subjects.map((subject) => ({ ...subject, limit: subject.fallbackLimit }))
}
