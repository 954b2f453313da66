import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError, issue, rateLimitExceeded, validationError } from '../../domain/errors.js'
import { DEFAULT_EVENT_TYPES, MAX_WEBHOOKS_PER_PARTNER, SECRET_OVERLAP_MS, type SubscribableEventType, type WebhookEndpoint } from '../../domain/webhooks/webhooks.js'
import type { Store } from '../../storage/db.js'
import {
  backlogOf, countEndpointsOfUser, deleteEndpoint, findEndpoint, insertEndpoint, listEndpoints, lockOwner, replaceSubscriptions,
  rotateSecret, subscriptionsOf, updateEndpoint, type EndpointChanges, type EndpointRow,
} from '../../storage/webhooks/endpoints.repository.js'
import { generateWebhookId, generateWebhookSecret } from './identifiers.js'
import { LookupsBusy, type NameLookups } from './name-lookups.js'

const LOOKUPS_BUSY_RETRY_SECONDS = 2

import { checkUrl, isRefusal, resolveTarget } from './target-policy.js'
import { endpointView, orderedTypes } from './views.js'

/**
 * A partner's webhook endpoints (docs/webhooks.md "Endpoints"), and the operator's view of all of
 * them. A partner reaches only its own: another partner's endpoint is answered as unknown (404),
 * never as forbidden, so ids reveal nothing.
 */

export interface EndpointsDeps {
  store: Store
  allowPrivate: boolean
  /** Host name lookups, bounded per partner (shared with the delivery worker). */
  lookups: NameLookups
  now: () => number
  /** Tells the delivery worker that deliveries may have become due (an endpoint enabled). */
  wake: () => void
}

export interface NewEndpointInput {
  url: string
  events?: SubscribableEventType[]
  description?: string | null
}

export interface EndpointChangesInput {
  url?: string
  events?: SubscribableEventType[]
  description?: string | null
  status?: 'enabled' | 'disabled'
}

/** An endpoint with its signing secret: the answer of a creation or rotation, the only time the secret is shown. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint
  secret: string
}

/** The operator's view: every endpoint with its owner and backlog. */
export interface OperatorEndpoint extends WebhookEndpoint {
  oldestPendingAt: string | null
}

