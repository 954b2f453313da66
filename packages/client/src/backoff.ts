/**
 * Exponential backoff with jitter for TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE. The server's Retry-After is a
 * floor: retrying earlier is refused anyway, so the jittered delay is added on top of it rather
 * than replacing it (spreads clients that were all told the same second).
 */

export interface BackoffOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts: number
  /** Delay before the first retry, before jitter (default 500 ms). */
  baseDelayMs: number
  /** Ceiling of the exponential part (default 30 s). */
  maxDelayMs: number
  /** [0, 1) source for jitter; Math.random by default, fixed in tests. */
  random: () => number
}

export const DEFAULT_BACKOFF: BackoffOptions = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, random: Math.random }

/**
 * Delay before retry number `retry` (1 for the first retry): "equal jitter", half fixed and half
 * random, of min(maxDelay, base · 2^(retry-1)), plus Retry-After seconds when the server gave them.
 */
export function backoffDelayMs (retry: number, retryAfterSeconds: number | undefined, options: BackoffOptions): number {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1))
  const jittered = exponential / 2 + options.random() * (exponential / 2)
  return Math.round((retryAfterSeconds ?? 0) * 1000 + jittered)
}
