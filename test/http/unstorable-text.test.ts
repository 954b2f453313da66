import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { RouteEntry } from '../../src/http/app.js'
import { concretePath, everyBodyChoice, everyQueryChoice, hasQuery, pathParameters } from '../helpers/route-inputs.js'
import { DIALECTS } from '../helpers/stores.js'
import { closeWorld, openWorld, type World } from './content-type-world.js'

/**
 * Text no store can hold — a NUL (PostgreSQL's text refuses it: a 500 before), an unpaired
 * surrogate (no UTF-8 form) — sent in every place of every route the app's route table lists, on
 * both stores (issue 27.6): a path id holding one is 404 (nothing has it), a declared query
 * parameter or a body member holding one is 422 naming it (the login's keys: the contract's 401
 * "Malformed …", judged before any store), and nothing answers 5xx. The routes,
 * their parameters and their members come from the route table and the schemas, so a route added
 * tomorrow is walked the same way.
 */

const NUL = '\u0000'
const LONE_SURROGATE = '\ud800'
const PERIOD = { since: '2026-03-30', until: '2026-04-02' }

interface Probe { label: string, request: InjectOptions, path: Record<string, string>, expect: { status: 401 } | { status: 404 } | { status: 422, loc: string[] } }

const isPartner = (route: RouteEntry): boolean => route.access?.auth === 'bearer'
const bodyProperties = (route: RouteEntry): string[] => Object.keys((route.schema?.body as { properties?: object } | undefined)?.properties ?? {})
const queryProperties = (route: RouteEntry): string[] => Object.keys((route.schema?.querystring as { properties?: object } | undefined)?.properties ?? {})

function bodyOf (route: RouteEntry, w: World): Record<string, unknown> | undefined {
  try {
    return everyBodyChoice(route, w.known)?.[0]
  } catch {
    return {}
  }
}

/** Every way to put unstorable text into the route: each path parameter, each declared query parameter, each body member. */
function probesOf (route: RouteEntry, w: World): Probe[] {
  const headers = isPartner(route) ? { authorization: `Bearer ${w.token}` } : {}
  const query = everyQueryChoice(route, hasQuery(route, 'since') ? PERIOD : {})[0] ?? {}
  // A body the route accepts when the world knows its required members; else only the member sent:
  // the 422 then names the missing members too, and the probe's member exactly once.
  const body = bodyOf(route, w)
  const valid: InjectOptions = { headers, query, ...(body === undefined ? {} : { payload: body }) }
  // The world's webhook and delivery; any other parameter a plain word (the probe is refused before it is looked up).
  const path = { ...Object.fromEntries(pathParameters(route).map((name) => [name, 'x'])), ...w.webhooks.own }
  const probes: Probe[] = []
  for (const name of pathParameters(route)) {
    for (const value of [`${path[name] ?? ''}${NUL}`, NUL]) {
      probes.push({ label: `path ${name} ${JSON.stringify(value)}`, request: valid, path: { ...path, [name]: value }, expect: { status: 404 } })
    }
  }
  for (const name of queryProperties(route)) {
    probes.push({ label: `query ${name} with a NUL`, request: { ...valid, query: { ...query, [name]: `x${NUL}` } }, path, expect: { status: 422, loc: ['query', name] } })
  }
  for (const name of bodyProperties(route)) {
    // The login judges its keys' format itself, before any store: a malformed key is the contract's 401.
    const checkedByRoute = route.url === '/auth/login'
    for (const [what, text] of [['a NUL', `x${NUL}`], ['an unpaired surrogate', `x${LONE_SURROGATE}`]]) {
      // JSON.stringify writes an unpaired surrogate as its \ud800 escape: what a client's JSON carries.
      const payload = JSON.stringify({ ...body, [name]: text })
      probes.push({ label: `body ${name} with ${what}`, request: { ...valid, payload, headers: { ...headers, 'content-type': 'application/json' } }, path, expect: checkedByRoute ? { status: 401 } : { status: 422, loc: ['body', name] } })
    }
  }
  return probes
}

async function send (w: World, route: RouteEntry, probe: Probe): Promise<LightMyRequestResponse> {
  return await w.app.inject({ ...probe.request, method: route.method as InjectOptions['method'], url: concretePath(route, probe.path) })
}

