import type { CounterStore } from '../../storage/counters/counter-store.js'

/**
 * Login lockout (docs/api-reference.md "Authentication"). Failed logins are counted per client key and per IP in a
 * window of LOGIN_LOCKOUT_SECONDS that starts at the first failure. The failure that reaches the
 * limit sets a lock lasting LOGIN_LOCKOUT_SECONDS from that failure; while it lives, every login
 * for that key (or from that IP) is refused, even a correct one. State lives in the counter store,
 * so with Redis every instance sees the same locks.
 */

export interface LockoutPolicy {
  maxFailures: number
  maxFailuresPerIp: number
  lockoutSeconds: number
}

export interface LockState {
  locked: boolean
  /** Whole seconds until the longest applicable lock ends; 0 when not locked. */
  retryAfterSeconds: number
}

export class LoginLockout {
  constructor (
    private readonly store: CounterStore,
    private readonly policy: LockoutPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async check (clientKey: string, ip: string): Promise<LockState> {
    const remaining = await this.store.remainingMs([lockKey('key', clientKey), lockKey('ip', ip)])
    const longest = Math.max(0, ...remaining)
    return { locked: longest > 0, retryAfterSeconds: Math.ceil(longest / 1000) }
  }

  /** Counts one failed login (a well-formed but wrong pair) and locks what reached its limit. */
  async recordFailure (clientKey: string, ip: string): Promise<void> {
    const now = this.now()
    const windowEnd = now + this.policy.lockoutSeconds * 1000
    const [keyFailures = 0, ipFailures = 0] = await this.store.increment([
      { key: failureKey('key', clientKey), expiresAtMs: windowEnd },
      { key: failureKey('ip', ip), expiresAtMs: windowEnd },
    ])
    if (keyFailures >= this.policy.maxFailures) await this.lock('key', clientKey, windowEnd)
    if (ipFailures >= this.policy.maxFailuresPerIp) await this.lock('ip', ip, windowEnd)
  }

  /** A successful login clears the key's failures (not the IP's: spraying must still add up). */
  async recordSuccess (clientKey: string): Promise<void> {
    await this.store.delete(failureKey('key', clientKey))
  }

  private async lock (kind: 'key' | 'ip', subject: string, untilMs: number): Promise<void> {
    await this.store.setUntil(lockKey(kind, subject), untilMs)
    // The count starts again after the lock, so one more failure does not re-lock at once.
    await this.store.delete(failureKey(kind, subject))
  }
}

function failureKey (kind: 'key' | 'ip', subject: string): string {
  return `login-fail:${kind}:${subject}`
}

function lockKey (kind: 'key' | 'ip', subject: string): string {
  return `login-lock:${kind}:${subject}`
}
