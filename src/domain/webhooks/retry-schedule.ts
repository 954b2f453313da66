/**
 * When a failed delivery is tried again (docs/webhooks.md "Retries"): a list of waits, one per
 * retry, each stretched or shrunk by up to ±10 % at random so that many deliveries failing at
 * once (an endpoint down, then back) do not all come back at the same instant. The default spans
 * 27.6 hours, so even with every wait shrunk by 10 % the last attempt comes more than a day after
 * the first.
 */

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h'

/** 1 to 20 durations, comma-separated: an integer and a unit (ms, s, m, h). */
export const RETRY_SCHEDULE_PATTERN = '^\\s*\\d{1,9}(ms|s|m|h)\\s*(,\\s*\\d{1,9}(ms|s|m|h)\\s*){0,19}$'

/** How far a wait may move either way. */
export const RETRY_JITTER = 0.1

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** The waits in milliseconds; throws on text the pattern refuses (the configuration checks it first). */
export function parseRetrySchedule (text: string): number[] {
  if (!new RegExp(RETRY_SCHEDULE_PATTERN).test(text)) throw new RangeError(`not a retry schedule: ${JSON.stringify(text)}`)
  return text.split(',').map((item) => {
    const match = /^(\d+)(ms|s|m|h)$/.exec(item.trim())
    return Number(match?.[1]) * (UNIT_MS[match?.[2] ?? 'ms'] ?? 1)
  })
}

/**
 * The wait before the next attempt after `attemptsMade` attempts of this round have failed, or
 * undefined when the schedule is spent (the delivery has failed). `random` is in [0, 1).
 */
export function retryDelayMs (schedule: readonly number[], attemptsMade: number, random: number): number | undefined {
  const base = schedule[attemptsMade - 1]
  if (base === undefined) return undefined
  return Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random))
}
