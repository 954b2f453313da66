import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { RouteEntry } from '../../src/http/app.js'
import { MAX_WEBHOOKS_PER_PARTNER } from '../../src/domain/webhooks/webhooks.js'
import { inOneClockWindow } from '../helpers/redis.js'
import { concretePath, everyBodyChoice, everyQueryChoice, hasQuery, invalidBodies, invalidQuery, overlongParameters, pathParameters } from '../helpers/route-inputs.js'
import type { PathValues, World } from './content-type-world.js'

/**
 * How the Content-Type walk provokes each status on a route: RECIPES[status] gives the probes
 * that must all answer that status, none when it does not apply to the route. Everything a probe
 * sends comes from the route's schema (src/http/app.ts RouteEntry) and the world's fixtures, so a
 * new route is covered without naming it here; a status declared by a route no recipe can provoke
 * fails the walk, naming both.
 */

export interface Probe {
  label: string
  app: FastifyInstance
  /** Everything but the method and the path, which are the route's. */
  request: InjectOptions
  /** The route's path parameters; when absent, a fresh webhook of the partner and a delivery of it fill them. */
  path?: PathValues
}

const PERIOD = { since: '2026-03-30', until: '2026-04-02' }
const WRONG_SECRET = 'pas_' + 'w'.repeat(43)

const isLogin = (route: RouteEntry): boolean => route.access?.rateLimit === 'ip'
const isPartner = (route: RouteEntry): boolean => route.access?.auth === 'bearer'
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })

/**
 * The requests the route accepts, as the partner: every value of every enumerated or boolean
 * query parameter (every report type, with and without split_by_platform, every order of /posts …)
 * with every such value of its body members, a body's required members from the world's values.
 */
function accepted (route: RouteEntry, w: World): InjectOptions[] {
  const headers = isPartner(route) ? bearer(w.token) : {}
  // A query parameter the world knows a value of (a report's metrics) is given, lists comma-separated.
  const known = Object.fromEntries(Object.entries(w.known).filter(([name]) => hasQuery(route, name)).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : String(value)]))
  const queries = everyQueryChoice(route, { ...(hasQuery(route, 'since') ? PERIOD : {}), ...known })
  const bodies = everyBodyChoice(route, w.known) ?? [undefined]
  return queries.flatMap((query) => bodies.map((payload) => ({ query, headers, ...(payload === undefined ? {} : { payload }) })))
}

const firstAccepted = (route: RouteEntry, w: World): InjectOptions => accepted(route, w)[0] ?? {}

/** Whether the route's body has a `filters` member (POST /reports: the scope rides in the body). */
const hasBodyFilters = (route: RouteEntry): boolean => 'filters' in ((route.schema?.body as { properties?: Record<string, unknown> } | undefined)?.properties ?? {})

/** The first accepted request with its body's filters replaced. */
function withFilters (route: RouteEntry, w: World, filters: Record<string, unknown>): InjectOptions {
  const valid = firstAccepted(route, w)
  return { ...valid, payload: { ...(valid.payload as Record<string, unknown>), filters }, headers: bearer(w.token) }
}

/** A probe's query and body as its label shows them, secrets left out (labels are printed when a probe fails). */
function shown (request: InjectOptions): string {
  const { query, payload } = request as { query?: Record<string, string>, payload?: Record<string, unknown> }
  return JSON.stringify({ ...query, ...payload }, (key, value: unknown) => key.includes('secret') ? '…' : value)
}

const success = (route: RouteEntry, w: World): Probe[] => accepted(route, w).map((request) => ({ label: shown(request), app: w.app, request }))

function loginWith (w: World, secret: string, partner = w.partner): InjectOptions {
  return { payload: { api_client_key: partner.clientKey, api_secret_key: secret } }
}

