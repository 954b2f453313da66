import type { CounterStore } from './counter-store.js'
import { MemoryCounterStore } from './memory-counter-store.js'
import { RedisCounterStore } from './redis-counter-store.js'
import { ResilientCounterStore } from './resilient-counter-store.js'

/**
 * Redis when a URL is configured (state shared by every instance, with this process's memory
 * standing in while Redis does not answer: resilient-counter-store.ts), else this process's memory.
 */
export function createCounterStore (options: { redisUrl?: string | undefined, redisKeyPrefix: string }): CounterStore {
  if (options.redisUrl !== undefined) return new ResilientCounterStore(RedisCounterStore.connect(options.redisUrl, options.redisKeyPrefix))
  return new MemoryCounterStore()
}
