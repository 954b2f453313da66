import { renderChangeEvent, eventIdOf } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { retryDelayMs } from '../../domain/webhooks/retry-schedule.js'
import { signedHeaders } from '../../domain/webhooks/signing.js'
import { DISABLE_AFTER_FAILING_MS } from '../../domain/webhooks/webhooks.js'
import type { Store } from '../../storage/db.js'
import type { TransactionBatcher } from '../../storage/transaction-batcher.js'
import type { ClaimedDelivery } from '../../storage/webhooks/delivery-queue.repository.js'
import { clearFailing, noteFailure, recordAttempt, releaseDeliveries, skipDelivery, type AttemptRecord } from '../../storage/webhooks/delivery-queue.repository.js'
import type { EventForDelivery } from '../../storage/webhooks/delivery-log.repository.js'
import { postDelivery, type Agents, type SendOutcome } from './http-sender.js'
import { checkUrl, isRefusal, resolveTarget, type Resolver } from './target-policy.js'

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
  resolver: Resolver
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
  url: string
  secrets: string[]
  /** Whether its last attempts failed (a success then clears that). */
  failing: boolean
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
    const signal = AbortSignal.any([AbortSignal.timeout(ctx.timeoutMs), ctx.stopSignal])
    const outcome = await send(ctx, endpoint, eventIdOf(delivery.eventId), body, signal)
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

async function send (ctx: AttemptContext, endpoint: EndpointForDelivery, webhookId: string, body: string, signal: AbortSignal): Promise<SendOutcome> {
  const url = checkUrl(endpoint.url, ctx.allowPrivate)
  if (isRefusal(url)) return { httpStatus: null, error: `target refused (${url.rule}): ${url.message}`, responseExcerpt: null }
  // resolveTarget answers with a refusal rather than rejecting; the catch is for the unforeseen,
  // which must not become an unhandled rejection once the race is over.
  const judged = resolveTarget(url, ctx.allowPrivate, ctx.resolver).catch((error: unknown) => ({ rule: 'unresolvable' as const, message: `host could not be judged: ${String(error)}` }))
  const target = await Promise.race([
    judged,
    new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted')
      signal.addEventListener('abort', () => resolve('aborted'), { once: true })
    }),
  ])
  if (target === 'aborted') return { httpStatus: null, error: signal.reason?.name === 'TimeoutError' ? 'timeout: the host did not resolve in time' : 'aborted: the service was stopping', responseExcerpt: null }
  if (isRefusal(target)) return { httpStatus: null, error: `target refused (${target.rule}): ${target.message}`, responseExcerpt: null }
  const headers = signedHeaders(endpoint.secrets, webhookId, Math.floor(ctx.now() / 1000), body)
  return await postDelivery(url, target, headers, body, signal, ctx.agents)
}

async function recordOutcome (ctx: AttemptContext, endpoint: EndpointForDelivery, claim: Claim, started: number, outcome: SendOutcome): Promise<void> {
  const finished = ctx.now()
  const succeeded = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300
  const delay = succeeded ? undefined : retryDelayMs(ctx.schedule, claim.delivery.roundAttempts + 1, ctx.random())
  const record: AttemptRecord = {
    attemptedAt: formatUtcSeconds(started),
    durationMs: finished - started,
    httpStatus: outcome.httpStatus,
    error: outcome.error ?? (succeeded ? null : `HTTP ${outcome.httpStatus ?? '?'}`),
    responseExcerpt: outcome.responseExcerpt,
    next: succeeded ? { status: 'succeeded' } : delay === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptMs: finished + delay },
  }
  const at = formatUtcSeconds(finished)
  let disabled = false
  // Outcomes of attempts finishing together share one transaction (group commit).
  const attemptNumber = await ctx.writes.run(async (trx) => {
    const number = await recordAttempt(trx, endpoint.endpointId, claim.delivery.eventId, claim.token, record)
    if (number === undefined) return undefined
    if (succeeded) {
      if (endpoint.failing) await clearFailing(trx, endpoint.endpointId)
      endpoint.failing = false
    } else {
      // Shared by the batch's attempts: a later success in it clears what this failure starts.
      endpoint.failing = true
      disabled = await noteFailure(trx, endpoint.endpointId, at, {
        before: formatUtcSeconds(finished - DISABLE_AFTER_FAILING_MS),
        reason: `Disabled automatically at ${at}: every delivery attempt failed for 3 days (the last: ${record.error ?? 'failed'}). Fix the endpoint, then enable it again (PATCH /webhooks/${endpoint.endpointId} with {"status": "enabled"}); pending deliveries are then sent.`,
      })
    }
    return number
  })
  const fields = { webhook_id: endpoint.endpointId, event_id: eventIdOf(claim.delivery.eventId), attempt: attemptNumber, http_status: outcome.httpStatus, duration_ms: record.durationMs }
  if (attemptNumber === undefined) ctx.log.warn(fields, 'webhook attempt finished after its lease was lost; its outcome is not recorded')
  else if (!succeeded) ctx.log.info({ ...fields, error: record.error, next: record.next.status }, 'webhook attempt failed')
  if (disabled) ctx.log.warn({ webhook_id: endpoint.endpointId }, 'webhook endpoint disabled: every attempt failed for 3 days')
}
