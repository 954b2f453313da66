import type { CounterStore } from '../../storage/counters/counter-store.js'
import { fallbackLimit } from '../ratelimit/fallback-limits.js'

/**
 * Login lockout (docs/api-reference.md "Authentication", docs/authentication.md "Lockout"). Failed
 * logins are counted per client key and per IP in a window of LOGIN_LOCKOUT_SECONDS that starts at
 * the first failure. The failure that reaches the limit sets a lock lasting LOGIN_LOCKOUT_SECONDS
 * from that failure; while it lives, every login for that key (or from that IP) is refused, even a
 * correct one.
 *
 * Decided atomically, so that N concurrent wrong logins evaluate at most the limit's worth of
 * guesses, on one instance or many: an attempt is counted as a failure *before* its secret is
 * checked, in the same atomic step as the lock check ({@link LoginLockout.begin}); an attempt that
 * finds the count already at the limit (earlier attempts still being checked) is refused without
 * being evaluated. Afterwards the attempt is settled: a wrong pair keeps its count and locks what
 * reached its limit; a right pair clears the key's count and takes back its IP count; an attempt
 * that could not be checked (the database failed) takes back both.
 */

export interface LockoutPolicy {
  maxFailures: number
  maxFailuresPerIp: number
  lockoutSeconds: number
}

export type LockState =
  | { locked: false }
  /** Whole seconds until the longest applicable lock ends (at least 1). */
  | { locked: true, retryAfterSeconds: number }

export class LoginLockout {
  constructor (
    private readonly store: CounterStore,
    private readonly policy: LockoutPolicy,
    /** While Redis is away, each limit is divided by this (docs/reliability.md). */
    private readonly fallbackDivisor = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks the locks and counts the attempt as a failure, in one step; refuses when locked or at the limit. */
  async begin (clientKey: string, ip: string): Promise<LockState> {
    const windowEnd = this.now() + this.windowMs
    const reservation = await this.store.reserve({
      flags: [lockKey('key', clientKey), lockKey('ip', ip)],
      counters: [
        this.limited(failureKey('key', clientKey), windowEnd, this.policy.maxFailures),
        this.limited(failureKey('ip', ip), windowEnd, this.policy.maxFailuresPerIp),
      ],
      // At the limit with attempts still in flight: the lock they are about to set lasts this long.
      blockedForMs: this.windowMs,
    })
    if (reservation.granted) return { locked: false }
    return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil(reservation.retryAfterMs / 1000)) }
  }

  /** The attempt was a wrong pair: its count stays, and what reached its limit locks from now. */
  async recordFailure (clientKey: string, ip: string): Promise<void> {
    const lockEnd = this.now() + this.windowMs
    await this.store.settle([
      { counter: failureKey('key', clientKey), flag: lockKey('key', clientKey), flagExpiresAtMs: lockEnd, ...this.limits(this.policy.maxFailures) },
      { counter: failureKey('ip', ip), flag: lockKey('ip', ip), flagExpiresAtMs: lockEnd, ...this.limits(this.policy.maxFailuresPerIp) },
    ])
  }

  /** The attempt was a right pair: the key's failures are cleared; the IP's stay (spraying must add up), less this attempt. */
  async recordSuccess (clientKey: string, ip: string): Promise<void> {
    await this.store.delete([failureKey('key', clientKey)])
    await this.store.release([failureKey('ip', ip)])
  }

  /** The attempt could not be judged (e.g. the database failed): it does not count. */
  async abandon (clientKey: string, ip: string): Promise<void> {
    await this.store.release([failureKey('key', clientKey), failureKey('ip', ip)])
  }

  private get windowMs (): number {
    return this.policy.lockoutSeconds * 1000
  }

  private limits (limit: number): { limit: number, fallbackLimit: number } {
    return { limit, fallbackLimit: fallbackLimit(limit, this.fallbackDivisor) }
  }

  private limited (key: string, expiresAtMs: number, limit: number) {
    return { key, expiresAtMs, ...this.limits(limit) }
  }
}

function failureKey (kind: 'key' | 'ip', subject: string): string {
  return `login-fail:${kind}:${subject}`
}

function lockKey (kind: 'key' | 'ip', subject: string): string {
  return `login-lock:${kind}:${subject}`
}