for (const dialect of DIALECTS) {
  describe(`text no store can hold, on every route (${dialect})`, () => {
    let world: World | undefined
    const w = (): World => {
      if (world === undefined) throw new Error('the world is not open')
      return world
    }
    before(async () => { world = await openWorld(dialect) })
    after(async () => { await closeWorld(world) })

    it('walks the routes that take text: webhooks by id, their bodies, the login, the cursors', () => {
      const walked = w().app.routeTable.filter((route) => probesOf(route, w()).length > 0).map((route) => `${route.method} ${route.url}`)
      for (const expected of ['GET /webhooks/:id', 'PATCH /webhooks/:id', 'POST /webhooks/:id/test', 'POST /webhooks/:id/deliveries/:delivery_id/redeliver', 'POST /webhooks', 'POST /auth/login', 'GET /posts', 'GET /changes', 'GET /me']) {
        assert.ok(walked.includes(expected), `${expected} is walked`)
      }
    })

    it('answers 404 for a path id holding one, 422 naming a query parameter or body member holding one, never 5xx', async () => {
      let sent = 0
      for (const route of w().app.routeTable.filter((entry) => entry.json)) {
        for (const probe of probesOf(route, w())) {
          const label = `${route.method} ${route.url}: ${probe.label}`
          const response = await send(w(), route, probe)
          sent += 1
          assert.equal(response.statusCode, probe.expect.status, `${label}: ${response.body}`)
          if (route.method === 'HEAD') continue
          const body = response.json<{ error_code: string, detail: unknown }>()
          const expect = probe.expect
          if (expect.status === 404) {
            assert.equal(body.error_code, 'NOT_FOUND', label)
          } else if (expect.status === 401) {
            assert.equal(body.error_code, 'INVALID_CREDENTIALS', label)
            assert.match(String(body.detail), /^Malformed API (client|secret) key$/, label)
          } else {
            assert.equal(body.error_code, 'VALIDATION_ERROR', label)
            const locs = (body.detail as Array<{ loc: string[] }>).map((issue) => issue.loc.join('.'))
            // Named once; another item may name a member the probe's base query combines badly with it (start with cursor).
            assert.equal(locs.filter((loc) => loc === expect.loc.join('.')).length, 1, `${label}: ${response.body}`)
          }
        }
      }
      assert.ok(sent > 60, `${sent} probes`)
    })

    it('words the 422 item for text the schema itself accepts, and the 404 for an id', async () => {
      const webhook = w().webhooks.own
      const patch = await w().app.inject({ method: 'PATCH', url: `/webhooks/${webhook.id ?? ''}`, headers: { authorization: `Bearer ${w().token}` }, payload: { description: `a${NUL}b` } })
      assert.equal(patch.statusCode, 422, patch.body)
      assert.deepEqual(patch.json<{ detail: unknown }>().detail, [{ loc: ['body', 'description'], msg: 'String must not contain the NUL character (U+0000)', type: 'string_unstorable', ctx: {} }])
      const surrogate = await w().app.inject({ method: 'POST', url: '/webhooks', headers: { authorization: `Bearer ${w().token}`, 'content-type': 'application/json' }, payload: `{"url":${JSON.stringify(w().known.url)},"description":"\\udc00 alone"}` })
      assert.equal(surrogate.statusCode, 422, surrogate.body)
      assert.deepEqual(surrogate.json<{ detail: unknown }>().detail, [{ loc: ['body', 'description'], msg: 'String must not contain an unpaired surrogate', type: 'string_unstorable', ctx: {} }])
      // A pair is one character (U+1F600), stored as given.
      const paired = await w().app.inject({ method: 'PATCH', url: `/webhooks/${webhook.id ?? ''}`, headers: { authorization: `Bearer ${w().token}` }, payload: { description: 'smile \ud83d\ude00' } })
      assert.equal(paired.statusCode, 200, paired.body)
      assert.equal(paired.json<{ description: string }>().description, 'smile \ud83d\ude00')
      const got = await w().app.inject({ method: 'GET', url: `/webhooks/${webhook.id ?? ''}%00`, headers: { authorization: `Bearer ${w().token}` } })
      assert.equal(got.statusCode, 404)
      assert.equal(got.json<{ detail: string }>().detail, `Nothing has the id ${JSON.stringify(`${webhook.id ?? ''}${NUL}`)}: no id holds the NUL character (U+0000)`)
    })
  })
}
