/**
 * The one error type of the service. It knows nothing about HTTP: the HTTP error handler maps
 * codes to statuses (src/http/error-handler.ts) and the CLI maps them to exit codes (src/cli/index.ts).
 */

export const ERROR_CODES = [
  'INVALID_CREDENTIALS',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'USER_DISABLED',
  'TOO_MANY_ATTEMPTS',
  'FORBIDDEN',
  'NOT_FOUND',
  /** A known path asked with a method it does not serve (the answer lists them in `Allow`). */
  'METHOD_NOT_ALLOWED',
  /** The operation would break a rule of the current state (e.g. a third live key pair); CLI only. */
  'CONFLICT',
  'VALIDATION_ERROR',
  /** account_id given without exactly one platform: the contract's bare `{detail}` 400. */
  'ACCOUNT_NEEDS_ONE_PLATFORM',
  'RATE_LIMIT_EXCEEDED',
  /** A change-feed cursor older than the retention, or before events already purged: resynchronise. */
  'CURSOR_EXPIRED',
  /** Too many heavy reports already waiting (src/storage/heavy-reads.ts): try again after Retry-After. */
  'SERVICE_UNAVAILABLE',
  /** An export job whose files are not there yet (queued, running, failed, cancelled). */
  'EXPORT_NOT_READY',
  /** An export job whose files the retention removed (EXPORT_RETENTION_HOURS): create it again. */
  'EXPORT_EXPIRED',
  /** A Range request no byte of the file satisfies. */
  'RANGE_NOT_SATISFIABLE',
  'INTERNAL_SERVER_ERROR',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** One offending input, in the contract's 422 item shape. */
export interface ValidationIssue {
  /** Where the bad value was, e.g. `['query', 'since']` or `['body', 'api_client_key']`. */
  loc: string[]
  msg: string
  type: string
  ctx: Record<string, unknown>
}

export interface AppErrorOptions {
  /** For VALIDATION_ERROR: one item per offending parameter. */
  issues?: ValidationIssue[]
  /** Extra response headers (e.g. `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>
  /** Extra body members the contract asks for (e.g. `retry_after` on a 429). */
  extra?: Record<string, unknown>
  cause?: unknown
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly issues: ValidationIssue[] | undefined
  readonly headers: Record<string, string> | undefined
  readonly extra: Record<string, unknown> | undefined

  constructor (code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.issues = options.issues
    this.headers = options.headers
    this.extra = options.extra
  }
}

/** A 422 with one issue per offending input. */
export function validationError (issues: ValidationIssue[]): AppError {
  return new AppError('VALIDATION_ERROR', 'Request validation failed', { issues })
}

/**
 * The 429 of every rate limit (the contract's wording, "1 seconds" included): `Retry-After` and
 * `retry_after` say the same wait; `headers` adds the limit's own (the rate-limit headers).
 */
export function rateLimitExceeded (seconds: number, headers: Record<string, string> = {}): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded. Please wait ${seconds} seconds before making another request.`, {
    headers: { ...headers, 'retry-after': String(seconds) },
    extra: { retry_after: seconds },
  })
}

/** Shorthand for a single 422 issue. */
export function issue (loc: string[], msg: string, type: string, ctx: Record<string, unknown> = {}): ValidationIssue {
  return { loc, msg, type, ctx }
}
