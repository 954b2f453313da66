/**
 * Host name lookups of webhook targets, bounded per partner and in all (docs/webhooks.md "Safe
 * targets"): at most `perPartner` of one partner's lookups run at once and `total` of everyone's;
 * the others wait, in bounded queues (per partner and in all), served partner after partner in
 * turn, each for at most `waitMs`. A lookup that runs gets `timeoutMs`, then fails (the host did not
 * resolve: the endpoint's own doing) and its slot is free at once — the resolver is told to give
 * up (the system's resolver cancels its queries). A lookup that found no slot in time, or no room
 * to wait, fails with LookupsBusy: the service was busy, which is never the endpoint's fault. So a
 * partner whose names never answer holds its own few slots and nobody else's.
 */

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Every address a host name resolves to; `signal` says the answer is no longer wanted. Tests inject their own. */
export type Resolver = (hostname: string, signal?: AbortSignal) => Promise<ResolvedAddress[]>

export interface LookupLimits {
  perPartner: number
  total: number
  waitingPerPartner: number
  waitingTotal: number
  /** How long a lookup may wait for a slot. */
  waitMs: number
  /** How long a running lookup may take. */
  timeoutMs: number
}

export const LOOKUP_LIMITS: LookupLimits = { perPartner: 4, total: 64, waitingPerPartner: 32, waitingTotal: 512, waitMs: 2000, timeoutMs: 5000 }

/** No slot for the lookup in time: the service is busy with lookups (the partner's own, mostly); try later. */
export class LookupsBusy extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'LookupsBusy'
  }
}

export interface NameLookups {
  /** The addresses `hostname` resolves to; rejects with LookupsBusy, or with the lookup's failure or timeout. */
  resolve: (partnerId: string, hostname: string) => Promise<ResolvedAddress[]>
  /** Lookups running and waiting now. */
  stats: () => { running: number, waiting: number }
}

interface Waiter {
  start: () => void
  timer: NodeJS.Timeout
}

export function createNameLookups (resolver: Resolver, limits: LookupLimits = LOOKUP_LIMITS): NameLookups {
  const running = new Map<string, number>()
  let total = 0
  /** Waiting lookups by partner; the Map's order is the turn (a served partner goes to the end). */
  const waiting = new Map<string, Waiter[]>()
  let waitingCount = 0

  const canRun = (partnerId: string): boolean => total < limits.total && (running.get(partnerId) ?? 0) < limits.perPartner
  const take = (partnerId: string): void => {
    running.set(partnerId, (running.get(partnerId) ?? 0) + 1)
    total++
  }
  const release = (partnerId: string): void => {
    const left = (running.get(partnerId) ?? 1) - 1
    if (left <= 0) running.delete(partnerId)
    else running.set(partnerId, left)
    total--
    dispatch()
  }

  /** Starts waiting lookups while slots allow, one partner after another. */
  function dispatch (): void {
    let started = true
    while (started && total < limits.total) {
      started = false
      for (const [partnerId, queue] of waiting) {
        if (!canRun(partnerId)) continue
        const waiter = queue.shift()
        waiting.delete(partnerId)
        if (waiter === undefined) continue
        waitingCount--
        if (queue.length > 0) waiting.set(partnerId, queue)
        clearTimeout(waiter.timer)
        take(partnerId)
        waiter.start()
        started = true
        break
      }
    }
  }

  async function slot (partnerId: string): Promise<void> {
    if (canRun(partnerId) && !waiting.has(partnerId)) {
      take(partnerId)
      return
    }
    const queue = waiting.get(partnerId) ?? []
    if (queue.length >= limits.waitingPerPartner || waitingCount >= limits.waitingTotal) {
      throw new LookupsBusy('too many host name lookups under way')
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          const index = queue.indexOf(waiter)
          if (index >= 0) {
            queue.splice(index, 1)
            waitingCount--
            if (queue.length === 0) waiting.delete(partnerId)
          }
          reject(new LookupsBusy(`no host name lookup slot within ${limits.waitMs} ms`))
        }, limits.waitMs),
      }
      queue.push(waiter)
      waitingCount++
      if (!waiting.has(partnerId)) waiting.set(partnerId, queue)
    })
  }

  return {
    async resolve (partnerId, hostname) {
      await slot(partnerId)
      const controller = new AbortController()
      let timer: NodeJS.Timeout | undefined
      try {
        const lookup = resolver(hostname, controller.signal)
        // A lookup given up on may still settle later: that must not be an unhandled rejection.
        lookup.catch(() => {})
        return await Promise.race([lookup, new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            controller.abort()
            reject(new Error(`no answer within ${limits.timeoutMs} ms`))
          }, limits.timeoutMs)
        })])
      } finally {
        clearTimeout(timer)
        release(partnerId)
      }
    },
    stats: () => ({ running: total, waiting: waitingCount }),
  }
}
