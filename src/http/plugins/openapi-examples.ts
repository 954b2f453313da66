/**
 * Examples shown in the document. Error examples repeat the service's real details (the tests
 * validate every example against its schema, so a drifting example fails the build).
 */

const TIMESTAMP = '2026-11-21T12:00:00Z'
const REQUEST_ID = '8f14e45f-ceea-467f-a0e6-0b7c1f1c2a9d'

function errorExample (status: number, errorCode: string, detail: string, extra: Record<string, unknown> = {}) {
  return { detail, error_code: errorCode, status_code: status, status: 'error', timestamp: TIMESTAMP, request_id: REQUEST_ID, ...extra }
}

interface Example { summary: string, value: unknown }

const validation = (loc: string[], msg: string, type: string, ctx: Record<string, unknown> = {}): Example => ({
  summary: 'Validation failed',
  value: { ...errorExample(422, 'VALIDATION_ERROR', ''), detail: [{ loc, msg, type, ctx }] },
})

/** Error examples of the protected routes, by status. */
export const PROTECTED_ERROR_EXAMPLES: Record<string, Record<string, Example>> = {
  400: { accountNeedsOnePlatform: { summary: 'account_id without exactly one platform', value: { detail: 'account_id requires exactly one platform to be specified' } } },
  401: {
    notAuthenticated: { summary: 'No bearer token', value: errorExample(401, 'INVALID_CREDENTIALS', 'Not authenticated') },
    tokenInvalid: { summary: 'Malformed or badly signed token: do not retry', value: errorExample(401, 'TOKEN_INVALID', 'Could not validate credentials') },
    tokenExpired: { summary: 'Expired token: log in again once and retry', value: errorExample(401, 'TOKEN_EXPIRED', 'Token has expired') },
  },
  403: {
    forbidden: { summary: 'A brand_id the user cannot access', value: errorExample(403, 'FORBIDDEN', 'You do not have access to brand_id 42') },
    userDisabled: { summary: 'The user was disabled after the token was issued', value: errorExample(403, 'USER_DISABLED', 'User account is disabled') },
  },
  404: { notFound: { summary: 'account_id not on that platform in an accessible brand', value: errorExample(404, 'NOT_FOUND', 'account_id 99 not found on platform fb in an accessible brand') } },
  422: { badDate: validation(['query', 'since'], 'Input should be a valid date in the format YYYY-MM-DD', 'date_parsing') },
  429: {
    rateLimited: {
      summary: 'A rate-limit window is exhausted',
      value: errorExample(429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded. Please wait 42 seconds before making another request.', { retry_after: 42 }),
    },
  },
  500: { internal: { summary: 'Our failure; never carries internals', value: errorExample(500, 'INTERNAL_SERVER_ERROR', 'Internal server error') } },
  503: { overloaded: { summary: 'Too many large reports waiting: retry after Retry-After seconds', value: errorExample(503, 'SERVICE_UNAVAILABLE', 'Too many large reports are being computed. Please retry in 1 second.') } },
}

/** POST /auth/login's own error examples (it is public, so no token errors). */
export const LOGIN_ERROR_EXAMPLES: Record<string, Record<string, Example>> = {
  401: {
    invalidPair: { summary: 'Well-formed but wrong key pair (counts towards the lockout)', value: errorExample(401, 'INVALID_CREDENTIALS', 'Invalid API client key or secret') },
    malformedClientKey: { summary: 'Client key not in the issued format', value: errorExample(401, 'INVALID_CREDENTIALS', 'Malformed API client key') },
    malformedSecretKey: { summary: 'Secret key not in the issued format', value: errorExample(401, 'INVALID_CREDENTIALS', 'Malformed API secret key') },
    tooManyAttempts: { summary: 'Locked out after repeated failures: wait Retry-After', value: errorExample(401, 'TOO_MANY_ATTEMPTS', 'Too many failed login attempts. Please try again later.') },
  },
  403: { userDisabled: { summary: 'Disabled user', value: errorExample(403, 'USER_DISABLED', 'User account is disabled') } },
  422: { missingField: validation(['body', 'api_secret_key'], 'Field required', 'missing') },
  429: PROTECTED_ERROR_EXAMPLES[429] ?? {},
  500: PROTECTED_ERROR_EXAMPLES[500] ?? {},
}

const accounts = (code: string, list: unknown[] = []) => ({ [`${code}_accounts`]: list })

/** 200 examples by operationId; an operation without an entry shows its schema only. */
export const SUCCESS_EXAMPLES: Record<string, Example> = {
  login: {
    summary: 'A bearer token',
    value: { access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl', token_type: 'bearer', expires_in: 3600, user_id: 'usr_01HZX3Q8V7K2M9' },
  },
  getHealth: { summary: 'Healthy', value: { status: 'ok', version: '0.1.0', database: 'ok', uptime_s: 3605 } },
  getMe: {
    summary: 'One page of brands',
    value: {
      name: 'Acme Media',
      brands: [{
        brand_id: 1,
        brand_name: 'Acme',
        ...accounts('fb', [{ account_id: 10, account_name: 'Acme FR', network_id: '1234567890' }]),
        ...accounts('ig', [{ account_id: 11, account_name: 'acme.fr', network_id: null }]),
        ...accounts('tk'),
        ...accounts('yt'),
        ...accounts('li'),
        ...accounts('th'),
        ...accounts('sc'),
        ...accounts('da'),
        ...accounts('pi'),
      }],
      next_cursor: null,
    },
  },
}
