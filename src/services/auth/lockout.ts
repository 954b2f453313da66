import { randomUUID } from 'node:crypto'
import type { AttemptOutcome, AttemptSubject, CounterStore } from '../../storage/counters/counter-store.js'
import { fallbackLimit } from '../ratelimit/fallback-limits.js'

/**
 * Login lockout (docs/api-reference.md "Authentication", docs/authentication.md "Lockout"). Failed
 * logins are counted per client key and per IP in a window of LOGIN_LOCKOUT_SECONDS that starts at
 * the first failure. The failure that reaches the limit sets a lock lasting LOGIN_LOCKOUT_SECONDS
 * from that failure; while it lives, every login for that key (or from that IP) is refused, even a
 * correct one (TOO_MANY_ATTEMPTS).
 *
 * However concurrent the attempts, on one instance or many, at most the limit's worth of wrong
 * guesses are evaluated per window: an attempt is admitted, in one atomic step with the lock
 * check, only while failures + attempts in flight stay below the limit, and is then counted in
 * flight ({@link LoginLockout.begin}). Once judged it is settled ({@link LoginLockout.settle}): a
 * wrong pair moves from in flight to the failures (locking what reached its limit); a right pair
 * leaves in flight and clears the key's failures; an attempt that could not be judged just leaves.
 * Attempts in flight are not failures: an attempt refused only because others are still being
 * checked is told to retry in a second (429), never locked out. Each counts in flight for at most
 * {@link IN_FLIGHT_TTL_MS}, so an instance that dies mid-attempt cannot hold a slot for ever.
 */

/** How long an admitted attempt counts in flight if never settled (its instance died). */
export const IN_FLIGHT_TTL_MS = 10_000

/** Seconds an attempt refused for attempts in flight is asked to wait: they settle in milliseconds. */
export const BUSY_RETRY_AFTER_SECONDS = 1

export interface LockoutPolicy {
  maxFailures: number
  maxFailuresPerIp: number
  lockoutSeconds: number
}

/** An admitted attempt, to be settled once judged. */
export interface LoginAttempt {
  readonly id: string
  readonly subjects: readonly AttemptSubject[]
  /** When (this process's clock) the attempt was asked for: it must be judged within IN_FLIGHT_TTL_MS. */
  readonly startedAtMs: number
  readonly admittedInFallback: boolean
}

export type LoginAdmission =
  | { admitted: true, attempt: LoginAttempt }
  /** A lock lives: TOO_MANY_ATTEMPTS for this long (whole seconds, at least 1). */
  | { admitted: false, reason: 'locked', retryAfterSeconds: number }
  /** Too many attempts in flight: retry after this many seconds. */
  | { admitted: false, reason: 'busy', retryAfterSeconds: number }

export class LoginLockout {
  constructor (
    private readonly store: CounterStore,
    private readonly policy: LockoutPolicy,
    /** While Redis is away, each limit is divided by this (docs/reliability.md). */
    private readonly fallbackDivisor = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks the locks and counts the attempt in flight, in one step. */
  async begin (clientKey: string, ip: string): Promise<LoginAdmission> {
    const startedAtMs = this.now()
    const id = randomUUID()
    const subjects = [
      this.subject('key', clientKey, this.policy.maxFailures, true),
      this.subject('ip', ip, this.policy.maxFailuresPerIp, false),
    ]
    const admission = await this.store.admitAttempt({ id, subjects, inFlightTtlMs: IN_FLIGHT_TTL_MS })
    if (admission.admitted) return { admitted: true, attempt: { id, subjects, startedAtMs, admittedInFallback: admission.fallback } }
    if (admission.reason === 'busy') return { admitted: false, reason: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS }
    return { admitted: false, reason: 'locked', retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)) }
  }

  /**
   * Whether the attempt may still be judged: past its in-flight expiry another attempt may have
   * taken its place, and judging it could evaluate one guess too many.
   */
  stillCounted (attempt: LoginAttempt): boolean {
    return this.now() - attempt.startedAtMs < IN_FLIGHT_TTL_MS
  }

  /** A wrong pair ('failure'), a right one ('success'), or not judged at all ('abandoned': the database failed). */
  async settle (attempt: LoginAttempt, outcome: AttemptOutcome): Promise<void> {
    await this.store.settleAttempt({
      id: attempt.id,
      subjects: attempt.subjects,
      outcome,
      windowEndMs: this.now() + this.policy.lockoutSeconds * 1000,
      admittedInFallback: attempt.admittedInFallback,
    })
  }

  private subject (kind: 'key' | 'ip', name: string, limit: number, clearedBySuccess: boolean): AttemptSubject {
    return {
      failures: `login-fail:${kind}:${name}`,
      inFlight: `login-inflight:${kind}:${name}`,
      lock: `login-lock:${kind}:${name}`,
      limit,
      fallbackLimit: fallbackLimit(limit, this.fallbackDivisor),
      clearedBySuccess,
    }
  }
}
