import { renderChangeEvent, eventIdOf } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { storableText } from '../../domain/storable-text.js'
import { retryDelayMs } from '../../domain/webhooks/retry-schedule.js'
import { signedHeaders } from '../../domain/webhooks/signing.js'
import { DISABLE_AFTER_FAILING_MS } from '../../domain/webhooks/webhooks.js'
import type { Store } from '../../storage/db.js'
import type { TransactionBatcher } from '../../storage/transaction-batcher.js'
import type { ClaimedDelivery } from '../../storage/webhooks/delivery-queue.repository.js'
import { clearFailing, noteFailure, postponeDelivery, recordAttempt, releaseDeliveries, skipDelivery, type AttemptRecord } from '../../storage/webhooks/delivery-queue.repository.js'
import type { EventForDelivery } from '../../storage/webhooks/delivery-log.repository.js'
import { attemptDeadline } from './attempt-deadline.js'
import { postDelivery, type Agents, type SendOutcome } from './http-sender.js'
import { LookupsBusy, type NameLookups } from './name-lookups.js'
import { checkUrl, isRefusal, resolveTarget } from './target-policy.js'

/**
 * One attempt of one claimed delivery (docs/webhooks.md "Delivery"): check the partner still sees
 * the event, judge the target, POST the event signed, and write the outcome — the next attempt
 * on the retry schedule, success, or failure for good — while the claim's lease still holds.
 */

export interface WorkerLog {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
  error: (fields: object, message: string) => void
}

export interface AttemptContext {
  store: Store
  /** Where outcomes are written, batched into shared transactions. */
  writes: TransactionBatcher
  agents: Agents
  /** Host name lookups, bounded per partner. */
  lookups: NameLookups
  allowPrivate: boolean
  schedule: readonly number[]
  timeoutMs: number
  /** An attempt is started only while at least this much of its lease is left. */
  leaseReserveMs: number
  now: () => number
  random: () => number
  log: WorkerLog
  /** Aborted when the worker stops: attempts under way are cut and their leases given back. */
  stopSignal: AbortSignal
  /** Told the outcome of every attempt made (for the metrics). */
  onAttempt: (outcome: AttemptOutcome) => void
}

/**
 * What became of an attempt, in a closed set (a metric's label): a 2xx, another status, or no
 * answer at all (timeout, refused connection, refused or unresolvable target).
 */
export type AttemptOutcome = 'succeeded' | 'http_error' | 'no_answer'
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['succeeded', 'http_error', 'no_answer']

function outcomeOf (httpStatus: number | null): AttemptOutcome {
  if (httpStatus === null) return 'no_answer'
  return httpStatus >= 200 && httpStatus < 300 ? 'succeeded' : 'http_error'
}

export interface EndpointForDelivery {
  endpointId: string
  /** The partner's user id (its lookups are bounded together). */
  userId: string
  url: string
  secrets: string[]
}

export interface Claim {
  delivery: ClaimedDelivery
  token: string
  leaseUntilMs: number
}

/** Whether the endpoint answered the attempt (with any status), did not (timeout, network), or no attempt was made. */
export type AttemptResult = 'answered' | 'unanswered' | 'not_attempted'

