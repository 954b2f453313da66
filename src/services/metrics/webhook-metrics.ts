import { Counter, Gauge, type Registry } from 'prom-client'
import type { Store } from '../../storage/db.js'
import { readBacklog } from '../../storage/webhooks/delivery-queue.repository.js'
import type { AttemptOutcome } from '../webhooks/attempt.js'
import { boundedRead } from './bounded-read.js'

/**
 * The webhook deliveries' metrics (docs/operations.md "Metrics"): this process's attempts by
 * outcome (a closed set of labels), and the outbox's backlog — how many deliveries wait and how
 * old the oldest is — read from the primary at scrape time within BACKLOG_READ_TIMEOUT_MS.
 */
export interface WebhookMetricsSource {
  store: Store
  attemptsByOutcome: () => Readonly<Record<AttemptOutcome, number>>
  now: () => number
}

export const BACKLOG_READ_TIMEOUT_MS = 1000

export function registerWebhookMetrics (registry: Registry, source: WebhookMetricsSource): void {
  let pending = 0
  let oldestAgeSeconds = 0
  // Both gauges share one read per scrape.
  const fresh = boundedRead(async () => {
    const backlog = await readBacklog(source.store.db)
    pending = backlog.pending
    oldestAgeSeconds = backlog.oldestCreatedAt === null ? 0 : Math.max(0, (source.now() - Date.parse(backlog.oldestCreatedAt)) / 1000)
  }, BACKLOG_READ_TIMEOUT_MS)

  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Counter({
    name: 'pa_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded (2xx), http_error (another status), no_answer (timeout, refused connection or target)',
    labelNames: ['outcome'],
    registers: [registry],
    collect () {
      this.reset()
      for (const [outcome, count] of Object.entries(source.attemptsByOutcome())) this.inc({ outcome }, count)
    },
  })
  // The outbox is one table every worker reads: the primary keeps one worker's value, not their sum.
  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Gauge({
    name: 'pa_webhook_queue_depth',
    help: 'Webhook deliveries pending: due, under way or waiting for a retry',
    aggregator: 'max',
    registers: [registry],
    async collect () { await fresh(); this.set(pending) },
  })
  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Gauge({
    name: 'pa_webhook_oldest_pending_age_seconds',
    help: 'Seconds since the oldest pending webhook delivery was queued (0: none pending)',
    aggregator: 'max',
    registers: [registry],
    async collect () { await fresh(); this.set(oldestAgeSeconds) },
  })
}
