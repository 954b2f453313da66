import type { RouteAccess } from '../route-access.js'
import { COMPONENT_MARKER } from '../schemas/components.js'
import { LOGIN_ERROR_EXAMPLES, OPERATION_ERROR_EXAMPLES, PROTECTED_ERROR_EXAMPLES, SUCCESS_EXAMPLES } from './openapi-examples.js'
import { ACCESS_EXTENSION } from './openapi-transform.js'
import { webhooksSection } from './openapi-webhooks.js'

/**
 * The parts every operation shares, added once to the document @fastify/swagger built from the
 * route schemas: security and the rate-limit / Retry-After / WWW-Authenticate response headers
 * from each route's declared access, X-Request-Id everywhere (docs/api-reference.md "Basics"; docs/api-reference.md "Errors"; docs/api-reference.md "Rate limiting"), response
 * descriptions and examples, list parameters as comma-separated, and every marked schema as one
 * named component.
 */

export type OpenApiDocument = Record<string, unknown> & {
  paths?: Record<string, Record<string, Operation>>
  components?: Record<string, Record<string, unknown>>
}

interface MediaType { schema?: unknown, examples?: Record<string, unknown> }
interface Response { description?: string, headers?: Record<string, unknown>, content?: Record<string, MediaType> }
interface Parameter { in?: string, required?: boolean, style?: string, explode?: boolean, schema?: { default?: unknown, type?: unknown } }
interface Operation {
  operationId?: string
  security?: unknown[]
  parameters?: Parameter[]
  responses?: Record<string, Response>
  [ACCESS_EXTENSION]?: RouteAccess
}

/** A route that declares no access is public and unlimited (src/http/route-access.ts). */
const PUBLIC: RouteAccess = { auth: 'none', rateLimit: 'none' }

const header = (description: string, schema: Record<string, unknown>, required = false) => ({ description, required, schema })

const RATE_LIMIT_HEADERS: Record<string, unknown> = Object.fromEntries(['minutely', 'hourly'].flatMap((window) => [
  [`x-ratelimit-limit-${window}`, header(`Requests allowed in the ${window === 'minutely' ? 'minute' : 'hour'} window; absent when that window is turned off`, { type: 'integer' })],
  [`x-ratelimit-remaining-${window}`, header(`Requests left in the current ${window === 'minutely' ? 'minute' : 'hour'} window`, { type: 'integer' })],
  [`x-ratelimit-reset-${window}`, header('Unix time (seconds) when the window resets', { type: 'integer' })],
]))

export const SHARED_HEADERS: Record<string, unknown> = {
  'X-Request-Id': header('Identifier of this request; equals `request_id` in error bodies. An inbound X-Request-Id of 1-128 characters of [A-Za-z0-9._-] is reused.', { type: 'string' }, true),
  ...RATE_LIMIT_HEADERS,
  'X-Usage-Total': header('Requests counted in the hourly window', { type: 'integer' }),
  'X-Usage-Period': header('The window X-Usage-Total counts', { type: 'string', const: 'hourly' }),
  'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 0 }, true),
  'WWW-Authenticate': header('`Bearer`, or `Bearer error="invalid_token"` for TOKEN_INVALID and TOKEN_EXPIRED', { type: 'string' }, true),
  ETag: header('Weak validator of this answer (`W/"…"`): send it back as `If-None-Match` to get `304 Not Modified` with no body while the data is unchanged', { type: 'string' }, true),
  'Cache-Control': header('`private, no-cache`: keep the answer if you like, but revalidate (If-None-Match) before reusing it', { type: 'string', const: 'private, no-cache' }, true),
}

