import { randomUUID } from 'node:crypto'
import { formatUtcSeconds } from '../../domain/dates.js'
import { parseRetrySchedule } from '../../domain/webhooks/retry-schedule.js'
import { ATTEMPT_TIMEOUT_MS } from '../../domain/webhooks/webhooks.js'
import type { Store } from '../../storage/db.js'
import { createTransactionBatcher } from '../../storage/transaction-batcher.js'
import { readEventsForDelivery } from '../../storage/webhooks/delivery-log.repository.js'
import { claimDeliveries, endpointsWithDueDeliveries, releaseDeliveries, type ClaimedDelivery, type DueFilter } from '../../storage/webhooks/delivery-queue.repository.js'
import { readEndpointForDelivery } from '../../storage/webhooks/endpoints.repository.js'
import type { ForegroundLoad } from '../foreground-load.js'
import { ATTEMPT_OUTCOMES, attemptDelivery, type AttemptContext, type AttemptOutcome, type WorkerLog } from './attempt.js'
import { createStopController } from './attempt-deadline.js'
import { createAgents } from './http-sender.js'
import { purgeExpiredDeliveries } from './retention.js'
import { createNameLookups, type NameLookups } from './name-lookups.js'
import { systemResolver } from './target-policy.js'

/**
 * The webhook delivery worker (docs/webhooks.md "Delivery"): wired once with the services,
 * started by `serve` and stopped with it. It polls the outbox, claims due deliveries with a lease
 * and runs their attempts, at most `concurrency` at once, at most a partner's share (partnerShareOf:
 * three quarters) for one partner, and at most `concurrencyPerEndpoint` to any one endpoint (one
 * while its last attempt got no answer); partners, then their endpoints, take turns at free slots.
 * An endpoint that hangs holds its own slots for at most the attempt timeout and never the
 * others', and a partner's endpoints together leave a quarter of the slots to the others, so
 * neither can delay another partner's deliveries. Only as many
 * deliveries are claimed as there are free slots, so nothing waits in memory with its lease
 * running out; the backlog stays in the database, where `webhooks list` and the partner's
 * GET /webhooks show it.
 */

export interface DeliveryWorkerOptions {
  store: Store
  allowPrivate: boolean
  /** WEBHOOK_RETRY_SCHEDULE's text. */
  retrySchedule: string
  concurrency: number
  concurrencyPerEndpoint: number
  /** Days deliveries are kept (CHANGES_RETENTION_DAYS). */
  retentionDays: number
  /** Hook for read replicas: events of a sync above this are held until it reaches them; undefined = no limit. */
  visibleThroughSyncId?: () => number | undefined
  /** Host name lookups (shared with the endpoints service); the system's resolver's, bounded, by default. */
  lookups?: NameLookups
  timeoutMs?: number
  /** How long a claim holds a delivery; a killed instance's claims come back after it. */
  leaseMs?: number
  pollMs?: number
  now?: () => number
  random?: () => number
  /** While it says busy, deliveries give way to the API (YIELDING_CONCURRENCY, one claim per poll). */
  foreground?: Pick<ForegroundLoad, 'busy'>
}

export interface DeliveryWorker {
  /** Starts polling; logs through `log`. Calling it twice does nothing. */
  start: (log: WorkerLog) => void
  /**
   * Stops claiming, lets attempts under way finish for up to `graceMs`, then cuts the rest and
   * gives their deliveries back (due again at once, for this or another instance).
   */
  stop: (graceMs?: number) => Promise<void>
  /** Looks for due deliveries now rather than at the next poll (a test event, a redelivery). */
  wake: () => void
  /** Attempts under way in this instance. */
  inFlight: () => number
  /** Attempts this instance made since it started, by outcome. */
  attemptsByOutcome: () => Readonly<Record<AttemptOutcome, number>>
  /** Deletes deliveries older than the retention (run hourly while started); returns how many went. */
  purgeExpired: () => Promise<number>
}

