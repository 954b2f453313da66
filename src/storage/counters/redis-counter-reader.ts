import { Redis } from 'ioredis'

/**
 * Reads counters from the Redis the servers count in, without changing them (the operator's
 * `usage` command). A connection of its own, closed after the one read; a server that does not
 * answer fails the read within about two seconds.
 */
export async function readRedisCounters (url: string, prefix: string, keys: readonly string[]): Promise<number[]> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null })
  // The socket's own error (ECONNREFUSED …) says more than the rejection ("Connection is closed").
  let socketError: Error | undefined
  redis.on('error', (error: Error) => { socketError ??= error })
  try {
    await redis.connect()
    const values = keys.length === 0 ? [] : await redis.mget(...keys.map((key) => prefix + key))
    return values.map((value) => value === null ? 0 : Number(value))
  } catch (error) {
    throw socketError ?? error
  } finally {
    redis.disconnect()
  }
}
