import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { declaredStatuses } from '../helpers/route-inputs.js'
import { DIALECTS } from '../helpers/stores.js'
import { answer, RECIPES } from './content-type-recipes.js'
import { closeWorld, openWorld, type World } from './content-type-world.js'

/**
 * Every answer of every JSON route carries exactly `Content-Type: application/json; charset=utf-8`
 * (docs/api-reference.md "Basics"; issue 19.2: agg answers had none). The routes come from the
 * app's own route table and the statuses from each route's declared responses, so a new route, a
 * new status or a new way of writing a body is covered the day it is added: a declared status no
 * recipe (content-type-recipes.ts) can provoke fails the test, naming the route and the status.
 * Success is asked with every value of every enumerated or boolean query parameter and body member
 * (every report type, with and without split_by_platform, every order of /posts, a webhook enabled
 * and disabled …), and HEAD like GET. Path parameters are filled with webhooks and deliveries the
 * world (content-type-world.ts) makes through the services.
 */

const JSON_TYPE = 'application/json; charset=utf-8'

function assertJson (response: LightMyRequestResponse, method: string, label: string): void {
  assert.equal(response.headers['content-type'], JSON_TYPE, label)
  if (method !== 'HEAD') assert.doesNotThrow(() => JSON.parse(response.body), label)
}

/**
 * 204 No Content has no body (RFC 9110 §15.3.5), and Content-Type describes a body (§8.3): there
 * is nothing for it to type, so "every response body is JSON" asks no JSON type of a 204, only
 * that it be empty; and as docs/api-reference.md "Basics" says, it is sent without one.
 */
function assertNoContent (response: LightMyRequestResponse, label: string): void {
  assert.equal(response.body, '', label)
  assert.equal(response.headers['content-length'], undefined, label)
  assert.equal(response.headers['content-type'], undefined, label)
}

for (const dialect of DIALECTS) {
  describe(`Content-Type of every JSON route, every status (${dialect})`, () => {
    let world: World | undefined
    const w = (): World => {
      if (world === undefined) throw new Error('the world is not open')
      return world
    }

    before(async () => { world = await openWorld(dialect) })
    after(async () => { await closeWorld(world) })

    it('covers the JSON routes of the table, the static pages left out', () => {
      const json = w().app.routeTable.filter((route) => route.json).map((route) => `${route.method} ${route.url}`)
      for (const expected of ['GET /health', 'POST /auth/login', 'GET /me', 'GET /analytics/', 'GET /analytics', 'GET /posts', 'HEAD /analytics/', 'GET /openapi.json', 'POST /webhooks', 'DELETE /webhooks/:id']) {
        assert.ok(json.includes(expected), expected)
      }
      assert.ok(!json.some((route) => route.includes('/dashboard') || route.startsWith('GET /docs')), json.join(', '))
    })

    it('reads the statuses from the schema: a success other than 200 replaces it', () => {
      const statuses = (method: string, url: string): number[] => {
        const route = w().app.routeTable.find((entry) => entry.method === method && entry.url === url)
        assert.ok(route !== undefined, `${method} ${url}`)
        return declaredStatuses(route)
      }
      assert.deepEqual(statuses('POST', '/webhooks'), [201, 401, 403, 409, 422, 429, 500])
      assert.deepEqual(statuses('DELETE', '/webhooks/:id'), [204, 401, 403, 404, 422, 429, 500])
      assert.deepEqual(statuses('POST', '/webhooks/:id/test'), [202, 401, 403, 404, 409, 422, 429, 500])
      assert.deepEqual(statuses('GET', '/openapi.json'), [200])
    })

    it('answers application/json; charset=utf-8 for every declared status of every JSON route', async () => {
      const seen: string[] = []
      // The export routes' statuses (202, 206, 304, 409, 410, 416 among them) and their media types
      // are held by test/exports/http.test.ts, from jobs in each real state.
      for (const route of w().app.routeTable.filter((entry) => entry.json && !entry.url.startsWith('/exports'))) {
        for (const status of declaredStatuses(route)) {
          const probes = RECIPES[status]?.(route, w()) ?? []
          assert.ok(probes.length > 0, `no way to provoke ${status} on ${route.method} ${route.url}: add one to RECIPES`)
          for (const probe of probes) {
            const label = `${route.method} ${route.url} ${status} (${probe.label})`
            const response = await answer(route, status, probe, w())
            assert.equal(response.statusCode, status, `${label}: ${response.body}`)
            if (status === 204) assertNoContent(response, label)
            else assertJson(response, route.method, label)
            seen.push(`${route.method} ${route.url} ${status}`, `${route.method} ${route.url} ${status} ${probe.label}`)
          }
        }
      }
      // Every report type, with and without split_by_platform, and every error status of /analytics/ were asked.
      for (const status of ['200', '400', '401', '403', '404', '422', '429', '500', '503']) assert.ok(seen.includes(`GET /analytics/ ${status}`), status)
      for (const type of ['daily', 'monthly', 'agg']) {
        for (const split of ['false', 'true']) assert.ok(seen.some((probe) => probe.startsWith('GET /analytics/ 200 ') && probe.includes(`"type":"${type}"`) && probe.includes(`"split_by_platform":"${split}"`)), `${type} split ${split}`)
      }
      // The webhooks' successes and conflicts, each from its real condition.
      for (const probe of [
        'POST /webhooks 201', 'DELETE /webhooks/:id 204', 'POST /webhooks/:id/test 202', 'POST /webhooks/:id/deliveries/:delivery_id/redeliver 202',
        'POST /webhooks 409 a partner with 10 webhooks already', 'PATCH /webhooks/:id 409 a webhook the operator disabled, {"status":"enabled"}',
        'POST /webhooks/:id/test 409', 'POST /webhooks/:id/deliveries/:delivery_id/redeliver 409',
        'POST /webhooks/:id/deliveries/:delivery_id/redeliver 404 an unknown delivery_id', 'GET /webhooks/:id 404 another partner\'s webhook',
      ]) assert.ok(seen.includes(probe), probe)
    })

    it('answers JSON for an unknown path and a method a path does not serve', async () => {
      for (const request of [{ method: 'GET', url: '/nope' }, { method: 'DELETE', url: '/me' }] as const) {
        const response = await w().app.inject(request)
        assert.ok([404, 405].includes(response.statusCode), String(response.statusCode))
        assertJson(response, request.method, `${request.method} ${request.url}`)
      }
    })
  })
}