/**
 * Attempts under way while the API keeps the process busy, claimed at most once per poll (so a
 * few dozen a second at the default 250 ms): deliveries still progress, at a few per cent of a core.
 */
export const YIELDING_CONCURRENCY = 4

/** Endpoints considered per claiming round. */
const ENDPOINTS_PER_ROUND = 200
const PURGE_EVERY_MS = 3_600_000

/**
 * The most attempts one partner may have under way: three quarters of the instance's slots (24 of
 * the default 32), at least the per-endpoint limit. Whatever one partner's endpoints do, a quarter
 * of the slots stays for the others, so their deliveries start at once.
 */
export function partnerShareOf (concurrency: number, perEndpoint: number): number {
  return Math.min(concurrency, Math.max(perEndpoint, Math.floor(concurrency * 3 / 4)))
}

/** Endpoints reordered so that partners take turns (each partner's first, then each one's second…). */
function partnersInTurn (found: Array<{ endpointId: string, userId: string }>): Array<{ endpointId: string, userId: string }> {
  const byPartner = new Map<string, Array<{ endpointId: string, userId: string }>>()
  for (const candidate of found) byPartner.set(candidate.userId, [...(byPartner.get(candidate.userId) ?? []), candidate])
  const ordered: Array<{ endpointId: string, userId: string }> = []
  for (let index = 0; ordered.length < found.length; index++) {
    for (const endpoints of byPartner.values()) {
      const candidate = endpoints[index]
      if (candidate !== undefined) ordered.push(candidate)
    }
  }
  return ordered
}

const SILENT: WorkerLog = { info: () => {}, warn: () => {}, error: () => {} }

