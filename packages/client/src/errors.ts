/**
 * Typed errors for every answer the API can refuse with. Each carries the API's error_code, the
 * HTTP status and the request_id to quote to support (docs/api-reference.md, "Errors"). A request
 * that got no answer at all throws NetworkError instead.
 */

export interface ValidationIssue { loc: string[], msg: string, type: string, ctx: Record<string, unknown> }

export class PartnerAnalyticsError extends Error {
  constructor (
    message: string,
    readonly status: number,
    readonly errorCode: string,
    readonly requestId: string | undefined,
    readonly body: unknown,
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** 401 INVALID_CREDENTIALS: the key pair is wrong or malformed (or no token was sent). Escalate; do not retry. */
export class InvalidCredentialsError extends PartnerAnalyticsError {}
/** 403 USER_DISABLED: the user was disabled by an operator. */
export class UserDisabledError extends PartnerAnalyticsError {}
/** 401 TOKEN_INVALID: never retried (a new login would not make this token valid). */
export class TokenInvalidError extends PartnerAnalyticsError {}
/** 401 TOKEN_EXPIRED that persisted after the one re-login and retry. */
export class TokenExpiredError extends PartnerAnalyticsError {}
/** 401 TOO_MANY_ATTEMPTS after every backoff attempt was used. */
export class TooManyAttemptsError extends PartnerAnalyticsError {
  constructor (message: string, status: number, errorCode: string, requestId: string | undefined, body: unknown, readonly retryAfterSeconds: number | undefined) {
    super(message, status, errorCode, requestId, body)
  }
}
/** 429 RATE_LIMIT_EXCEEDED after every backoff attempt was used. */
export class RateLimitError extends PartnerAnalyticsError {
  constructor (message: string, status: number, errorCode: string, requestId: string | undefined, body: unknown, readonly retryAfterSeconds: number | undefined) {
    super(message, status, errorCode, requestId, body)
  }
}
/** 403 FORBIDDEN: a brand_id the user cannot access. */
export class ForbiddenError extends PartnerAnalyticsError {}
/** 404 NOT_FOUND. */
export class NotFoundError extends PartnerAnalyticsError {}
/** 400: account_id without exactly one platform (the body holds only `detail`). */
export class BadRequestError extends PartnerAnalyticsError {}
/** 409 CONFLICT: the request breaks a rule of the current state (e.g. an 11th webhook); the message says which. */
export class ConflictError extends PartnerAnalyticsError {}
/** 422 VALIDATION_ERROR, with one issue per offending parameter. */
export class ValidationError extends PartnerAnalyticsError {
  constructor (message: string, status: number, errorCode: string, requestId: string | undefined, body: unknown, readonly issues: ValidationIssue[]) {
    super(message, status, errorCode, requestId, body)
  }
}
/**
 * 410 CURSOR_EXPIRED: a change-feed cursor older than the server's retention (or pointing before
 * events it has removed). Events were missed: resynchronise — read the data you keep again, then
 * follow the feed from `start: 'latest'` (docs/client.md "Keeping a copy in sync").
 */
export class CursorExpiredError extends PartnerAnalyticsError {}
/** 5xx, or an answer that is not the API's JSON. */
export class ServerError extends PartnerAnalyticsError {}
/**
 * 503 SERVICE_UNAVAILABLE after every backoff attempt was used: too many large reports were
 * waiting on the server. A ServerError, so code that catches those keeps working.
 */
export class ServiceUnavailableError extends ServerError {
  constructor (message: string, status: number, errorCode: string, requestId: string | undefined, body: unknown, readonly retryAfterSeconds: number | undefined) {
    super(message, status, errorCode, requestId, body)
  }
}

/**
 * No HTTP answer: connection refused, DNS failure, TLS failure, timeout. The message names the
 * request and the cause, e.g. "POST http://127.0.0.1:8000/auth/login failed: connection
 * refused (ECONNREFUSED 127.0.0.1:8000)"; `cause` is what fetch threw. Never retried by the client: the
 * request may have reached the server.
 */
export class NetworkError extends Error {
  constructor (readonly method: string, readonly url: string, readonly reason: string, cause: unknown) {
    super(`${method} ${url} failed: ${reason}`, { cause })
    this.name = 'NetworkError'
  }
}

interface ErrorBody { detail?: unknown, error_code?: unknown, request_id?: unknown, retry_after?: unknown }

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter (value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

/** The typed error for a non-2xx answer. */
export function errorFromResponse (status: number, body: unknown, headers: Headers): PartnerAnalyticsError {
  const fields: ErrorBody = body !== null && typeof body === 'object' ? body as ErrorBody : {}
  const code = typeof fields.error_code === 'string' ? fields.error_code : status === 400 ? 'BAD_REQUEST' : `HTTP_${status}`
  const requestId = typeof fields.request_id === 'string' ? fields.request_id : headers.get('x-request-id') ?? undefined
  const issues = Array.isArray(fields.detail) ? fields.detail as ValidationIssue[] : []
  const message = typeof fields.detail === 'string'
    ? fields.detail
    : issues.length > 0 ? issues.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ') : `HTTP ${status}`
  const retryAfter = parseRetryAfter(headers.get('retry-after'))
  const args = [message, status, code, requestId, body] as const
  switch (code) {
    case 'INVALID_CREDENTIALS': return new InvalidCredentialsError(...args)
    case 'USER_DISABLED': return new UserDisabledError(...args)
    case 'TOKEN_INVALID': return new TokenInvalidError(...args)
    case 'TOKEN_EXPIRED': return new TokenExpiredError(...args)
    case 'TOO_MANY_ATTEMPTS': return new TooManyAttemptsError(...args, retryAfter)
    case 'RATE_LIMIT_EXCEEDED': return new RateLimitError(...args, retryAfter)
    case 'FORBIDDEN': return new ForbiddenError(...args)
    case 'NOT_FOUND': return new NotFoundError(...args)
    case 'VALIDATION_ERROR': return new ValidationError(...args, issues)
    case 'BAD_REQUEST': return new BadRequestError(...args)
    case 'CONFLICT': return new ConflictError(...args)
    case 'SERVICE_UNAVAILABLE': return new ServiceUnavailableError(...args, retryAfter)
    case 'CURSOR_EXPIRED': return new CursorExpiredError(...args)
    default: return status === 429 ? new RateLimitError(...args, retryAfter) : new ServerError(...args)
  }
}