const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'Success',
  201: 'Created',
  202: 'Accepted: queued for delivery',
  204: 'Deleted',
  409: 'CONFLICT: the request breaks a rule of the current state (the detail says which)',
  400: '`account_id` given without exactly one platform (body holds only `detail`)',
  401: 'Not authenticated: missing token (INVALID_CREDENTIALS), TOKEN_INVALID or TOKEN_EXPIRED',
  403: 'FORBIDDEN (a brand the user cannot access) or USER_DISABLED',
  404: 'NOT_FOUND: an account_id not on that platform in an accessible brand',
  410: 'CURSOR_EXPIRED: the cursor is older than the change feed\'s retention; resynchronise, then follow from start=latest',
  422: 'VALIDATION_ERROR: one item per offending parameter',
  429: 'RATE_LIMIT_EXCEEDED: wait Retry-After seconds',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE: too many large reports are waiting; retry after Retry-After seconds',
  206: 'Partial content: the range asked',
  304: 'Not modified: If-None-Match names this file',
  416: 'RANGE_NOT_SATISFIABLE: no byte of the range exists',
}

const LOGIN_DESCRIPTIONS: Record<string, string> = {
  200: 'A bearer token',
  401: 'INVALID_CREDENTIALS (wrong or malformed key pair) or TOO_MANY_ATTEMPTS (locked out; Retry-After says how long)',
  403: 'USER_DISABLED',
  429: 'RATE_LIMIT_EXCEEDED: the per-IP limit, or too many logins for this key or address still being checked; wait Retry-After seconds',
}

/** Statuses that mean something else on one operation. */
const WEBHOOK_NOT_FOUND = 'NOT_FOUND: you have no webhook with this id'
const OPERATION_DESCRIPTIONS: Record<string, Record<string, string>> = {
  login: LOGIN_DESCRIPTIONS,
  getHealth: { 200: 'Every dependency answers', 503: 'The database or Redis does not answer (the member says which)' },
  getHealthLive: { 200: 'The process answers' },
  getHealthReady: { 200: 'The database answers: send traffic', 503: 'The database does not answer within 1 second: take the instance out of rotation' },
  createWebhook: { 201: 'The webhook, with its signing secret (shown only here)', 409: 'CONFLICT: you already have the most webhooks allowed (10)', 422: 'VALIDATION_ERROR, also for a URL refused by the target rules (the issue names the rule: https_required, private_address, unresolvable, credentials_not_allowed, invalid_url)' },
  getWebhook: { 404: WEBHOOK_NOT_FOUND },
  updateWebhook: { 404: WEBHOOK_NOT_FOUND, 409: 'CONFLICT: enabling a webhook the operator disabled' },
  deleteWebhook: { 404: WEBHOOK_NOT_FOUND },
  rotateWebhookSecret: { 200: 'The webhook, with its new signing secret (shown only here)', 404: WEBHOOK_NOT_FOUND },
  testWebhook: { 202: 'The test delivery, queued now', 404: WEBHOOK_NOT_FOUND, 409: 'CONFLICT: the webhook is disabled' },
  listWebhookDeliveries: { 404: WEBHOOK_NOT_FOUND },
  redeliverWebhookDelivery: { 202: 'The delivery, queued again', 404: 'NOT_FOUND: no such webhook of yours, or no such delivery of it', 409: 'CONFLICT: the webhook is disabled, or an attempt of this delivery is under way' },
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

export function completeDocument (document: OpenApiDocument): OpenApiDocument {
  const components = { ...document.components }
  const schemas: Record<string, unknown> = { ...components.schemas }
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      completeOperation(operation, `${method.toUpperCase()} ${path}`, schemas, method.toUpperCase())
    }
  }
  const webhooks = webhooksSection((schema) => shareComponents(schema, schemas))
  return {
    ...document,
    webhooks,
    components: {
      ...components,
      schemas,
      headers: SHARED_HEADERS,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access_token of POST /auth/login' },
      },
    },
  }
}

