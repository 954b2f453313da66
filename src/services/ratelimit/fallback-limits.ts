/**
 * The limits in force while Redis does not answer (docs/reliability.md "Redis down"): each
 * instance then counts alone, in process, so each limit is divided by REDIS_FALLBACK_DIVISOR (the
 * number of instances), rounded down and at least 1. A limit of 0 (a window turned off) stays 0.
 */
export function fallbackLimit (limit: number, divisor: number): number {
  if (limit === 0) return 0
  return Math.max(1, Math.floor(limit / Math.max(1, divisor)))
}