/** Attempts one claimed delivery; never throws (a failure of our own leaves the lease to expire). */
export async function attemptDelivery (ctx: AttemptContext, endpoint: EndpointForDelivery, claim: Claim, event: EventForDelivery | undefined): Promise<AttemptResult> {
  const { delivery, token } = claim
  const db = ctx.store.db
  const fields = { webhook_id: endpoint.endpointId, event_id: eventIdOf(delivery.eventId) }
  try {
    let body: string
    if (delivery.testPayload !== null) {
      body = delivery.testPayload
    } else if (event === undefined) {
      await skipDelivery(db, endpoint.endpointId, delivery.eventId, token, 'event_expired')
      return 'not_attempted'
    } else if (!event.visible) {
      // The partner lost the brand (or the event names another user) since the delivery was queued.
      await skipDelivery(db, endpoint.endpointId, delivery.eventId, token, 'brand_not_visible')
      ctx.log.info(fields, 'webhook delivery skipped: the partner no longer sees the brand')
      return 'not_attempted'
    } else {
      body = renderChangeEvent({ eventNumber: event.eventId, type: event.type, createdAt: event.createdAt, syncId: event.syncId, data: event.data })
    }
    if (ctx.now() > claim.leaseUntilMs - ctx.leaseReserveMs || ctx.stopSignal.aborted) {
      // Not enough of the lease left to finish for sure: another claim will take it.
      await releaseDeliveries(db, endpoint.endpointId, [delivery.eventId], token)
      return 'not_attempted'
    }

    const started = ctx.now()
    const deadline = attemptDeadline(ctx.timeoutMs, ctx.stopSignal)
    let outcome: Awaited<ReturnType<typeof send>>
    try {
      outcome = await send(ctx, endpoint, eventIdOf(delivery.eventId), body, deadline.signal)
    } finally {
      deadline.clear()
    }
    if (outcome === 'lookups_busy') {
      // No slot to look the host up in time: the service was busy, not the endpoint at fault.
      // Not an attempt; due again a little later rather than at once.
      await postponeDelivery(db, endpoint.endpointId, delivery.eventId, token, ctx.now() + LOOKUPS_BUSY_DELAY_MS)
      ctx.log.info(fields, 'webhook delivery postponed: no host name lookup slot in time')
      return 'not_attempted'
    }
    if (ctx.stopSignal.aborted && outcome.httpStatus === null) {
      // Cut by the shutdown, not by the endpoint: not an attempt; the delivery is due again at once.
      await releaseDeliveries(db, endpoint.endpointId, [delivery.eventId], token)
      return 'not_attempted'
    }
    ctx.onAttempt(outcomeOf(outcome.httpStatus))
    await recordOutcome(ctx, endpoint, claim, started, outcome)
    return outcome.httpStatus === null ? 'unanswered' : 'answered'
  } catch (error) {
    // Our own failure (the store): the lease expires and the delivery is claimed again.
    ctx.log.error({ ...fields, err: error }, 'webhook delivery failed inside the service; it will be retried when its lease expires')
    return 'not_attempted'
  }
}

/** How long a delivery waits after finding the lookups busy. */
const LOOKUPS_BUSY_DELAY_MS = 5000

async function send (ctx: AttemptContext, endpoint: EndpointForDelivery, webhookId: string, body: string, signal: AbortSignal): Promise<SendOutcome | 'lookups_busy'> {
  const url = checkUrl(endpoint.url, ctx.allowPrivate)
  if (isRefusal(url)) return { httpStatus: null, error: `target refused (${url.rule}): ${url.message}`, responseExcerpt: null }
  // resolveTarget answers with a refusal rather than rejecting; the catch is for the unforeseen,
  // which must not become an unhandled rejection once the race is over.
  const judged = resolveTarget(url, ctx.allowPrivate, async (hostname) => await ctx.lookups.resolve(endpoint.userId, hostname))
    .catch((error: unknown) => error instanceof LookupsBusy ? 'lookups_busy' as const : { rule: 'unresolvable' as const, message: `host could not be judged: ${String(error)}` })
  const target = await Promise.race([
    judged,
    new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted')
      signal.addEventListener('abort', () => resolve('aborted'), { once: true })
    }),
  ])
  if (target === 'aborted') return { httpStatus: null, error: signal.reason?.name === 'TimeoutError' ? 'timeout: the host did not resolve in time' : 'aborted: the service was stopping', responseExcerpt: null }
  if (target === 'lookups_busy') return target
  if (isRefusal(target)) return { httpStatus: null, error: `target refused (${target.rule}): ${target.message}`, responseExcerpt: null }
  const headers = signedHeaders(endpoint.secrets, webhookId, Math.floor(ctx.now() / 1000), body)
  return await postDelivery(url, target, headers, body, signal, ctx.agents)
}

