import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { CHANGE_EVENT_TYPES } from '../../src/domain/changes.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { createWebhook, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * The partner's webhook routes, on both stores: exact bodies and statuses of create, list, read,
 * change, delete and rotate; the limit of 10 (409); a partner reaches only its own webhooks
 * (404 otherwise); every bad body a 422 naming the field; the delivery log's paging and cursor.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1' }
const URL_A = 'http://127.0.0.1:9/a'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

function issues (response: LightMyRequestResponse): Array<{ loc: string[], type: string, msg: string }> {
  assert.equal(response.statusCode, 422, response.body)
  const body = response.json()
  assert.equal(body.error_code, 'VALIDATION_ERROR')
  return body.detail
}

for (const dialect of DIALECTS) {
  describe(`webhook endpoints API (${dialect})`, () => {
    let api: PartnerApi

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
        env: ENV,
      })
    })
    after(async () => { await api.close() })

    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, auth = api.auth) =>
      await api.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })

    it('creates a webhook: 201, Location, every event by default, and the secret shown once', async () => {
      const response = await call('POST', '/webhooks', { url: URL_A, description: '  Nightly ETL  ' })
      assert.equal(response.statusCode, 201, response.body)
      const body = response.json()
      assert.deepEqual(Object.keys(body), ['id', 'url', 'description', 'events', 'status', 'disabled_by', 'disabled_reason', 'created_at', 'updated_at', 'previous_secret_expires_at', 'pending_deliveries', 'secret'])
      assert.match(body.id, /^wh_[0-9A-Za-z]{24}$/)
      assert.equal(response.headers.location, `/webhooks/${body.id as string}`)
      assert.equal(response.headers['cache-control'], 'no-store')
      const expected = {
        url: URL_A,
        description: 'Nightly ETL',
        events: [...CHANGE_EVENT_TYPES],
        status: 'enabled',
        disabled_by: null,
        disabled_reason: null,
        previous_secret_expires_at: null,
        pending_deliveries: 0,
      }
      assert.deepEqual({ ...body, id: 'x', secret: 'x', created_at: 'x', updated_at: 'x' }, { ...expected, id: 'x', secret: 'x', created_at: 'x', updated_at: 'x' })
      assert.match(body.created_at, TIMESTAMP)
      assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 32)

      const read = await call('GET', `/webhooks/${body.id as string}`)
      assert.equal(read.statusCode, 200)
      const { secret: _secret, ...withoutSecret } = body
      assert.deepEqual(read.json(), withoutSecret)
      const list = await call('GET', '/webhooks')
      assert.deepEqual(list.json().data.map((hook: { id: string }) => hook.id), [body.id])
      await call('DELETE', `/webhooks/${body.id as string}`)
    })

    it('keeps the subscribed types in the feed\'s order, and changes url, events, description and status with PATCH', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: URL_A, events: ['posts.updated', 'analytics.updated'] })
      assert.deepEqual(hook.body.events, ['analytics.updated', 'posts.updated'])
      const patched = await call('PATCH', `/webhooks/${hook.id}`, { url: 'http://127.0.0.1:9/b', events: ['access.revoked'], description: 'ETL' })
      assert.equal(patched.statusCode, 200)
      assert.deepEqual([patched.json().url, patched.json().events, patched.json().description], ['http://127.0.0.1:9/b', ['access.revoked'], 'ETL'])
      const cleared = await call('PATCH', `/webhooks/${hook.id}`, { description: null })
      assert.equal(cleared.json().description, null)
      const disabled = await call('PATCH', `/webhooks/${hook.id}`, { status: 'disabled' })
      assert.deepEqual([disabled.json().status, disabled.json().disabled_by], ['disabled', 'partner'])
      assert.match(disabled.json().disabled_reason, /^Disabled by the partner at \d{4}-/)
      const enabled = await call('PATCH', `/webhooks/${hook.id}`, { status: 'enabled' })
      assert.deepEqual([enabled.json().status, enabled.json().disabled_by, enabled.json().disabled_reason], ['enabled', null, null])
      const unchanged = await call('PATCH', `/webhooks/${hook.id}`, {})
      assert.equal(unchanged.statusCode, 200)
      assert.equal((await call('DELETE', `/webhooks/${hook.id}`)).statusCode, 204)
    })

    it('lists webhooks oldest first, also those created within one second', async () => {
      const partner = await partnerWithToken(api.app, api.test.store, [1])
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        const made = await call('POST', '/webhooks', { url: `${URL_A}${i}` }, partner.auth)
        assert.equal(made.statusCode, 201, made.body)
        ids.push(made.json().id)
      }
      const listed = (await call('GET', '/webhooks', undefined, partner.auth)).json().data
      assert.deepEqual(listed.map((hook: { id: string }) => hook.id), ids)
      assert.ok(listed.every((hook: { created_at: string }) => TIMESTAMP.test(hook.created_at)), 'shown to the second')
    })

    it('refuses an 11th webhook with 409 CONFLICT', async () => {
      const partner = await partnerWithToken(api.app, api.test.store, [1])
      const made = await Promise.all(Array.from({ length: 10 }, async (_, i) => await call('POST', '/webhooks', { url: `${URL_A}${i}` }, partner.auth)))
      assert.deepEqual(made.map((response) => response.statusCode), Array(10).fill(201))
      const eleventh = await call('POST', '/webhooks', { url: URL_A }, partner.auth)
      assert.equal(eleventh.statusCode, 409)
      assert.deepEqual([eleventh.json().error_code, eleventh.json().detail], ['CONFLICT', 'A partner may have at most 10 webhooks; delete one first'])
      // Many at once cannot slip past the limit either.
      const other = await partnerWithToken(api.app, api.test.store, [1])
      const raced = await Promise.all(Array.from({ length: 14 }, async (_, i) => await call('POST', '/webhooks', { url: `${URL_A}${i}` }, other.auth)))
      assert.equal(raced.filter((response) => response.statusCode === 201).length, 10)
      assert.equal(raced.filter((response) => response.statusCode === 409).length, 4)
      assert.equal((await call('GET', '/webhooks', undefined, other.auth)).json().data.length, 10)
    })

    it('answers 404 for another partner\'s webhook on every route, and for unknown ids', async () => {
      const owner = await partnerWithToken(api.app, api.test.store, [1])
      const hook = await createWebhook(api.app, owner.auth, { url: URL_A })
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'B', change: 'renamed' } }])
      const [delivery] = (await call('GET', `/webhooks/${hook.id}/deliveries`, undefined, owner.auth)).json().data
      assert.ok(delivery !== undefined)
      const attempts: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
        ['GET', `/webhooks/${hook.id}`],
        ['PATCH', `/webhooks/${hook.id}`, { description: 'mine now' }],
        ['DELETE', `/webhooks/${hook.id}`],
        ['POST', `/webhooks/${hook.id}/rotate-secret`],
        ['POST', `/webhooks/${hook.id}/test`],
        ['GET', `/webhooks/${hook.id}/deliveries`],
        ['POST', `/webhooks/${hook.id}/deliveries/${delivery.id as string}/redeliver`],
      ]
      for (const [method, url, payload] of attempts) {
        const response = await call(method, url, payload)
        assert.equal(response.statusCode, 404, `${method} ${url}`)
        assert.deepEqual([response.json().error_code, response.json().detail], ['NOT_FOUND', `No webhook with id ${hook.id}`])
      }
      assert.deepEqual((await call('GET', '/webhooks')).json().data.filter((other: { id: string }) => other.id === hook.id), [])
      for (const url of ['/webhooks/wh_000000000000000000000000', '/webhooks/nonsense']) assert.equal((await call('GET', url)).statusCode, 404)
      const unknownDelivery = await call('POST', `/webhooks/${hook.id}/deliveries/dlv_999999/redeliver`, undefined, owner.auth)
      assert.deepEqual([unknownDelivery.statusCode, unknownDelivery.json().detail], [404, `No delivery dlv_999999 of webhook ${hook.id}`])
      assert.equal((await call('POST', `/webhooks/${hook.id}/deliveries/evt_1/redeliver`, undefined, owner.auth)).statusCode, 404)
      // Untouched by the other partner's attempts.
      assert.equal((await call('GET', `/webhooks/${hook.id}`, undefined, owner.auth)).json().description, null)
    })

    it('answers every bad body with a 422 naming the field', async () => {
      assert.deepEqual(issues(await call('POST', '/webhooks', {})).map((item) => [item.loc, item.type]), [[['body', 'url'], 'missing']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: URL_A, events: ['analytics.synced'] })).map((item) => [item.loc, item.type, item.msg]), [
        // Every type that may be named: the feed's, then the webhook-only export.completed.
        [['body', 'events'], 'enum', `Unknown event type "analytics.synced"; use ${[...CHANGE_EVENT_TYPES, 'export.completed'].join(', ')}`],
      ])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: URL_A, events: [] })).map((item) => [item.loc, item.type]), [[['body', 'events'], 'too_short']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: URL_A, events: ['posts.updated', 'posts.updated'] })).map((item) => [item.loc, item.type]), [[['body', 'events'], 'unique_items']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: URL_A, event: ['posts.updated'] })).map((item) => [item.loc, item.type, item.msg]), [[['body', 'event'], 'extra_forbidden', 'Extra inputs are not permitted']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: `http://127.0.0.1/${'x'.repeat(2048)}` })).map((item) => [item.loc, item.type]), [[['body', 'url'], 'string_too_long']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: 42 })).map((item) => [item.loc, item.type]), [[['body', 'url'], 'string_type']])
      assert.deepEqual(issues(await call('POST', '/webhooks', { url: 'not a url' })).map((item) => [item.loc, item.type]), [[['body', 'url'], 'url_invalid_url']])
      const hook = await createWebhook(api.app, api.auth, { url: URL_A })
      assert.deepEqual(issues(await call('PATCH', `/webhooks/${hook.id}`, { status: 'paused' })).map((item) => [item.loc, item.type]), [[['body', 'status'], 'string_pattern_mismatch']])
      const notJson = await api.app.inject({ method: 'POST', url: '/webhooks', headers: { ...api.auth, 'content-type': 'application/json' }, payload: '{"url":' })
      assert.deepEqual(issues(notJson).map((item) => item.loc), [['body']])
      await call('DELETE', `/webhooks/${hook.id}`)
    })

    it('pages the delivery log newest first with a cursor bound to the webhook and the status filter', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: URL_A, events: ['brand.updated'] })
      await record(api.test.store, Array.from({ length: 5 }, (_, i) => ({ type: 'brand.updated' as const, data: { brand_id: 1, brand_name: `N${i}`, change: 'renamed' as const } })))
      const seen: string[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const page: LightMyRequestResponse = await call('GET', `/webhooks/${hook.id}/deliveries?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
        assert.equal(page.statusCode, 200)
        const body = page.json()
        seen.push(...body.data.map((delivery: { event_id: string }) => delivery.event_id))
        assert.equal(body.has_more, body.next_cursor !== null)
        cursor = body.next_cursor
        pages++
      } while (cursor !== null && pages < 10)
      assert.equal(pages, 3)
      const numbers = seen.map((id) => Number(id.slice(4)))
      assert.deepEqual(numbers, [...numbers].sort((a, b) => b - a))
      assert.equal(new Set(numbers).size, 5)

      const first = (await call('GET', `/webhooks/${hook.id}/deliveries?limit=2`)).json()
      const other = await createWebhook(api.app, api.auth, { url: URL_A })
      for (const url of [
        `/webhooks/${hook.id}/deliveries?limit=2&status=pending&cursor=${encodeURIComponent(first.next_cursor)}`,
        `/webhooks/${other.id}/deliveries?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`,
        `/webhooks/${hook.id}/deliveries?cursor=${encodeURIComponent(first.next_cursor.slice(0, -2))}xx`,
      ]) {
        assert.deepEqual(issues(await call('GET', url)).map((item) => [item.loc, item.type]), [[['query', 'cursor'], 'cursor_invalid']], url)
      }
      assert.deepEqual(issues(await call('GET', `/webhooks/${hook.id}/deliveries?limit=101&status=lost`)).map((item) => item.loc), [['query', 'status'], ['query', 'limit']])
    })
  })
}
