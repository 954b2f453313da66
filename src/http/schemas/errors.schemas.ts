import { Type, type TSchema } from '@sinclair/typebox'
import { component } from './components.js'
import { TimestampMember } from './formats.js'

/** The contract's error bodies (docs/api-reference.md "Errors"), declared once and spread into every route schema. */

export const ErrorBody = component('ErrorBody', Type.Object({
  detail: Type.String({ description: 'Human-readable message' }),
  error_code: Type.String({ description: 'Machine code, e.g. TOKEN_EXPIRED' }),
  status_code: Type.Integer({ description: 'The HTTP status, repeated' }),
  status: Type.Literal('error'),
  timestamp: TimestampMember('ISO 8601 UTC to the second, e.g. 2026-11-21T12:00:00Z'),
  request_id: Type.String({ description: 'Equals the X-Request-Id response header' }),
  retry_after: Type.Optional(Type.Integer({ description: 'RATE_LIMIT_EXCEEDED only: seconds to wait, as in Retry-After' })),
}))

export const ValidationIssue = component('ValidationIssue', Type.Object({
  loc: Type.Array(Type.String(), { description: 'Where: ["query", "since"], ["body", "api_client_key"], ["body"]' }),
  msg: Type.String(),
  type: Type.String({ description: 'Machine-readable kind, e.g. missing, int_parsing, less_than_equal' }),
  ctx: Type.Record(Type.String(), Type.Unknown(), { description: 'Extra facts, e.g. {"limit_value": 100}; {} when none' }),
}))

export const ValidationErrorBody = component('ValidationErrorBody', Type.Object({
  detail: Type.Array(ValidationIssue, { description: 'One item per offending parameter' }),
  error_code: Type.Literal('VALIDATION_ERROR'),
  status_code: Type.Literal(422),
  status: Type.Literal('error'),
  timestamp: TimestampMember('ISO 8601 UTC to the second'),
  request_id: Type.String(),
}))

export const BareDetailBody = component('BareDetailBody', Type.Object({
  detail: Type.String(),
}))

/**
 * Response entries for the statuses a protected route that takes no input (no query, no path
 * parameter, no body) can return: it has nothing to refuse with 422.
 */
export const inputlessProtectedErrorResponses: Record<number, TSchema> = {
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
}

/** Response entries for the statuses every protected route with an input can return. */
export const protectedErrorResponses: Record<number, TSchema> = {
  ...inputlessProtectedErrorResponses,
  422: ValidationErrorBody,
}

/** The routes that read reports can also refuse one while too many heavy reports wait. */
export const reportErrorResponses: Record<number, TSchema> = {
  ...protectedErrorResponses,
  503: ErrorBody,
}
