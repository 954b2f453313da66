import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'

/** The Redis server tests use (CI starts one on the default port). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** A key prefix no other test run shares, so parallel test files never see each other's counters. */
export function uniqueRedisPrefix (label: string): string {
  return `test:${label}:${randomBytes(6).toString('hex')}:`
}

/** Deletes every key under the prefix (call in `after`). */
export async function deleteRedisKeys (prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL)
  try {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  } finally {
    await redis.quit()
  }
}

/** Env for buildTestApp that puts rate-limit and lockout state in Redis under `prefix`. */
export function redisEnv (prefix: string): Record<string, string> {
  return { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix }
}

/**
 * Waits until at least `marginMs` remain in the current clock minute, so a test that counts
 * requests in one fixed minute window cannot straddle two.
 */
export async function awaitRoomInMinute (marginMs = 3000): Promise<void> {
  await awaitRoomInWindow(60_000, marginMs)
}

/** The same for a clock-aligned window of any length (3_600_000: the hour). */
export async function awaitRoomInWindow (windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs)
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

/**
 * Runs `round` until one run of it starts and ends inside one clock-aligned window of `windowMs`
 * (60_000: the minute; 3_600_000: the hour; 86_400_000: the UTC day), and gives what that run
 * returned or rethrows what it threw. A run the window changed under is discarded whatever its
 * outcome — on a busy machine its requests, reads or spawns can outlast any margin, and a new
 * window rightly starts its counts again — and the round is run again, at most `rounds` times in
 * all. So `round` must make fresh state of its own each time (a new partner, a new address) and
 * check what depends on the window only from what it did itself. A run that stays in one window
 * is the product's answer: its failure fails the test at once.
 * Each run first waits for `marginMs` of room, so that most runs fit; the margin only saves
 * retries, it guarantees nothing.
 */
export async function inOneClockWindow<T> (windowMs: number, marginMs: number, round: (attempt: number) => Promise<T>, rounds = 4): Promise<T> {
  const windowOf = (ms: number): number => Math.floor(ms / windowMs)
  let crossed: unknown
  for (let attempt = 0; attempt < rounds; attempt++) {
    await awaitRoomInWindow(windowMs, marginMs)
    const started = windowOf(Date.now())
    let outcome: { value: T } | { error: unknown }
    try {
      outcome = { value: await round(attempt) }
    } catch (error) {
      outcome = { error }
    }
    if (windowOf(Date.now()) === started) {
      if ('error' in outcome) throw outcome.error
      return outcome.value
    }
    crossed = 'error' in outcome ? outcome.error : 'it passed'
  }
  throw new Error(`each of ${rounds} rounds ran across the end of a ${windowMs} ms clock window; the last one: ${crossed instanceof Error ? crossed.message : String(crossed)}`, { cause: crossed })
}
