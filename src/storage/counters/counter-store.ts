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

/** What an operation reports besides its result: whether this process's memory answered for Redis. */
export interface Answered {
  fallback: boolean
}

export interface Counted extends Answered {
  /** The new values, in the order of the counters given. */
  values: number[]
}

/**
 * One thing a login attempt is counted against (a client key, an address): its failures in the
 * current window, the attempts admitted and not yet settled, and its lock (docs/authentication.md
 * "Lockout").
 */
export interface AttemptSubject {
  /** Counter of failed attempts; created with the expiry the settlement gives (the window). */
  failures: string
  /** The attempts in flight: each one counts until it is settled or its own expiry passes. */
  inFlight: string
  /** Flag set when the failures reach the limit. */
  lock: string
  limit: number
  /** The limit while this process's memory stands in for Redis (stricter: each instance counts alone). */
  fallbackLimit: number
  /** A successful attempt deletes the failures (a key's; an address's stay, so spraying adds up). */
  clearedBySuccess: boolean
}

export interface AttemptRequest {
  /** Unique per attempt: the member of each subject's in-flight set. */
  id: string
  subjects: readonly AttemptSubject[]
  /** How long the attempt counts as in flight if it is never settled (its instance died). */
  inFlightTtlMs: number
}

export type Admission =
  /** Counted as in flight against every subject. */
  | ({ admitted: true } & Answered)
  /** A lock lives, or a subject's failures alone are at its limit: retryAfterMs is the longest wait. */
  | ({ admitted: false, reason: 'locked', retryAfterMs: number } & Answered)
  /** Failures plus attempts in flight are at a limit: nothing was counted; a moment later may do. */
  | ({ admitted: false, reason: 'busy' } & Answered)

export type AttemptOutcome = 'failure' | 'success' | 'abandoned'

export interface AttemptSettlement {
  id: string
  subjects: readonly AttemptSubject[]
  outcome: AttemptOutcome
  /** A failure: a failures counter it creates, and a lock it sets, expire then. */
  windowEndMs: number
  /** Whether the admission was answered by this process's memory (the settlement goes there too). */
  admittedInFallback: boolean
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
  /**
   * Lockout, one atomic step: refuse while a lock lives or failures alone are at a limit
   * ('locked'), or while failures plus attempts in flight are at a limit ('busy'); else count the
   * attempt in flight against every subject.
   */
  admitAttempt: (request: AttemptRequest) => Promise<Admission>
  /**
   * Lockout, one atomic step: the attempt leaves the in-flight sets; a failure adds to each
   * subject's failures and locks the subjects it brings to their limit; a success clears the
   * failures of the subjects cleared by success.
   */
  settleAttempt: (settlement: AttemptSettlement) => Promise<Answered>
  /** Whether the shared store answers (for /health); absent when state is in process only. */
  ping?: () => Promise<void>
  /** Called on every change between shared state and the in-process fallback. */
  watch?: (listener: (event: CounterStoreEvent) => void) => void
  /** Releases connections and timers; safe to call twice. */
  close: () => Promise<void>
}
