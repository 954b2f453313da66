import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type ErrorCode, type ValidationIssue } from '../errors.js'

/**
 * The only place errors become HTTP responses (DECISIONS.md §2). Routes and services throw;
 * this maps AppError codes to statuses, schema-validation failures to the 422 shape, body
 * parsing failures to 422 `["body"]`, and everything else to a logged 500 with no internals.
 */

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  INVALID_CREDENTIALS: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOO_MANY_ATTEMPTS: 401,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 422,
  ACCOUNT_NEEDS_ONE_PLATFORM: 400,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

/** Route option naming the 500 detail of that route (e.g. "Error fetching analytics"). */
declare module 'fastify' {
  interface FastifyContextConfig {
    internalErrorDetail?: string
  }
}

/** `2026-11-21T12:00:00Z`: UTC to the second. */
export function errorTimestamp (now = new Date()): string {
  return now.toISOString().slice(0, 19) + 'Z'
}

export function standardErrorBody (request: FastifyRequest, code: ErrorCode | string, status: number, detail: string) {
  return {
    detail,
    error_code: code,
    status_code: status,
    status: 'error' as const,
    timestamp: errorTimestamp(),
    request_id: request.id,
  }
}

export function sendAppError (request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const status = STATUS_BY_CODE[error.code]
  if (error.headers !== undefined) reply.headers(error.headers)
  if (error.code === 'ACCOUNT_NEEDS_ONE_PLATFORM') {
    return reply.code(status).send({ detail: error.message })
  }
  if (error.code === 'VALIDATION_ERROR') {
    return reply.code(status).send({
      ...standardErrorBody(request, error.code, status, ''),
      detail: error.issues ?? [],
    })
  }
  return reply.code(status).send({ ...standardErrorBody(request, error.code, status, error.message), ...error.extra })
}

const LOCATION_BY_CONTEXT: Record<string, string> = {
  querystring: 'query',
  body: 'body',
  params: 'path',
  headers: 'header',
}

interface AjvIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message?: string
}

/** One contract issue per offending field, from Ajv's list (which may name a field twice). */
export function issuesFromAjv (context: string, errors: AjvIssue[]): ValidationIssue[] {
  const location = LOCATION_BY_CONTEXT[context] ?? context
  const byField = new Map<string, ValidationIssue>()
  for (const error of errors) {
    const path = error.instancePath.split('/').filter((part) => part !== '')
    if (error.keyword === 'required') path.push(String(error.params.missingProperty))
    const key = path.join('/')
    if (byField.has(key)) continue
    byField.set(key, { loc: [location, ...path], ...describeAjvIssue(error) })
  }
  return [...byField.values()]
}

function describeAjvIssue (error: AjvIssue): Omit<ValidationIssue, 'loc'> {
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing', ctx: {} }
    case 'type':
      return { msg: `Input should be a valid ${String(error.params.type)}`, type: `${String(error.params.type)}_type`, ctx: {} }
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${String(error.params.limit)}`, type: 'greater_than_equal', ctx: { limit_value: error.params.limit } }
    case 'maximum':
      return { msg: `Input should be less than or equal to ${String(error.params.limit)}`, type: 'less_than_equal', ctx: { limit_value: error.params.limit } }
    case 'minLength':
      return { msg: `String should have at least ${String(error.params.limit)} characters`, type: 'string_too_short', ctx: { limit_value: error.params.limit } }
    case 'maxLength':
      return { msg: `String should have at most ${String(error.params.limit)} characters`, type: 'string_too_long', ctx: { limit_value: error.params.limit } }
    case 'pattern':
      return { msg: `String should match pattern '${String(error.params.pattern)}'`, type: 'string_pattern_mismatch', ctx: { pattern: error.params.pattern } }
    case 'enum':
    case 'const':
    case 'anyOf':
      return { msg: 'Input is not one of the allowed values', type: 'enum', ctx: error.params.allowedValues === undefined ? {} : { expected: error.params.allowedValues } }
    default:
      return { msg: error.message ?? 'Invalid value', type: error.keyword, ctx: {} }
  }
}

/** Fastify's own body-parsing failures: all are "the body is not the JSON we need" → 422 ["body"]. */
const BODY_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty; a JSON object is required',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Request body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Request body length does not match Content-Length',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
}

export function registerErrorHandling (app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendAppError(request, reply, error)

    if (error.validation !== undefined) {
      const issues = issuesFromAjv(error.validationContext ?? 'body', error.validation as AjvIssue[])
      return sendAppError(request, reply, new AppError('VALIDATION_ERROR', 'Request validation failed', { issues }))
    }

    const bodyMessage = error.code === undefined ? undefined : BODY_ERROR_MESSAGES[error.code]
    if (bodyMessage !== undefined) {
      const issues: ValidationIssue[] = [{ loc: ['body'], msg: bodyMessage, type: 'json_invalid', ctx: {} }]
      return sendAppError(request, reply, new AppError('VALIDATION_ERROR', bodyMessage, { issues }))
    }

    // Anything else is our failure: log it whole, answer without internals.
    request.log.error({ err: error }, 'request failed')
    const detail = request.routeOptions.config?.internalErrorDetail ?? 'Internal server error'
    return reply.code(500).send(standardErrorBody(request, 'INTERNAL_SERVER_ERROR', 500, detail))
  })

  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send(standardErrorBody(request, 'NOT_FOUND', 404, 'Not Found'))
  })
}