function completeOperation (operation: Operation, name: string, schemas: Record<string, unknown>, method: string): void {
  const id = operation.operationId
  if (id === undefined) throw new Error(`OpenAPI: ${name} has no operationId`)
  const access = operation[ACCESS_EXTENSION] ?? PUBLIC
  delete operation[ACCESS_EXTENSION]
  operation.security = access.auth === 'bearer' ? [{ bearerAuth: [] }] : []
  const errorExamples = id === 'login' ? LOGIN_ERROR_EXAMPLES : access.auth === 'bearer' ? PROTECTED_ERROR_EXAMPLES : {}
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue
    // A TypeBox property with a default is not Optional, yet the client may leave it out: Ajv fills it in.
    if (parameter.schema?.default !== undefined) parameter.required = false
    // Lists travel comma-separated in one parameter (`brand_id=1,2`), not repeated.
    if (parameter.schema?.type === 'array') Object.assign(parameter, { style: 'form', explode: false })
    parameter.schema = shareComponents(parameter.schema, schemas) as Parameter['schema']
  }

  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    response.description = OPERATION_DESCRIPTIONS[id]?.[status] ?? STATUS_DESCRIPTIONS[status] ?? response.description
    response.headers = responseHeaders(access, status, method)
    const media = response.content?.['application/json']
    if (media === undefined) continue
    media.schema = shareComponents(media.schema, schemas)
    const examples = Number(status) < 300 ? exampleOf(SUCCESS_EXAMPLES[id]) : OPERATION_ERROR_EXAMPLES[id]?.[status] ?? errorExamples[status]
    if (examples !== undefined) media.examples = examples
  }
}

function exampleOf (example: unknown): Record<string, unknown> | undefined {
  return example === undefined ? undefined : { default: example }
}

function responseHeaders (access: RouteAccess, status: string, method: string): Record<string, unknown> {
  const names = ['X-Request-Id']
  // The per-user limit counts only authenticated requests, so a bearer route's 401 (answered by
  // the auth hook, before the limiter) carries no rate-limit headers; login's per-IP limit runs first.
  const counted = access.rateLimit !== 'none' && !(status === '401' && access.auth === 'bearer')
  if (counted) names.push(...Object.keys(RATE_LIMIT_HEADERS), 'X-Usage-Total', 'X-Usage-Period')
  // Data answers can be revalidated (src/http/plugins/conditional-get.ts).
  if (status === '200' && access.auth === 'bearer' && (method === 'GET' || method === 'HEAD')) names.push('ETag', 'Cache-Control')
  if (status === '429' || (status === '503' && access.auth === 'bearer')) names.push('Retry-After')
  if (status === '401') names.push('WWW-Authenticate')
  // Login's 401 TOO_MANY_ATTEMPTS also says how long the lockout lasts.
  const lockout = status === '401' && access.rateLimit === 'ip'
  if (lockout) names.push('Retry-After')
  return Object.fromEntries(names.map((name) => [name, lockout && name === 'Retry-After'
    ? { ...(SHARED_HEADERS['Retry-After'] as object), required: false, description: 'With TOO_MANY_ATTEMPTS: seconds until the lockout ends' }
    : ref('headers', name)]))
}

/**
 * Every schema marked with `component()` (src/http/schemas/components.ts), at any depth, becomes
 * one entry of components.schemas and is replaced by a $ref to it; a name given to two different
 * schemas is refused.
 */
function shareComponents (schema: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => shareComponents(item, schemas))
  if (schema === null || typeof schema !== 'object') return schema
  const { [COMPONENT_MARKER]: name, ...rest } = schema as Record<string, unknown>
  const shared = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, shareComponents(value, schemas)]))
  if (typeof name !== 'string') return shared
  // One name, one shape: two different schemas under one name would leave the document
  // describing one of them wherever either appears (the first registered would win).
  const existing = schemas[name]
  if (existing === undefined) schemas[name] = shared
  else if (JSON.stringify(existing) !== JSON.stringify(shared)) throw new Error(`OpenAPI: two different schemas are named ${name}; give one another name or share one schema`)
  return ref('schemas', name)
}
