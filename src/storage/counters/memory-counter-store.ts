import type { Admission, Answered, AttemptRequest, AttemptSettlement, CounterSpec, CounterStore, Counted } from './counter-store.js'

interface Entry {
  value: number
  expiresAtMs: number
}

/** How many writes between sweeps of expired entries, so idle keys cannot pile up. */
const SWEEP_EVERY_WRITES = 1000

/**
 * Counters in this process only: correct for one instance, not shared between instances. Every
 * method runs synchronously to its end (no await inside), which makes each one atomic with
 * respect to every other request of the process.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly entries = new Map<string, Entry>()
  /** In-flight sets: key → attempt id → when it stops counting. */
  private readonly inFlight = new Map<string, Map<string, number>>()
  private writes = 0

  constructor (private readonly now: () => number = Date.now) {}

  async increment (counters: readonly CounterSpec[]): Promise<Counted> {
    const now = this.now()
    this.maybeSweep(now)
    return { values: counters.map((counter) => this.add(counter, now)), fallback: false }
  }

  async admitAttempt (request: AttemptRequest): Promise<Admission> {
    const now = this.now()
    this.maybeSweep(now)
    let locked = 0
    for (const subject of request.subjects) {
      locked = Math.max(locked, this.remaining(subject.lock, now))
      if (this.value(subject.failures, now) >= subject.limit) locked = Math.max(locked, this.remaining(subject.failures, now))
    }
    if (locked > 0) return { admitted: false, reason: 'locked', retryAfterMs: locked, fallback: false }
    if (request.subjects.some((subject) => this.value(subject.failures, now) + this.liveInFlight(subject.inFlight, now) >= subject.limit)) {
      return { admitted: false, reason: 'busy', fallback: false }
    }
    for (const subject of request.subjects) {
      const attempts = this.inFlight.get(subject.inFlight) ?? new Map<string, number>()
      attempts.set(request.id, now + request.inFlightTtlMs)
      this.inFlight.set(subject.inFlight, attempts)
    }
    return { admitted: true, fallback: false }
  }

  async settleAttempt (settlement: AttemptSettlement): Promise<Answered> {
    const now = this.now()
    for (const subject of settlement.subjects) {
      const attempts = this.inFlight.get(subject.inFlight)
      attempts?.delete(settlement.id)
      if (attempts?.size === 0) this.inFlight.delete(subject.inFlight)
      if (settlement.outcome === 'success' && subject.clearedBySuccess) this.entries.delete(subject.failures)
      if (settlement.outcome !== 'failure') continue
      if (this.add({ key: subject.failures, expiresAtMs: settlement.windowEndMs }, now) < subject.limit) continue
      this.entries.set(subject.lock, { value: 1, expiresAtMs: settlement.windowEndMs })
      this.entries.delete(subject.failures)
    }
    return { fallback: false }
  }

  async close (): Promise<void> {
    this.entries.clear()
    this.inFlight.clear()
  }

  /** Milliseconds until a key expires; 0 when absent or expired (tests, and the fallback's locks). */
  remainingMs (key: string): number {
    return this.remaining(key, this.now())
  }

  /** Number of live entries, in-flight sets included (tests check that sweeping bounds memory). */
  get size (): number {
    return this.entries.size + this.inFlight.size
  }

  private add ({ key, expiresAtMs }: CounterSpec, now: number): number {
    const entry = this.entries.get(key)
    if (entry === undefined || entry.expiresAtMs <= now) {
      this.entries.set(key, { value: 1, expiresAtMs })
      return 1
    }
    entry.value += 1
    return entry.value
  }

  private value (key: string, now: number): number {
    const entry = this.entries.get(key)
    return entry === undefined || entry.expiresAtMs <= now ? 0 : entry.value
  }

  private remaining (key: string, now: number): number {
    return Math.max(0, (this.entries.get(key)?.expiresAtMs ?? 0) - now)
  }

  /** Attempts still in flight under `key`, forgetting those whose expiry passed (their instance died). */
  private liveInFlight (key: string, now: number): number {
    const attempts = this.inFlight.get(key)
    if (attempts === undefined) return 0
    for (const [id, expiresAtMs] of attempts) if (expiresAtMs <= now) attempts.delete(id)
    if (attempts.size === 0) this.inFlight.delete(key)
    return attempts.size
  }

  private maybeSweep (now: number): void {
    this.writes += 1
    if (this.writes % SWEEP_EVERY_WRITES !== 0) return
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= now) this.entries.delete(key)
    }
    for (const key of this.inFlight.keys()) this.liveInFlight(key, now)
  }
}
