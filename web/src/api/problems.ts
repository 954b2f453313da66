import {
  BadRequestError, ConflictError, ForbiddenError, InvalidCredentialsError, NotFoundError, PartnerAnalyticsError, RateLimitError,
  TokenExpiredError, TokenInvalidError, TooManyAttemptsError, UserDisabledError, ValidationError,
} from '../../../packages/client/src/errors.js'
import { TooMuchDataError } from './loaders.js'

/**
 * What the page says when something goes wrong: a title, the API's own detail and the request id
 * to quote to support (X-Request-Id, also in the error body). One kind per state the user must
 * tell apart; `session` ends the session and brings back the sign-in form.
 */

export type ProblemKind = 'forbidden' | 'session' | 'rate-limited' | 'invalid' | 'not-found' | 'network' | 'too-much' | 'error'

export interface Problem {
  kind: ProblemKind
  title: string
  detail: string
  requestId?: string
  status?: number
  errorCode?: string
  /**
   * A 422's reasons: its issues' messages without where in the request they point (one refusal
   * of a period reads `query.since: …` from GET /analytics/ and `body.since: …` from POST /reports).
   */
  reasons?: string[]
}

export function describeProblem (error: unknown): Problem {
  if (error instanceof TooMuchDataError) return { kind: 'too-much', title: 'Too much data for a daily chart', detail: error.message }
  if (!(error instanceof PartnerAnalyticsError)) {
    // fetch rejects with a TypeError when the server cannot be reached at all.
    return { kind: 'network', title: 'The API cannot be reached', detail: error instanceof Error ? error.message : String(error) }
  }
  const base = { detail: error.message, requestId: error.requestId, status: error.status, errorCode: error.errorCode }
  if (error instanceof ForbiddenError) return { ...base, kind: 'forbidden', title: 'No access' }
  if (error instanceof TokenExpiredError) return { ...base, kind: 'session', title: 'Your session has expired' }
  if (error instanceof InvalidCredentialsError) return { ...base, kind: 'session', title: 'Your session has expired and signing in again failed' }
  if (error instanceof TokenInvalidError) return { ...base, kind: 'session', title: 'Your session is no longer valid' }
  if (error instanceof UserDisabledError) return { ...base, kind: 'session', title: 'This account is disabled' }
  if (error instanceof RateLimitError || error instanceof TooManyAttemptsError) {
    const wait = error.retryAfterSeconds === undefined ? '' : ` The API asked to wait ${error.retryAfterSeconds} s (Retry-After).`
    return { ...base, kind: 'rate-limited', title: 'Rate limited', detail: `${error.message}${wait}` }
  }
  if (error instanceof ValidationError) return { ...base, kind: 'invalid', title: 'The API refused this query', reasons: [...new Set(error.issues.map((issue) => issue.msg))].sort() }
  if (error instanceof BadRequestError) return { ...base, kind: 'invalid', title: 'The API refused this query' }
  if (error instanceof NotFoundError) return { ...base, kind: 'not-found', title: 'Not found' }
  if (error instanceof ConflictError) return { ...base, kind: 'invalid', title: 'Not possible right now' }
  return { ...base, kind: 'error', title: `The API answered with an error (${error.status})` }
}
