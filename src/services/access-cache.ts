import { LRUCache } from 'lru-cache'

/**
 * What a token's holder may do is read from the store on every request in principle (disabling,
 * rotation, grants and revocations apply to tokens already issued), but the contract allows 5 s
 * for that (docs/api-reference.md "Authentication"). So the two lookups every partner request
 * makes — the token's principal and the user's grants — are kept this long per instance: a
 * change shows within ACCESS_CACHE_TTL_MS on every instance, and a busy partner costs one lookup
 * of each per interval instead of one per request.
 */
export const ACCESS_CACHE_TTL_MS = 2000

/** Entries kept per cache: enough for every active partner of a large deployment. */
const ACCESS_CACHE_ENTRIES = 50_000

/** A clock in milliseconds (performance.now by default); tests pass one they can advance. */
export interface Clock {
  now: () => number
}

/** Lookups of a cache and how many of them had to load (/metrics shows the hit ratio). */
export interface CacheStats {
  lookups: number
  misses: number
}

export function newCacheStats (): CacheStats {
  return { lookups: 0, misses: 0 }
}

/** Reads a key through the cache; `fresh` loads it again (and keeps the new value) whatever the cache holds. */
export type CachedLookup<Value> = (key: string, options?: { fresh?: boolean }) => Promise<Value>

/**
 * `load` results cached by key for ACCESS_CACHE_TTL_MS. Concurrent misses on one key share one
 * load; a failed load is not cached. Each lookup, and each load, is counted in `stats`.
 */
export function createAccessCache<Value extends NonNullable<unknown>> (load: (key: string) => Promise<Value>, clock?: Clock, stats: CacheStats = newCacheStats()): CachedLookup<Value> {
  const cache = new LRUCache<string, Value>({
    max: ACCESS_CACHE_ENTRIES,
    ttl: ACCESS_CACHE_TTL_MS,
    // Served as is until it expires; never refreshed by reading (the bound is from the load).
    updateAgeOnGet: false,
    // Read the clock on every access rather than a copy refreshed by a timer (exact bounds; the clock is cheap).
    ttlResolution: 0,
    fetchMethod: async (key) => {
      stats.misses += 1
      return await load(key)
    },
    ...(clock === undefined ? {} : { perf: clock }),
  })
  return async (key, options) => {
    stats.lookups += 1
    return await cache.fetch(key, { forceRefresh: options?.fresh === true }) as Value
  }
}
