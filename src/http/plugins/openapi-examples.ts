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
  410: {
    cursorExpired: {
      summary: 'A change-feed cursor older than the retention: resynchronise, then follow from start=latest',
      value: errorExample(410, 'CURSOR_EXPIRED', 'This cursor was issued more than 90 days ago, longer than the change feed keeps events. Resynchronise: read the data you keep again, then follow the feed from start=latest'),
    },
  },
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

const webhookNotFound = { notFound: { summary: 'No webhook of yours has this id', value: errorExample(404, 'NOT_FOUND', 'No webhook with id wh_4f8kQ2vX9mB3nL7pR1tY6wZs') } }
const webhookDisabled = { disabled: { summary: 'The webhook is disabled', value: errorExample(409, 'CONFLICT', 'Webhook wh_4f8kQ2vX9mB3nL7pR1tY6wZs is disabled; enable it first (PATCH with {"status": "enabled"})') } }
const userDisabledOnly = { userDisabled: PROTECTED_ERROR_EXAMPLES[403]?.userDisabled ?? { summary: '', value: null } }

/** Error examples of the webhook operations, where they differ from the protected routes' (by operationId, then status). */
export const OPERATION_ERROR_EXAMPLES: Record<string, Record<string, Record<string, Example>>> = Object.fromEntries([
  'createWebhook', 'listWebhooks', 'getWebhook', 'updateWebhook', 'deleteWebhook', 'rotateWebhookSecret', 'testWebhook', 'listWebhookDeliveries', 'redeliverWebhookDelivery',
].map((id) => [id, { 403: userDisabledOnly, 404: webhookNotFound }]))
Object.assign(OPERATION_ERROR_EXAMPLES.createWebhook ?? {}, {
  409: { tooMany: { summary: 'Ten webhooks already', value: errorExample(409, 'CONFLICT', 'A partner may have at most 10 webhooks; delete one first') } },
  422: {
    privateAddress: validation(['body', 'url'], 'URL refused (private_address): must resolve to public addresses only (localhost resolves to 127.0.0.1, loopback)', 'url_private_address', { rule: 'private_address' }),
    httpsRequired: validation(['body', 'url'], 'URL refused (https_required): must use https://', 'url_https_required', { rule: 'https_required' }),
  },
})
Object.assign(OPERATION_ERROR_EXAMPLES.updateWebhook ?? {}, {
  409: { operatorDisabled: { summary: 'Disabled by the operator', value: errorExample(409, 'CONFLICT', 'Webhook wh_4f8kQ2vX9mB3nL7pR1tY6wZs was disabled by the operator (Disabled by the operator at 2026-11-21T12:00:00Z); only the operator can enable it') } },
  422: { unknownType: validation(['body', 'events'], 'Unknown event type "analytics.synced"; use analytics.updated, posts.updated, brand.updated, account.updated, access.granted, access.revoked', 'enum', { item: 'analytics.synced' }) },
})
Object.assign(OPERATION_ERROR_EXAMPLES.testWebhook ?? {}, { 409: webhookDisabled })
Object.assign(OPERATION_ERROR_EXAMPLES.listWebhookDeliveries ?? {}, { 422: { badCursor: validation(['query', 'cursor'], 'Invalid cursor: use the next_cursor of a response to this same query', 'cursor_invalid') } })
Object.assign(OPERATION_ERROR_EXAMPLES.redeliverWebhookDelivery ?? {}, {
  409: { ...webhookDisabled, underWay: { summary: 'An attempt is under way', value: errorExample(409, 'CONFLICT', 'Delivery dlv_1042 is being attempted right now; try again once the attempt is over') } },
})

const exportNotFound = { notFound: { summary: 'No export of yours has this id', value: errorExample(404, 'NOT_FOUND', 'Export exp_7Hq2mK9vX4nB8pL1tR6wZs3Y not found') } }
const exportNotReady = { notReady: { summary: 'The job has not succeeded (yet)', value: errorExample(409, 'EXPORT_NOT_READY', 'Export exp_7Hq2mK9vX4nB8pL1tR6wZs3Y is running: its files exist once it has succeeded') } }
const exportExpired = {
  expired: {
    summary: 'The retention removed the files: create the export again',
    value: errorExample(410, 'EXPORT_EXPIRED', 'Export exp_7Hq2mK9vX4nB8pL1tR6wZs3Y\'s files were removed at 2026-11-24T12:00:00Z (kept EXPORT_RETENTION_HOURS after it finished): create the export again'),
  },
}
for (const id of ['createExport', 'listExports', 'getExport', 'deleteExport', 'getExportManifest', 'downloadExportFile']) {
  OPERATION_ERROR_EXAMPLES[id] = { 403: userDisabledOnly, ...(id === 'createExport' || id === 'listExports' ? {} : { 404: exportNotFound }) }
}
Object.assign(OPERATION_ERROR_EXAMPLES.createExport ?? {}, {
  403: PROTECTED_ERROR_EXAMPLES[403],
  404: PROTECTED_ERROR_EXAMPLES[404],
  410: { cursorExpired: { summary: 'changed_since_cursor older than the change feed keeps', value: errorExample(410, 'CURSOR_EXPIRED', 'The change feed no longer holds the events after this cursor (CHANGES_RETENTION_DAYS): export the dataset in full again') } },
  422: { compression: validation(['body', 'compression'], 'parquet files are compressed with zstd or snappy', 'compression_format', { format: 'parquet' }) },
})
for (const id of ['getExportManifest', 'downloadExportFile']) Object.assign(OPERATION_ERROR_EXAMPLES[id] ?? {}, { 409: exportNotReady, 410: exportExpired })
Object.assign(OPERATION_ERROR_EXAMPLES.downloadExportFile ?? {}, {
  416: { beyondEnd: { summary: 'No byte of the range exists (Content-Range: bytes */SIZE)', value: errorExample(416, 'RANGE_NOT_SATISFIABLE', 'The file has 1024 bytes: no byte of range bytes=2048- exists') } },
})

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
  429: {
    ...PROTECTED_ERROR_EXAMPLES[429],
    attemptsInFlight: {
      summary: 'Too many logins for this key or address are still being checked (not failures): retry after Retry-After',
      value: errorExample(429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded. Please wait 1 seconds before making another request.', { retry_after: 1 }),
    },
  },
  500: PROTECTED_ERROR_EXAMPLES[500] ?? {},
}

