/**
 * Expiring counters and flags: the state behind rate limits and login lockout. One interface,
 * two implementations: in process (the default) and Redis (when REDIS_URL is set, so every
 * instance sees the same counts). Expiry times are absolute epoch milliseconds so that callers
 * can align fixed windows to the clock.
 */
export interface CounterStore {
  /**
   * Adds 1 to each counter and returns the new values, in order. A counter that did not exist (or
   * had expired) starts at 1 and expires at its `expiresAtMs`; later increments keep that expiry.
   */
  increment: (counters: ReadonlyArray<{ key: string, expiresAtMs: number }>) => Promise<number[]>
  /** Milliseconds until each key expires; 0 when absent or expired. */
  remainingMs: (keys: readonly string[]) => Promise<number[]>
  /** Sets a flag that lives until `expiresAtMs`. */
  setUntil: (key: string, expiresAtMs: number) => Promise<void>
  delete: (key: string) => Promise<void>
  /** Releases connections; safe to call twice. */
  close: () => Promise<void>
}

interface Entry {
  value: number
  expiresAtMs: number
}

/** How many writes between sweeps of expired entries, so idle keys cannot pile up. */
const SWEEP_EVERY_WRITES = 1000

/** Counters in this process only: correct for one instance, not shared between instances. */
export class MemoryCounterStore implements CounterStore {
  private readonly entries = new Map<string, Entry>()
  private writes = 0

  constructor (private readonly now: () => number = Date.now) {}

  async increment (counters: ReadonlyArray<{ key: string, expiresAtMs: number }>): Promise<number[]> {
    const now = this.now()
    this.maybeSweep(now)
    return counters.map(({ key, expiresAtMs }) => {
      const entry = this.entries.get(key)
      if (entry === undefined || entry.expiresAtMs <= now) {
        this.entries.set(key, { value: 1, expiresAtMs })
        return 1
      }
      entry.value += 1
      return entry.value
    })
  }

  async remainingMs (keys: readonly string[]): Promise<number[]> {
    const now = this.now()
    return keys.map((key) => Math.max(0, (this.entries.get(key)?.expiresAtMs ?? 0) - now))
  }

  async setUntil (key: string, expiresAtMs: number): Promise<void> {
    this.maybeSweep(this.now())
    this.entries.set(key, { value: 1, expiresAtMs })
  }

  async delete (key: string): Promise<void> {
    this.entries.delete(key)
  }

  async close (): Promise<void> {
    this.entries.clear()
  }

  /** Number of live entries (tests check that sweeping bounds memory). */
  get size (): number {
    return this.entries.size
  }

  private maybeSweep (now: number): void {
    this.writes += 1
    if (this.writes % SWEEP_EVERY_WRITES !== 0) return
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= now) this.entries.delete(key)
    }
  }
}
