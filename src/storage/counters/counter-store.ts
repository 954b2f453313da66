/**
 * Expiring counters and flags: the state behind rate limits and login lockout. One interface,
 * three implementations: in process (the default), Redis (REDIS_URL: every instance sees the same
 * counts), and Redis with this process's memory standing in while Redis does not answer
 * (resilient-counter-store.ts). Expiry times are absolute epoch milliseconds so that callers can
 * align fixed windows to the clock. Every operation that reads and writes is one atomic step (one
 * Lua script in Redis, one synchronous block in process), so concurrent requests, on one instance
 * or many, cannot slip between a check and a count.
 */

export interface CounterSpec {
  key: string
  /** When a counter created by this call expires; later increments keep the first expiry. */
  expiresAtMs: number
}

/** A counter with the value at which it refuses more. */
export interface LimitedCounter extends CounterSpec {
  limit: number
  /** The limit while this process's memory stands in for Redis (stricter: each instance counts alone). */
  fallbackLimit: number
}

/** What an operation reports besides its result: whether this process's memory answered for Redis. */
export interface Answered {
  fallback: boolean
}

export interface Counted extends Answered {
  /** The new values, in the order of the counters given. */
  values: number[]
}

export type Reservation =
  | ({ granted: true } & Answered)
  /** Refused: a flag lives, or a counter is already at its limit; nothing was counted. */
  | ({ granted: false, retryAfterMs: number } & Answered)

export interface ReserveRequest {
  /** Refuse while any of these flags lives (retryAfterMs: the longest remaining). */
  flags: readonly string[]
  /** Refuse when any is at or over its limit (retryAfterMs: `blockedForMs`), else add 1 to each. */
  counters: readonly LimitedCounter[]
  blockedForMs: number
}

/** Sets `flag` until `flagExpiresAtMs` and deletes `counter`, if `counter` is at or over its limit. */
export interface SettleEntry {
  counter: string
  limit: number
  fallbackLimit: number
  flag: string
  flagExpiresAtMs: number
}

/** A change of the shared store's state, for the log (resilient-counter-store.ts). */
export interface CounterStoreEvent {
  state: 'shared' | 'fallback'
  /** Why Redis was given up (fallback only). */
  error?: unknown
}

export interface CounterStore {
  /** Adds 1 to each counter (rate limits). A counter that did not exist, or had expired, starts at 1. */
  increment: (counters: readonly CounterSpec[]) => Promise<Counted>
  /** Lockout, one atomic step: refuse while a flag lives or a counter is at its limit, else count. */
  reserve: (request: ReserveRequest) => Promise<Reservation>
  /** Lockout, one atomic step: lock what reached its limit. */
  settle: (entries: readonly SettleEntry[]) => Promise<Answered>
  /** Takes back one count from each existing counter (an attempt that turned out not to be a failure). */
  release: (keys: readonly string[]) => Promise<Answered>
  delete: (keys: readonly string[]) => Promise<Answered>
  /** Whether the shared store answers (for /health); absent when state is in process only. */
  ping?: () => Promise<void>
  /** Called on every change between shared state and the in-process fallback. */
  watch?: (listener: (event: CounterStoreEvent) => void) => void
  /** Releases connections and timers; safe to call twice. */
  close: () => Promise<void>
}

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
  private writes = 0

  constructor (private readonly now: () => number = Date.now) {}

  async increment (counters: readonly CounterSpec[]): Promise<Counted> {
    const now = this.now()
    this.maybeSweep(now)
    return { values: counters.map((counter) => this.add(counter, now)), fallback: false }
  }

  async reserve (request: ReserveRequest): Promise<Reservation> {
    const now = this.now()
    this.maybeSweep(now)
    const longest = Math.max(0, ...request.flags.map((flag) => this.remaining(flag, now)))
    if (longest > 0) return { granted: false, retryAfterMs: longest, fallback: false }
    if (request.counters.some((counter) => this.value(counter.key, now) >= counter.limit)) {
      return { granted: false, retryAfterMs: request.blockedForMs, fallback: false }
    }
    for (const counter of request.counters) this.add(counter, now)
    return { granted: true, fallback: false }
  }

  async settle (entries: readonly SettleEntry[]): Promise<Answered> {
    const now = this.now()
    for (const entry of entries) {
      if (this.value(entry.counter, now) < entry.limit) continue
      this.entries.set(entry.flag, { value: 1, expiresAtMs: entry.flagExpiresAtMs })
      this.entries.delete(entry.counter)
    }
    return { fallback: false }
  }

  async release (keys: readonly string[]): Promise<Answered> {
    const now = this.now()
    for (const key of keys) {
      const entry = this.entries.get(key)
      if (entry === undefined || entry.expiresAtMs <= now) continue
      entry.value -= 1
      if (entry.value <= 0) this.entries.delete(key)
    }
    return { fallback: false }
  }

  async delete (keys: readonly string[]): Promise<Answered> {
    for (const key of keys) this.entries.delete(key)
    return { fallback: false }
  }

  async close (): Promise<void> {
    this.entries.clear()
  }

  /** Milliseconds until a key expires; 0 when absent or expired (tests, and the fallback's locks). */
  remainingMs (key: string): number {
    return this.remaining(key, this.now())
  }

  /** Number of live entries (tests check that sweeping bounds memory). */
  get size (): number {
    return this.entries.size
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

  private maybeSweep (now: number): void {
    this.writes += 1
    if (this.writes % SWEEP_EVERY_WRITES !== 0) return
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= now) this.entries.delete(key)
    }
  }
}