const accounts = (code: string, list: unknown[] = []) => ({ [`${code}_accounts`]: list })

const WEBHOOK_EXAMPLE = {
  id: 'wh_4f8kQ2vX9mB3nL7pR1tY6wZs',
  url: 'https://etl.example.com/hooks/partner-analytics',
  description: 'Nightly ETL',
  events: ['analytics.updated', 'posts.updated'],
  status: 'enabled',
  disabled_by: null,
  disabled_reason: null,
  created_at: TIMESTAMP,
  updated_at: TIMESTAMP,
  previous_secret_expires_at: null,
  pending_deliveries: 0,
}

/** 200 examples by operationId; an operation without an entry shows its schema only. */
export const SUCCESS_EXAMPLES: Record<string, Example> = {
  login: {
    summary: 'A bearer token',
    value: { access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl', token_type: 'bearer', expires_in: 3600, user_id: 'usr_01HZX3Q8V7K2M9' },
  },
  listChanges: {
    summary: 'A page of the change feed',
    value: {
      data: [
        { id: 'evt_1042', type: 'analytics.updated', created_at: '2026-11-25T10:00:00Z', sync_id: 17, data: { brand_id: 4, accounts: [{ platform: 'fb', account_id: 40, dates: [{ since: '2026-11-01', until: '2026-11-03' }, { since: '2026-11-05', until: '2026-11-05' }] }] } },
        { id: 'evt_1043', type: 'access.granted', created_at: '2026-11-25T10:02:11Z', sync_id: null, data: { brand_id: 8 } },
      ],
      has_more: false,
      next_cursor: 'WzEwNDMsMTc2NDA2NDkzMV0.bWFjLW9mLXRoZS1jdXJzb3ItaXMtaGVyZQ',
    },
  },
  getHealth: { summary: 'Healthy', value: { status: 'ok', version: '0.1.0', database: 'ok', uptime_s: 3605 } },
  getHealthLive: { summary: 'The process answers', value: { status: 'ok' } },
  getHealthReady: { summary: 'Ready', value: { status: 'ok', database: 'ok' } },
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
  getDataStatus: {
    summary: 'A brand\'s Facebook account missed one day of the period',
    value: {
      data: [{
        brand_id: 4,
        platform: 'fb',
        account_id: 1009,
        account_name: 'Solstice Labs FR',
        first_date: '2026-04-14',
        last_date: '2026-11-24',
        synced_at: '2026-11-25T00:45:42Z',
        days_expected: 7,
        days_reported: 6,
        missing: [{ since: '2026-11-04', until: '2026-11-04' }],
      }],
      total: 1,
      since: '2026-11-01',
      until: '2026-11-07',
      platforms: ['fb'],
      brand_ids: [4],
      brand_id: 4,
      next_cursor: null,
    },
  },
  createWebhook: {
    summary: 'A new webhook, with its secret (shown only here)',
    value: { ...WEBHOOK_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/5mO0qcPU4o=' },
  },
  listWebhookDeliveries: {
    summary: 'The newest delivery, delivered on its third attempt',
    value: {
      data: [{
        id: 'dlv_1042',
        event_id: 'evt_1042',
        event_type: 'analytics.updated',
        status: 'succeeded',
        skip_reason: null,
        attempt_count: 3,
        created_at: '2026-11-21T12:00:00Z',
        next_attempt_at: null,
        attempts: [
          { attempted_at: '2026-11-21T12:05:06Z', duration_ms: 41, http_status: 200, error: null, response_body_excerpt: 'ok' },
          { attempted_at: '2026-11-21T12:00:05Z', duration_ms: 38, http_status: 500, error: 'HTTP 500', response_body_excerpt: 'database unavailable' },
          { attempted_at: '2026-11-21T12:00:00Z', duration_ms: 10002, http_status: null, error: 'timeout: no answer in time', response_body_excerpt: null },
        ],
      }],
      has_more: true,
      next_cursor: 'eyJiZWZvcmUiOjEwNDJ9.c2lnbmF0dXJl',
    },
  },
}
