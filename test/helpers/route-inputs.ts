import type { RouteEntry } from '../../src/http/app.js'

/**
 * What a route of the app's route table takes and answers, read from its own schema, for tests
 * that walk every route: the statuses it declares, the values of its query parameters and body
 * members, requests its schema refuses, and its path made concrete. Nothing here names a route,
 * so a route added tomorrow is read the same way.
 */

interface PropertySchema { type?: string, enum?: string[], maxLength?: number }
interface ObjectSchema { properties?: Record<string, PropertySchema>, required?: string[], additionalProperties?: boolean }

/** A value the schema accepts but no test can take from it: one the server also judges (a key pair that exists, a URL it may call). */
export type KnownValues = Record<string, unknown>

const REFUSED_WORD = 'not-a-valid-value'

function objectSchema (schema: unknown): ObjectSchema | undefined {
  return schema === undefined ? undefined : schema as ObjectSchema
}

const queryProperties = (route: RouteEntry): Record<string, PropertySchema> => objectSchema(route.schema?.querystring)?.properties ?? {}
export const hasQuery = (route: RouteEntry, name: string): boolean => name in queryProperties(route)

/** The statuses the route's schema declares; a route that declares no success answers 200 (its schema says nothing of it). */
export function declaredStatuses (route: RouteEntry): number[] {
  const declared = Object.keys((route.schema?.response as Record<string, unknown> | undefined) ?? {}).map(Number)
  const success = declared.some((status) => status >= 200 && status < 300) ? [] : [200]
  return [...new Set([...success, ...declared])].sort((a, b) => a - b)
}

/** The values a property takes when the test asks every choice: its enumeration, or both booleans. */
function choicesOf (property: PropertySchema): unknown[] | undefined {
  return property.enum ?? (property.type === 'boolean' ? [false, true] : undefined)
}

/** Every combination of the values of `properties`' enumerated and boolean members, on `base`. */
function combinations (properties: Record<string, PropertySchema>, base: Record<string, unknown>): Array<Record<string, unknown>> {
  let all = [base]
  for (const [name, property] of Object.entries(properties)) {
    const values = choicesOf(property)
    if (values !== undefined) all = all.flatMap((choice) => values.map((value) => ({ ...choice, [name]: value })))
  }
  return all
}

/** Every combination of the values of the enumerated and boolean query parameters, on `base` (a period, say). */
export function everyQueryChoice (route: RouteEntry, base: Record<string, string> = {}): Array<Record<string, string>> {
  return combinations(queryProperties(route), base).map((query) => Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)])))
}

/** A query value its parameter refuses (422): a word where a number or a listed word is expected. */
export function invalidQuery (route: RouteEntry): Record<string, string> | undefined {
  const entry = Object.entries(queryProperties(route)).find(([, property]) => property.enum !== undefined || property.type === 'integer' || property.type === 'boolean')
  return entry === undefined ? undefined : { [entry[0]]: REFUSED_WORD }
}

/** Whether requests of this method carry a body Fastify parses (GET and HEAD never do). */
export const takesBody = (route: RouteEntry): boolean => !['GET', 'HEAD'].includes(route.method)

/**
 * The bodies the route accepts: its required members (from `known`), then every value of its
 * enumerated and boolean members. Undefined for a route without a body schema. A required member
 * `known` has no value for throws, naming it: the walk cannot make that route succeed.
 */
export function everyBodyChoice (route: RouteEntry, known: KnownValues): Array<Record<string, unknown>> | undefined {
  const schema = objectSchema(route.schema?.body)
  if (schema === undefined) return undefined
  const base: Record<string, unknown> = {}
  for (const name of schema.required ?? []) {
    if (!(name in known)) throw new Error(`no value for the required body member ${name} of ${route.method} ${route.url}: add one to the known values`)
    base[name] = known[name]
  }
  return combinations(schema.properties ?? {}, base)
}

/**
 * Bodies the route's schema refuses (422), each next to an accepted one so that nothing else is
 * wrong: a required member missing, a member it does not know, a listed word it does not list, and,
 * for every method that carries a body, one that is not JSON at all.
 */
export function invalidBodies (route: RouteEntry, known: KnownValues): Array<{ label: string, payload: string | Record<string, unknown>, headers?: Record<string, string> }> {
  const bodies: Array<{ label: string, payload: string | Record<string, unknown>, headers?: Record<string, string> }> = []
  const schema = objectSchema(route.schema?.body)
  const valid = everyBodyChoice(route, known)?.[0]
  if (schema !== undefined && valid !== undefined) {
    if ((schema.required ?? []).length > 0) bodies.push({ label: `a body without ${schema.required?.join(', ')}`, payload: {} })
    if (schema.additionalProperties === false) bodies.push({ label: 'a body with a member the schema does not know', payload: { ...valid, not_a_member: true } })
    const listed = Object.entries(schema.properties ?? {}).find(([, property]) => property.enum !== undefined)
    if (listed !== undefined) bodies.push({ label: `a ${listed[0]} the schema does not list`, payload: { ...valid, [listed[0]]: REFUSED_WORD } })
  }
  if (takesBody(route)) bodies.push({ label: 'a body that is not JSON', payload: '{"unfinished', headers: { 'content-type': 'application/json' } })
  return bodies
}

/** The `:name` parameters of the route's path, in order. */
export function pathParameters (route: RouteEntry): string[] {
  return [...route.url.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '')
}

/** The path parameters the schema bounds in length, each with a value one character too long (422). */
export function overlongParameters (route: RouteEntry): Array<{ name: string, value: string }> {
  const properties = objectSchema(route.schema?.params)?.properties ?? {}
  return pathParameters(route).flatMap((name) => {
    const limit = properties[name]?.maxLength
    return limit === undefined ? [] : [{ name, value: 'x'.repeat(limit + 1) }]
  })
}

/** The route's path with each `:name` replaced by `values[name]`; throws naming a parameter `values` lacks. */
export function concretePath (route: RouteEntry, values: Record<string, string>): string {
  return route.url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`no value for the path parameter ${name} of ${route.method} ${route.url}: add one to the fixtures`)
    return encodeURIComponent(value)
  })
}
