import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { formatUtcSeconds } from '../domain/dates.js'
import { AppError, type ErrorCode, type ValidationIssue } from '../domain/errors.js'
import { methodsToAllow } from './method-not-allowed.js'
import { SECURITY_HEADERS } from './security-headers.js'
import { responseTraceparent, traceContextOf } from './trace-context.js'
import { issuesFromAjv, type AjvIssue } from './validation-issues.js'

/**
 * The only place errors become HTTP responses (docs/api-reference.md "Errors"). Routes and services throw;
 * this maps AppError codes to statuses, schema-validation failures to the 422 shape (with the
 * route's query-rule issues, so one 422 lists every offending parameter), body parsing failures
 * to 422 `["body"]`, and everything else to a logged 500 with no internals.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The error code of the answer, '' unless an AppError was answered (read by the metrics). */
    errorCode: string
  }
}

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  INVALID_CREDENTIALS: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOO_MANY_ATTEMPTS: 401,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  CURSOR_EXPIRED: 410,
  EXPORT_NOT_READY: 409,
  EXPORT_EXPIRED: 410,
  RANGE_NOT_SATISFIABLE: 416,
  VALIDATION_ERROR: 422,
  ACCOUNT_NEEDS_ONE_PLATFORM: 400,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

export function standardErrorBody (request: FastifyRequest, code: ErrorCode, status: number, detail: string) {
  return {
    detail,
    error_code: code,
    status_code: status,
    status: 'error' as const,
    timestamp: formatUtcSeconds(),
    request_id: request.id,
  }
}

export function sendAppError (request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const status = STATUS_BY_CODE[error.code]
  request.errorCode = error.code
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

/** Fastify's own body-parsing failures: all are "the body is not the JSON we need" → 422 ["body"]. */
const BODY_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty; a JSON object is required',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Request body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Request body length does not match Content-Length',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
}

/** The schema's issues and the query rules' issues, one per parameter, in the order of the query schema. */
function mergedIssues (request: FastifyRequest, schemaIssues: ValidationIssue[]): ValidationIssue[] {
  const named = new Set(schemaIssues.map((found) => found.loc.join('.')))
  const all = [...schemaIssues, ...(request.queryIssues ?? []).filter((found) => !named.has(found.loc.join('.')))]
  const order = Object.keys((request.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties ?? {})
  const rank = (found: ValidationIssue): number => found.loc[0] === 'query' ? order.indexOf(found.loc[1] ?? '') : -1
  return all.sort((a, b) => rank(a) - rank(b))
}

export function registerErrorHandling (app: FastifyInstance): void {
  app.decorateRequest('errorCode', '')
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendAppError(request, reply, error)

    if (error.validation !== undefined) {
      const issues = mergedIssues(request, issuesFromAjv(error.validationContext ?? 'body', error.validation as AjvIssue[]))
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
    // The API's headers, whatever a prefix's own hooks set before its route found nothing (the
    // dashboard's page policy and caching): this answer is an API error like any other.
    reply.headers(SECURITY_HEADERS)
    // A path served with other methods is 405 with `Allow`; a path nobody serves, or whose route
    // for this very method found nothing (a missing static file), 404.
    const allowed = methodsToAllow(app.routeTable, request.method, request.url.split('?')[0] ?? '')
    if (allowed !== undefined) {
      reply.header('allow', allowed.join(', '))
      return reply.code(405).send(standardErrorBody(request, 'METHOD_NOT_ALLOWED', 405, `Method ${request.method} is not allowed on this path; allowed: ${allowed.join(', ')}`))
    }
    return reply.code(404).send(standardErrorBody(request, 'NOT_FOUND', 404, 'Not Found'))
  })
}

/**
 * Fastify's `frameworkErrors`: errors found while routing, before any hook ran — a path whose
 * percent-encoding does not decode, or a path parameter over its length. No route matches such a
 * path: 404 like any unknown path, with the headers the hooks would have set.
 */
export function answerFrameworkError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.headers(SECURITY_HEADERS)
  reply.header('x-request-id', request.id)
  reply.header('traceparent', responseTraceparent(traceContextOf(request.raw)))
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.code(404).send(standardErrorBody(request, 'NOT_FOUND', 404, 'Not Found'))
  }
  request.log.error({ err: error }, 'request failed')
  return reply.code(500).send(standardErrorBody(request, 'INTERNAL_SERVER_ERROR', 500, 'Internal server error'))
}
