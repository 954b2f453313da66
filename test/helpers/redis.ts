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