export function createEndpointsService (deps: EndpointsDeps) {
  const { store } = deps
  const db = store.db
  const at = (): string => formatUtcSeconds(deps.now())

  async function views (rows: EndpointRow[]): Promise<Array<WebhookEndpoint & { oldestPendingAt: string | null }>> {
    const ids = rows.map((row) => row.endpoint_id)
    const [types, backlog] = await Promise.all([subscriptionsOf(db, ids), backlogOf(db, ids)])
    return rows.map((row) => {
      const pending = backlog.get(row.endpoint_id)
      return {
        ...endpointView(row, types.get(row.endpoint_id) ?? [], pending?.pending ?? 0, deps.now()),
        oldestPendingAt: pending?.oldestCreatedAt === null || pending === undefined ? null : formatUtcSeconds(pending.oldestCreatedAt),
      }
    })
  }

  async function view (row: EndpointRow): Promise<WebhookEndpoint> {
    const [found] = await views([row])
    if (found === undefined) throw new Error('unreachable: one row, one view')
    const { oldestPendingAt: _oldest, ...endpoint } = found
    return endpoint
  }

  /** The endpoint if it is this user's; otherwise 404, whether it exists or not. */
  async function requireOwn (userId: string, endpointId: string): Promise<EndpointRow> {
    const row = await findEndpoint(db, endpointId)
    if (row === undefined || row.user_id !== userId) throw new AppError('NOT_FOUND', `No webhook with id ${endpointId}`)
    return row
  }

  /** The URL if it may be a target; a 422 naming the rule it breaks otherwise. */
  async function judgedUrl (userId: string, text: string): Promise<string> {
    const url = checkUrl(text, deps.allowPrivate)
    let refusal
    try {
      refusal = isRefusal(url) ? url : await resolveTarget(url, deps.allowPrivate, async (hostname) => await deps.lookups.resolve(userId, hostname))
    } catch (error) {
      // The partner's own lookups fill their share: not the URL's fault, so no 422; try again soon.
      if (error instanceof LookupsBusy) throw lookupsBusy()
      throw error
    }
    if (isRefusal(refusal)) throw validationError([issue(['body', 'url'], `URL refused (${refusal.rule}): ${refusal.message}`, `url_${refusal.rule}`, { rule: refusal.rule })])
    return text
  }

  /** 429 with Retry-After: the partner's share of host name lookups is taken (LOOKUP_LIMITS). */
  const lookupsBusy = (): AppError => {
    const error = rateLimitExceeded(LOOKUPS_BUSY_RETRY_SECONDS)
    return new AppError('RATE_LIMIT_EXCEEDED', `Too many host name lookups of your webhooks under way. Please wait ${LOOKUPS_BUSY_RETRY_SECONDS} seconds before making another request.`, { headers: error.headers, extra: error.extra })
  }

  const cleanDescription = (text: string | null | undefined): string | null => {
    const trimmed = text?.trim() ?? ''
    return trimmed === '' ? null : trimmed
  }

  return {
    async create (userId: string, input: NewEndpointInput): Promise<EndpointWithSecret> {
      const url = await judgedUrl(userId, input.url)
      const endpointId = generateWebhookId()
      const secret = generateWebhookSecret()
      // Kept to the millisecond so that "oldest first" holds for webhooks created within one second;
      // the answers show it to the second.
      const created = new Date(deps.now()).toISOString()
      await db.transaction().execute(async (trx) => {
        await lockOwner(trx, store.dialect, userId)
        const count = await countEndpointsOfUser(trx, userId)
        if (count >= MAX_WEBHOOKS_PER_PARTNER) throw new AppError('CONFLICT', `A partner may have at most ${MAX_WEBHOOKS_PER_PARTNER} webhooks; delete one first`)
        await insertEndpoint(trx, {
          endpoint_id: endpointId,
          user_id: userId,
          url,
          description: cleanDescription(input.description),
          status: 'enabled',
          disabled_by: null,
          disabled_reason: null,
          secret,
          previous_secret: null,
          previous_secret_expires_at: null,
          failing_since: null,
          created_at: created,
          updated_at: created,
        }, orderedTypes(input.events ?? DEFAULT_EVENT_TYPES))
      })
      return { endpoint: await view(await requireOwn(userId, endpointId)), secret }
    },

    async list (userId: string): Promise<WebhookEndpoint[]> {
      return (await views(await listEndpoints(db, { userId }))).map(({ oldestPendingAt: _oldest, ...endpoint }) => endpoint)
    },

    async get (userId: string, endpointId: string): Promise<WebhookEndpoint> {
      return await view(await requireOwn(userId, endpointId))
    },

    async update (userId: string, endpointId: string, input: EndpointChangesInput): Promise<WebhookEndpoint> {
      const row = await requireOwn(userId, endpointId)
      const changes: EndpointChanges = { updated_at: at() }
      if (input.url !== undefined && input.url !== row.url) changes.url = await judgedUrl(userId, input.url)
      if (input.description !== undefined) changes.description = cleanDescription(input.description)
      if (input.status === 'disabled' && row.status === 'enabled') {
        Object.assign(changes, { status: 'disabled', disabled_by: 'partner', disabled_reason: `Disabled by the partner at ${changes.updated_at}` })
      }
      if (input.status === 'enabled' && row.status === 'disabled') {
        if (row.disabled_by === 'operator') throw new AppError('CONFLICT', `Webhook ${endpointId} was disabled by the operator (${row.disabled_reason ?? 'no reason given'}); only the operator can enable it`)
        // A fresh start: the 3-day failure clock begins again.
        Object.assign(changes, { status: 'enabled', disabled_by: null, disabled_reason: null, failing_since: null })
      }
      await db.transaction().execute(async (trx) => {
        await updateEndpoint(trx, endpointId, changes)
        if (input.events !== undefined) await replaceSubscriptions(trx, endpointId, orderedTypes(input.events))
      })
      if (changes.status === 'enabled') deps.wake()
      return await view(await requireOwn(userId, endpointId))
    },

    async remove (userId: string, endpointId: string): Promise<void> {
      await requireOwn(userId, endpointId)
      await deleteEndpoint(db, endpointId)
    },

    async rotateSecret (userId: string, endpointId: string): Promise<EndpointWithSecret> {
      await requireOwn(userId, endpointId)
      const secret = generateWebhookSecret()
      const now = deps.now()
      await rotateSecret(db, endpointId, secret, formatUtcSeconds(now + SECRET_OVERLAP_MS), formatUtcSeconds(now))
      return { endpoint: await view(await requireOwn(userId, endpointId)), secret }
    },

    /** Every endpoint, or one user's, with backlogs (`partner-analytics webhooks list`). */
    async listAll (filter: { userId?: string } = {}): Promise<OperatorEndpoint[]> {
      return await views(await listEndpoints(db, filter))
    },

    /** `webhooks disable|enable ID`: an endpoint the operator disabled stays so until the operator enables it. */
    async setDisabledByOperator (endpointId: string, disabled: boolean, reason?: string): Promise<OperatorEndpoint> {
      const row = await findEndpoint(db, endpointId)
      if (row === undefined) throw new AppError('NOT_FOUND', `No webhook with id ${endpointId}`)
      const changed = at()
      if (disabled) {
        await updateEndpoint(db, endpointId, { status: 'disabled', disabled_by: 'operator', disabled_reason: `Disabled by the operator at ${changed}${reason === undefined || reason.trim() === '' ? '' : `: ${reason.trim()}`}`, updated_at: changed })
      } else if (row.status === 'disabled') {
        await updateEndpoint(db, endpointId, { status: 'enabled', disabled_by: null, disabled_reason: null, failing_since: null, updated_at: changed })
      }
      const [found] = await views([(await findEndpoint(db, endpointId)) ?? row])
      if (found === undefined) throw new Error('unreachable: one row, one view')
      return found
    },

    requireOwn,
  }
}

export type EndpointsService = ReturnType<typeof createEndpointsService>
