import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'

/**
 * Per-route adjustments made while @fastify/swagger reads each route's schema. They only change
 * the document, never validation or serialization.
 */

/** Names a schema that completeDocument moves into `components.schemas` and replaces by a $ref. */
export const COMPONENT_MARKER = 'x-component'

/**
 * POST /auth/login parses its body in the service on purpose (the app's Ajv coerces types, and a
 * number must never pass as a key: src/auth/login.service.ts), so its body is documented here.
 */
export const LoginRequestBody = Type.Object({
  api_client_key: Type.String({ description: 'Issued client key: `pak_` + 24 base62 characters', examples: ['pak_3kTMd9Qx0bWf7LzR2vYp8HnA'] }),
  api_secret_key: Type.String({ description: 'Issued secret key: `pas_` + 43 base62 characters, shown once at issue', examples: ['pas_Zr8mW1qK4tYb7NcV0xLp3sHd6GfJ9aEu2RiOo5TnMlQ'] }),
})

const DOCUMENTED_BODIES: Record<string, TSchema> = {
  login: LoginRequestBody,
}

/**
 * The route's schema as the document shows it: a documented body where the route validates its
 * own, and response schemas that carry an `$id` (ErrorBody, ValidationErrorBody, …) marked to
 * become one shared component instead of a copy per operation.
 */
export function transformRouteSchema (schema: FastifySchema): FastifySchema {
  const operationId = (schema as { operationId?: string }).operationId
  const body = operationId === undefined ? undefined : DOCUMENTED_BODIES[operationId]
  const response = schema.response as Record<string, unknown> | undefined
  return {
    ...schema,
    ...(body !== undefined && schema.body === undefined ? { body } : {}),
    ...(response === undefined ? {} : { response: Object.fromEntries(Object.entries(response).map(([status, value]) => [status, markComponent(value)])) }),
  }
}

function markComponent (schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema
  const id = (schema as { $id?: unknown }).$id
  return typeof id === 'string' ? { ...schema, [COMPONENT_MARKER]: id } : schema
}
