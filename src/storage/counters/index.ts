import type { CounterStore } from './counter-store.js'
import { MemoryCounterStore } from './counter-store.js'
import { RedisCounterStore } from './redis-counter-store.js'

/** Redis when a URL is configured (state shared by every instance), else this process's memory. */
export function createCounterStore (options: { redisUrl?: string | undefined, redisKeyPrefix: string }): CounterStore {
  if (options.redisUrl !== undefined) return RedisCounterStore.connect(options.redisUrl, options.redisKeyPrefix)
  return new MemoryCounterStore()
}
