import type { FastifyInstance } from 'fastify'
import { AppError } from '../../src/domain/errors.js'
import { deliveryIdOf, MAX_WEBHOOKS_PER_PARTNER } from '../../src/domain/webhooks/webhooks.js'
import type { Dialect } from '../../src/storage/db.js'
import { generateWebhookId } from '../../src/services/webhooks/identifiers.js'
import { setUserDisabled } from '../../src/services/users/users.service.js'
import { StoreOverloadedError } from '../../src/storage/overload.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { buildTestApp, buildUnreadyTestApp } from '../helpers/app.js'
import { createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import type { KnownValues } from '../helpers/route-inputs.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * The apps, partners and webhooks the Content-Type walk (content-type.test.ts) sends to. The
 * webhooks are made through the services, as a partner's requests make them; their URL is an
 * address literal on 127.0.0.1 (allowed by WEBHOOK_ALLOW_PRIVATE=1), so no name is ever resolved,
 * and no delivery worker runs, so nothing is ever sent to it: deliveries only need to exist.
 */

/** The values of a route's path parameters, by name (`id`, `delivery_id`). */
export type PathValues = Record<string, string>

export interface WebhookFixtures {
  /** A webhook of the partner with a delivery, named only by probes that cannot change it (an unknown sibling id, a refused body). */
  own: PathValues
  /** A webhook of the partner the operator disabled, with a delivery made before: the partner may neither enable nor test it, nor redeliver (409). */
  operatorDisabled: PathValues
  /** Another partner's webhook with a delivery: unknown to the partner (404). */
  others: PathValues
  /** Ids nobody has. */
  unknown: PathValues
  /** A webhook of the partner with a delivery, for one probe only (it may delete or disable it); release removes what is left. */
  fresh: () => Promise<{ values: PathValues, release: () => Promise<void> }>
  /** A token of a partner that holds the most webhooks allowed: a new one is 409. */
  fullToken: string
}

export interface World {
  store: TestStore
  app: FastifyInstance
  /** RATE_LIMIT_PER_MINUTE=1: the second request of a subject is 429. */
  limited: FastifyInstance
  /** Throws the error a request's `x-fault` header names, after authentication and validation. */
  faulty: FastifyInstance
  /** On a store already closed: what a database that does not answer looks like. */
  storeDown: FastifyInstance
  storeDownStore: TestStore
  partner: TestPartner
  token: string
  disabled: TestPartner
  disabledToken: string
  /** 91 days ahead: past the change feed's retention (CHANGES_RETENTION_DAYS, 90). */
  later: FastifyInstance
  laterToken: string
  /** A /changes cursor taken now: expired for `later`. */
  changesCursor: string
  /** Body values the server judges beyond their schema: the partner's key pair, a URL it may call. */
  known: KnownValues
  webhooks: WebhookFixtures
}

/** Where the fixtures' webhooks point: an address literal (no DNS), on a port nothing listens on (nothing is sent anyway). */
const TARGET_URL = 'https://127.0.0.1:9/content-type-test'

export async function openWorld (dialect: Dialect): Promise<World> {
  const store = await createTestStore(dialect)
  await insertDatasetAndReadModel(store.store, workedExampleDataset())
  const env = { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', WEBHOOK_ALLOW_PRIVATE: '1' }
  const app = await buildTestApp(store.store, env)
  const limited = await buildTestApp(store.store, { ...env, RATE_LIMIT_PER_MINUTE: '1' })
  const faulty = await buildUnreadyTestApp(store.store, env)
  faulty.addHook('preHandler', async (request) => {
    if (request.headers['x-fault'] === 'internal') throw new Error('injected failure')
    if (request.headers['x-fault'] === 'overloaded') throw new StoreOverloadedError()
  })
  await faulty.ready()
  const storeDownStore = await createTestStore(dialect)
  const storeDown = await buildTestApp(storeDownStore.store, env)
  await storeDownStore.store.destroy()

  const partner = await createPartner(store.store, { brandIds: [1, 2] })
  const token = await loginToken(app, partner)
  const disabled = await createPartner(store.store, { brandIds: [1] })
  const disabledToken = await loginToken(app, disabled)
  await setUserDisabled(store.store.db, disabled.userId, true)
  const later = await buildTestApp(store.store, env, { now: () => Date.now() + 91 * 86_400_000 })
  const laterToken = await loginToken(later, partner)
  const changes = await app.inject({ method: 'GET', url: '/changes?start=latest', headers: { authorization: `Bearer ${token}` } })
  const changesCursor = changes.json<{ next_cursor: string }>().next_cursor

  const known = { api_client_key: partner.clientKey, api_secret_key: partner.secretKey, url: TARGET_URL, metrics: ['views'], dataset: 'daily' }
  const webhooks = await webhookFixtures(app, store, partner.userId)
  return { store, app, limited, faulty, storeDown, storeDownStore, partner, token, disabled, disabledToken, later, laterToken, changesCursor, known, webhooks }
}

export async function closeWorld (world: World | undefined): Promise<void> {
  if (world === undefined) return
  for (const app of [world.app, world.limited, world.faulty, world.storeDown, world.later]) await app.close()
  await world.store.cleanup()
  await world.storeDownStore.cleanup().catch(() => {})
}

async function webhookFixtures (app: FastifyInstance, store: TestStore, userId: string): Promise<WebhookFixtures> {
  const { endpoints, deliveries } = app.services.webhooks
  /** A webhook of the user's with one delivery (a webhook.test event, queued and never sent). */
  const webhookWithDelivery = async (owner: string): Promise<{ id: string, delivery_id: string }> => {
    const { endpoint } = await endpoints.create(owner, { url: TARGET_URL })
    const delivery = await deliveries.sendTest(owner, endpoint.id)
    return { id: endpoint.id, delivery_id: deliveryIdOf(delivery.eventNumber) }
  }

  const own = await webhookWithDelivery(userId)
  const operatorDisabled = await webhookWithDelivery(userId)
  await endpoints.setDisabledByOperator(operatorDisabled.id, true, 'Content-Type test')

  const full = await createPartner(store.store, { brandIds: [1] })
  const others = await webhookWithDelivery(full.userId)
  for (let made = 1; made < MAX_WEBHOOKS_PER_PARTNER; made++) await endpoints.create(full.userId, { url: TARGET_URL })

  return {
    own,
    operatorDisabled,
    others,
    unknown: { id: generateWebhookId(), delivery_id: deliveryIdOf(999_999_999) },
    fresh: async () => {
      const values = await webhookWithDelivery(userId)
      const release = async (): Promise<void> => {
        await endpoints.remove(userId, values.id).catch((error: unknown) => {
          if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error
        })
      }
      return { values, release }
    },
    fullToken: await loginToken(app, full),
  }
}