async function recordOutcome (ctx: AttemptContext, endpoint: EndpointForDelivery, claim: Claim, started: number, outcome: SendOutcome): Promise<void> {
  const finished = ctx.now()
  const succeeded = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300
  const delay = succeeded ? undefined : retryDelayMs(ctx.schedule, claim.delivery.roundAttempts + 1, ctx.random())
  const error = outcome.error ?? (succeeded ? null : `HTTP ${outcome.httpStatus ?? '?'}`)
  const record: AttemptRecord = {
    attemptedAt: formatUtcSeconds(started),
    durationMs: finished - started,
    httpStatus: outcome.httpStatus,
    // Whatever the receiver sent (NUL, invalid UTF-8), stored as text both stores accept.
    error: error === null ? null : storableText(error),
    responseExcerpt: outcome.responseExcerpt === null ? null : storableText(outcome.responseExcerpt),
    next: succeeded ? { status: 'succeeded' } : delay === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptMs: finished + delay },
  }
  const fields = { webhook_id: endpoint.endpointId, event_id: eventIdOf(claim.delivery.eventId), http_status: outcome.httpStatus, duration_ms: record.durationMs }
  let written: Written
  try {
    written = await writeOutcome(ctx, endpoint, claim, record, finished)
  } catch (cause) {
    // The store refused this attempt's record (its own transaction; others' are not undone).
    // It is written again without the receiver's text, and the delivery ends: counted, never
    // left to be claimed and sent again and again. Should that fail too, the store itself is
    // failing: the error goes up and the lease's expiry brings the delivery back.
    ctx.log.error({ ...fields, err: cause }, 'webhook attempt could not be recorded; recorded without its details, and the delivery ends')
    written = await writeOutcome(ctx, endpoint, claim, {
      ...record,
      error: succeeded ? null : `${outcome.httpStatus === null ? 'no answer' : `HTTP ${outcome.httpStatus}`}; the attempt's details could not be stored, so the delivery is not tried again (redeliver it to send it again)`,
      responseExcerpt: null,
      next: succeeded ? { status: 'succeeded' } : { status: 'failed' },
    }, finished)
  }
  const logged = { ...fields, attempt: written.attemptNumber }
  if (written.attemptNumber === undefined) ctx.log.warn(logged, 'webhook attempt finished after its lease was lost; its outcome is not recorded')
  else if (!succeeded) ctx.log.info({ ...logged, error: record.error, next: record.next.status }, 'webhook attempt failed')
  if (written.disabled) ctx.log.warn({ webhook_id: endpoint.endpointId }, 'webhook endpoint disabled: every attempt failed for 3 days')
}

interface Written {
  /** The attempt's number; undefined when the lease was lost (nothing written). */
  attemptNumber: number | undefined
  /** Whether this failure disabled the endpoint. */
  disabled: boolean
}

/** Writes the attempt and where it leaves the delivery and the endpoint, in the group commit. */
async function writeOutcome (ctx: AttemptContext, endpoint: EndpointForDelivery, claim: Claim, record: AttemptRecord, finished: number): Promise<Written> {
  const succeeded = record.next.status === 'succeeded'
  const at = formatUtcSeconds(finished)
  // Outcomes of attempts finishing together share one transaction (group commit); should it
  // fail, each is written again alone, so this unit may run twice and must not rely on a
  // rolled-back run: it returns what it did rather than setting anything outside.
  return await ctx.writes.run(async (trx): Promise<Written> => {
    const attemptNumber = await recordAttempt(trx, endpoint.endpointId, claim.delivery.eventId, claim.token, record)
    if (attemptNumber === undefined) return { attemptNumber, disabled: false }
    if (succeeded) {
      // Always (a no-op unless failing): a flag kept in memory could come from a rolled-back run.
      await clearFailing(trx, endpoint.endpointId)
      return { attemptNumber, disabled: false }
    }
    const disabled = await noteFailure(trx, endpoint.endpointId, at, {
      before: formatUtcSeconds(finished - DISABLE_AFTER_FAILING_MS),
      reason: `Disabled automatically at ${at}: every delivery attempt failed for 3 days (the last: ${record.error ?? 'failed'}). Fix the endpoint, then enable it again (PATCH /webhooks/${endpoint.endpointId} with {"status": "enabled"}); pending deliveries are then sent.`,
    })
    return { attemptNumber, disabled }
  })
}