export const RECIPES: Record<number, (route: RouteEntry, world: World) => Probe[]> = {
  200: success,
  201: success,
  202: success,
  204: success,
  400: (route, w) => {
    if (hasQuery(route, 'account_id')) return [{ label: 'account_id without a platform', app: w.app, request: { ...firstAccepted(route, w), query: { ...firstAccepted(route, w).query as Record<string, string>, account_id: '10' }, headers: bearer(w.token) } }]
    return hasBodyFilters(route) ? [{ label: 'filters.account_id without a platform', app: w.app, request: withFilters(route, w, { account_id: [10] }) }] : []
  },
  401: (route, w) => {
    if (isLogin(route)) return [{ label: 'a wrong pair', app: w.app, request: loginWith(w, WRONG_SECRET) }]
    return isPartner(route) ? [{ label: 'no token', app: w.app, request: {} }, { label: 'a bad token', app: w.app, request: { headers: bearer('x.y.z') } }] : []
  },
  403: (route, w) => {
    if (isLogin(route)) return [{ label: 'a disabled user', app: w.app, request: loginWith(w, w.disabled.secretKey, w.disabled) }]
    if (!isPartner(route)) return []
    const probes: Probe[] = [{ label: 'a disabled user', app: w.app, request: { headers: bearer(w.disabledToken) } }]
    if (hasQuery(route, 'brand_id')) probes.push({ label: 'a brand not granted', app: w.app, request: { query: { ...firstAccepted(route, w).query as Record<string, string>, brand_id: '3' }, headers: bearer(w.token) } })
    if (hasBodyFilters(route)) probes.push({ label: 'filters.brand_id not granted', app: w.app, request: withFilters(route, w, { brand_id: [3] }) })
    return probes
  },
  404: (route, w) => {
    const probes: Probe[] = []
    if (hasQuery(route, 'account_id')) probes.push({ label: 'an unknown account', app: w.app, request: { query: { ...firstAccepted(route, w).query as Record<string, string>, account_id: '999', platform: 'fb' }, headers: bearer(w.token) } })
    if (hasBodyFilters(route)) probes.push({ label: 'an unknown filters.account_id', app: w.app, request: withFilters(route, w, { account_id: [999], platform: ['fb'] }) })
    const parameters = pathParameters(route)
    if (parameters.length === 0) return probes
    const request = firstAccepted(route, w)
    // Each parameter unknown in turn, the others the partner's own; then everything another partner's.
    for (const name of parameters) probes.push({ label: `an unknown ${name}`, app: w.app, request, path: { ...w.webhooks.own, [name]: w.webhooks.unknown[name] ?? '' } })
    probes.push({ label: 'another partner\'s webhook', app: w.app, request, path: w.webhooks.others })
    return probes
  },
  409: (route, w) => {
    if (!isPartner(route)) return []
    if (pathParameters(route).length === 0) {
      return [{ label: `a partner with ${MAX_WEBHOOKS_PER_PARTNER} webhooks already`, app: w.app, request: { ...firstAccepted(route, w), headers: bearer(w.webhooks.fullToken) } }]
    }
    // The webhook the operator disabled: asked to enable it (where the body can say so), to test it, to redeliver.
    return accepted(route, w)
      .filter((request) => (request.payload as Record<string, unknown> | undefined)?.status !== 'disabled')
      .map((request) => ({ label: `a webhook the operator disabled, ${shown(request)}`, app: w.app, request, path: w.webhooks.operatorDisabled }))
  },
  410: (route, w) => route.url === '/changes'
    ? [{ label: 'a cursor older than the retention', app: w.later, request: { query: { cursor: w.changesCursor }, headers: bearer(w.laterToken) } }]
    : [],
  422: (route, w) => {
    const valid = firstAccepted(route, w)
    const probes: Probe[] = []
    const query = invalidQuery(route)
    if (query !== undefined) probes.push({ label: JSON.stringify(query), app: w.app, request: { ...valid, query } })
    for (const body of invalidBodies(route, w.known)) {
      probes.push({ label: body.label, app: w.app, request: { ...valid, payload: body.payload, headers: { ...valid.headers, ...body.headers } } })
    }
    for (const { name, value } of overlongParameters(route)) {
      probes.push({ label: `${name} longer than its schema allows`, app: w.app, request: valid, path: { ...w.webhooks.own, [name]: value } })
    }
    return probes
  },
  429: (route, w) => {
    if (isLogin(route)) return [{ label: 'over the per-IP limit', app: w.limited, request: { ...loginWith(w, w.partner.secretKey), remoteAddress: '10.99.0.1' } }]
    return isPartner(route) ? [{ label: 'over the per-user limit', app: w.limited, request: { headers: bearer(w.token) } }] : []
  },
  500: (route, w) => {
    const valid = firstAccepted(route, w)
    return [{ label: 'a failure in the handler', app: w.faulty, request: { ...valid, headers: { ...valid.headers, 'x-fault': 'internal' } } }]
  },
  503: (route, w) => isPartner(route)
    ? [{ label: 'the heavy-report lane full', app: w.faulty, request: { ...firstAccepted(route, w), headers: { 'x-fault': 'overloaded', ...bearer(w.token) } } }]
    : [{ label: 'the database down', app: w.storeDown, request: {} }],
}

let addresses = 0
/** A client address of its own, so the per-IP limit and the lockout of one probe never touch another. */
const freshIp = (): string => `10.9.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`

/** Sends the probe to the route (twice for 429: the first request spends the subject's minute) and gives the answer. */
export async function answer (route: RouteEntry, status: number, probe: Probe, w: World): Promise<LightMyRequestResponse> {
  const fixture = probe.path === undefined && pathParameters(route).length > 0 ? await w.webhooks.fresh() : undefined
  try {
    const url = concretePath(route, probe.path ?? fixture?.values ?? {})
    const requestOf = (): InjectOptions => ({ remoteAddress: freshIp(), ...probe.request, method: route.method as InjectOptions['method'], url })
    if (status !== 429) return await probe.app.inject(requestOf())
    // Both requests in one clock minute: the answer of a run the minute turned under (a busy
    // machine; the second request is then the new minute's first) is not used, and the two are
    // sent again (test/helpers/redis.ts).
    return await inOneClockWindow(60_000, 10_000, async () => {
      const request = requestOf()
      await probe.app.inject(request)
      return await probe.app.inject(request)
    })
  } finally {
    await fixture?.release()
  }
}
