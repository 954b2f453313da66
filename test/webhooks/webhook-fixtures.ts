import type { FastifyInstance } from 'fastify'
import type { NewChangeEvent } from '../../src/domain/changes.js'
import { formatUtcSeconds } from '../../src/domain/dates.js'
import type { WorkerLog } from '../../src/services/webhooks/attempt.js'
import { recordEvents, takeChangeNumbers } from '../../src/storage/changes/change-log.repository.js'
import { insertTestDelivery } from '../../src/storage/webhooks/delivery-log.repository.js'
import type { Store } from '../../src/storage/db.js'
import { insertSucceededExport, EXPORT_FILE_NAME } from '../helpers/exports.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { insertEnabledEndpoint } from '../helpers/webhook-endpoints.js'

/** Shared steps of the webhook tests: partners with tokens, webhooks made through the API, events recorded. */

export const QUIET: WorkerLog = { info: () => {}, warn: () => {}, error: () => {} }

/** Collects what the worker logs (to assert on reasons, never on timing). */
export function collectingLog (): WorkerLog & { lines: Array<{ level: string, message: string, fields: object }> } {
  const lines: Array<{ level: string, message: string, fields: object }> = []
  const at = (level: string) => (fields: object, message: string) => { lines.push({ level, message, fields }) }
  return { lines, info: at('info'), warn: at('warn'), error: at('error') }
}

export async function partnerWithToken (app: FastifyInstance, store: Store, brandIds: number[]): Promise<{ userId: string, auth: { authorization: string } }> {
  const partner = await createPartner(store, { brandIds })
  return { userId: partner.userId, auth: bearer(await loginToken(app, partner)) }
}

export interface CreatedWebhook { id: string, secret: string, body: Record<string, unknown> }

export async function createWebhook (app: FastifyInstance, auth: { authorization: string }, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const response = await app.inject({ method: 'POST', url: '/webhooks', headers: auth, payload: body })
  if (response.statusCode !== 201) throw new Error(`POST /webhooks: ${response.statusCode} ${response.body}`)
  const created = response.json() as Record<string, unknown> & { id: string, secret: string }
  return { id: created.id, secret: created.secret, body: created }
}

export async function record (store: Store, events: NewChangeEvent[], createdAt = '2026-11-25T10:00:00Z'): Promise<void> {
  await store.db.transaction().execute(async (trx) => { await recordEvents(trx, events, createdAt) })
}

export interface LoggedDelivery {
  id: string
  event_id: string
  event_type: string
  status: string
  skip_reason: string | null
  attempt_count: number
  next_attempt_at: string | null
  attempts: Array<{ attempted_at: string, duration_ms: number, http_status: number | null, error: string | null, response_body_excerpt: string | null }>
}

export async function deliveryLog (app: FastifyInstance, auth: { authorization: string }, webhookId: string, query: Record<string, string> = {}): Promise<{ data: LoggedDelivery[], has_more: boolean, next_cursor: string | null }> {
  const response = await app.inject({ method: 'GET', url: `/webhooks/${webhookId}/deliveries`, headers: auth, query })
  if (response.statusCode !== 200) throw new Error(`deliveries: ${response.statusCode} ${response.body}`)
  return response.json()
}

/**
 * A route of the table made concrete for one user, for tests that walk every route: `:id` becomes
 * a webhook of the user's (written straight to the store, so no URL rule or resolver is involved)
 * and `:delivery_id` a pending delivery of it.
 */
export async function concreteWebhookPath (store: Store, userId: string, url: string): Promise<string> {
  if (url.startsWith('/exports/:id')) return url.replace(':id', await insertSucceededExport(store, userId)).replace(':name', EXPORT_FILE_NAME)
  if (!url.includes(':id')) return url
  const endpointId = await insertEnabledEndpoint(store.db, { userId, url: 'https://93.184.216.34/hook', events: ['brand.updated'] })
  let path = url.replace(':id', endpointId)
  if (path.includes(':delivery_id')) {
    const eventId = await store.db.transaction().execute(async (trx) => {
      const { firstEventId } = await takeChangeNumbers(trx, { sync: false, eventCount: 1 })
      await insertTestDelivery(trx, { endpointId, eventId: firstEventId, payload: '{}', createdAt: formatUtcSeconds(), dueMs: Date.now() + 3_600_000 })
      return firstEventId
    })
    path = path.replace(':delivery_id', `dlv_${eventId}`)
  }
  return path
}

/** A body each route with a body accepts (POST /webhooks needs a URL; a public address needs no resolver). */
export function acceptedBody (method: string, url: string): Record<string, unknown> | undefined {
  if (method === 'POST' && url === '/webhooks') return { url: 'https://93.184.216.34/hook' }
  if (method === 'POST' && url === '/exports') return { dataset: 'daily' }
  if (method === 'POST' && url === '/reports') return { metrics: ['views'] }
  if (method === 'PATCH') return { description: 'changed' }
  return undefined
}