export function createDeliveryWorker (options: DeliveryWorkerOptions): DeliveryWorker {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  const leaseMs = options.leaseMs ?? timeoutMs * 3
  const pollMs = options.pollMs ?? 250
  const now = options.now ?? Date.now
  const schedule = parseRetrySchedule(options.retrySchedule)
  const perEndpoint = new Map<string, number>()
  /** Attempts under way by partner (user id), and the most one partner may have. */
  const perPartner = new Map<string, number>()
  const partnerShare = partnerShareOf(options.concurrency, options.concurrencyPerEndpoint)
  /** Endpoints whose last attempt got no answer (bounded: entries leave on an answer; at most one per endpoint). */
  const unanswering = new Set<string>()
  let total = 0
  const attempts = Object.fromEntries(ATTEMPT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<AttemptOutcome, number>
  let log = SILENT
  let started = false
  let stopping = false
  let stopController = createStopController()
  let agents = createAgents({ perEndpoint: options.concurrencyPerEndpoint, total: options.concurrency })
  let timer: NodeJS.Timeout | undefined
  let purgeTimer: NodeJS.Timeout | undefined
  let passing = false
  let again = false
  /** Endpoints last found with due deliveries, served in turn; when they were found; whose turn is next. */
  let candidates: Array<{ endpointId: string, userId: string }> = []
  let foundAt = -Infinity
  let turn = 0
  const idleWaiters = new Set<() => void>()
  // A closure's flag, read through a call: loops test it while awaits let stop() change it.
  const isStopping = (): boolean => stopping
  const yielding = (): boolean => options.foreground?.busy() === true
  /** Attempts allowed under way now: all of WEBHOOK_CONCURRENCY, or a few while the API is busy. */
  const limit = (): number => yielding() ? Math.min(YIELDING_CONCURRENCY, options.concurrency) : options.concurrency
  /** Runs work in the background; its own handlers catch what it expects, this reports anything else. */
  const background = (work: Promise<void>): void => {
    work.catch((error: unknown) => log.error({ err: error }, 'webhook worker: unexpected failure'))
  }

  const writes = createTransactionBatcher(options.store.db)
  const lookups = options.lookups ?? createNameLookups(systemResolver)
  const context = (): AttemptContext => ({
    store: options.store,
    writes,
    agents,
    lookups,
    allowPrivate: options.allowPrivate,
    schedule,
    timeoutMs,
    // The attempt's time limit and a margin to record its outcome.
    leaseReserveMs: timeoutMs + Math.min(5000, timeoutMs),
    now,
    random: options.random ?? Math.random,
    log,
    stopSignal: stopController.signal,
    onAttempt: (outcome) => { attempts[outcome] += 1 },
  })

  const schedulePass = (delayMs: number): void => {
    if (stopping || !started) return
    clearTimeout(timer)
    timer = setTimeout(() => { background(pass()) }, delayMs)
    timer.unref()
  }

  async function pass (): Promise<void> {
    if (passing) { again = true; return }
    passing = true
    try {
      do {
        again = false
        while (!isStopping() && total < limit() && await claimRound()) { /* claim while there is work and room */ }
      } while (again && !isStopping())
    } catch (error) {
      log.error({ err: error }, 'webhook worker: claiming deliveries failed; trying again at the next poll')
    } finally {
      passing = false
      schedulePass(pollMs)
    }
  }

  /**
   * One round over the endpoints with due work, in turn (round robin, from where the last round
   * stopped), so that slots freed one at a time go to each endpoint in turn rather than back to
   * the same one; true when it claimed anything. The endpoints with due work are looked up again
   * at most once per poll interval (or when none is left): a freed slot costs one claim, not a search.
   */
  async function claimRound (): Promise<boolean> {
    const filter: DueFilter = { nowMs: now(), maxSyncId: options.visibleThroughSyncId?.() }
    if (candidates.length === 0 || filter.nowMs - foundAt >= pollMs) {
      candidates = partnersInTurn(await endpointsWithDueDeliveries(options.store.db, filter, ENDPOINTS_PER_ROUND))
      foundAt = filter.nowMs
      turn = 0
    }
    let claimedAny = false
    const drained = new Set<string>()
    const count = candidates.length
    let next = turn
    const allowed = limit()
    for (let step = 0; step < count && total < allowed && !isStopping(); step++) {
      const candidate = candidates[(turn + step) % count]
      if (candidate === undefined) continue
      const { endpointId, userId } = candidate
      const room = Math.min(allowance(endpointId) - (perEndpoint.get(endpointId) ?? 0), partnerShare - (perPartner.get(userId) ?? 0), allowed - total)
      if (room <= 0) continue
      const lease = { token: randomUUID(), untilMs: now() + leaseMs }
      const claimed = await claimDeliveries(options.store.db, options.store.dialect, endpointId, room, filter, lease)
      if (claimed.length === 0) {
        drained.add(endpointId)
        continue
      }
      claimedAny = true
      next = (turn + step + 1) % count
      occupy(endpointId, userId, claimed.length)
      background(runClaimed(endpointId, userId, claimed, lease))
    }
    const after = candidates[next]
    candidates = candidates.filter((candidate) => !drained.has(candidate.endpointId))
    turn = after === undefined ? 0 : Math.max(0, candidates.indexOf(after))
    return claimedAny
  }

  /**
   * Attempts an endpoint may have under way: the per-endpoint limit, or one while its last attempt
   * got no answer at all (a timeout, a dead host), so a hanging endpoint holds one slot, not several.
   */
  function allowance (endpointId: string): number {
    return unanswering.has(endpointId) ? 1 : options.concurrencyPerEndpoint
  }

  function occupy (endpointId: string, userId: string, count: number): void {
    perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + count)
    perPartner.set(userId, (perPartner.get(userId) ?? 0) + count)
    total += count
  }

  function vacate (endpointId: string, userId: string): void {
    const left = (perEndpoint.get(endpointId) ?? 1) - 1
    if (left <= 0) perEndpoint.delete(endpointId)
    else perEndpoint.set(endpointId, left)
    const partnerLeft = (perPartner.get(userId) ?? 1) - 1
    if (partnerLeft <= 0) perPartner.delete(userId)
    else perPartner.set(userId, partnerLeft)
    total -= 1
    if (total === 0) for (const resolve of idleWaiters) resolve()
    // A slot came free: more may be due already (a burst), so look now rather than at the next
    // poll — unless the API keeps the process busy: then the next poll claims the next few.
    if (!stopping && !yielding()) background(pass())
  }

  async function runClaimed (endpointId: string, userId: string, claimed: ClaimedDelivery[], lease: { token: string, untilMs: number }): Promise<void> {
    const db = options.store.db
    let endpoint: Awaited<ReturnType<typeof readEndpointForDelivery>>
    let events: Awaited<ReturnType<typeof readEventsForDelivery>> = new Map()
    try {
      endpoint = await readEndpointForDelivery(db, endpointId, formatUtcSeconds(now()))
      if (endpoint?.status === 'enabled') {
        events = await readEventsForDelivery(db, endpoint.userId, claimed.filter((item) => item.testPayload === null).map((item) => item.eventId))
      }
    } catch (error) {
      log.error({ err: error, webhook_id: endpointId }, 'webhook worker: reading claimed deliveries failed; they will be claimed again')
      endpoint = undefined
    }
    if (endpoint === undefined || endpoint.status !== 'enabled') {
      // Deleted or disabled since the claim: give the deliveries back (a disabled endpoint's wait).
      await releaseDeliveries(db, endpointId, claimed.map((item) => item.eventId), lease.token).catch(() => {})
      for (let i = 0; i < claimed.length; i++) vacate(endpointId, userId)
      return
    }
    const target = { endpointId, userId: endpoint.userId, url: endpoint.url, secrets: endpoint.secrets }
    const ctx = context()
    await Promise.all(claimed.map(async (delivery) => {
      try {
        const result = await attemptDelivery(ctx, target, { delivery, token: lease.token, leaseUntilMs: lease.untilMs }, events.get(delivery.eventId))
        if (result === 'unanswered') unanswering.add(endpointId)
        if (result === 'answered') unanswering.delete(endpointId)
      } finally {
        vacate(endpointId, userId)
      }
    }))
  }

  async function purgeExpired (): Promise<number> {
    const { removed, before } = await purgeExpiredDeliveries(options.store.db, options.retentionDays, now(), isStopping)
    if (removed > 0) log.info({ removed, before }, 'webhook deliveries past the retention removed')
    return removed
  }

  async function purge (): Promise<void> {
    try {
      await purgeExpired()
    } catch (error) {
      log.error({ err: error }, 'webhook worker: removing old deliveries failed; trying again at the next run')
    }
  }

  async function idle (ms: number): Promise<void> {
    if (total === 0) return
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(finish, ms)
      function finish (): void { clearTimeout(timeout); idleWaiters.delete(finish); resolve() }
      idleWaiters.add(finish)
    })
  }

  return {
    start (workerLog) {
      if (started) return
      started = true
      stopping = false
      log = workerLog
      stopController = createStopController()
      agents = createAgents({ perEndpoint: options.concurrencyPerEndpoint, total: options.concurrency })
      schedulePass(0)
      const runPurge = (): void => {
        background(purge())
        purgeTimer = setTimeout(runPurge, PURGE_EVERY_MS)
        purgeTimer.unref()
      }
      purgeTimer = setTimeout(runPurge, 60_000)
      purgeTimer.unref()
    },
    async stop (graceMs = 5000) {
      if (!started) return
      stopping = true
      clearTimeout(timer)
      clearTimeout(purgeTimer)
      await idle(graceMs)
      stopController.abort()
      // Cut attempts give their leases back; a store that does not answer cannot hold the stop.
      await idle(2000)
      agents.destroy()
      started = false
    },
    wake () {
      if (started && !stopping) background(pass())
    },
    inFlight: () => total,
    attemptsByOutcome: () => ({ ...attempts }),
    purgeExpired,
  }
}
