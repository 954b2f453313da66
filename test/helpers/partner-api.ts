import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Dialect } from '../../src/storage/db.js'
import type { ExportOptions } from '../../src/services/exports/index.js'
import type { WebhookOptions } from '../../src/services/webhooks/index.js'
import type { AggReport, DailyReport, MonthlyReport } from '../../src/http/schemas/analytics.schemas.js'
import type { MeResponse } from '../../src/http/schemas/me.schemas.js'
import type { PostsPage } from '../../src/http/schemas/posts.schemas.js'
import { buildTestApp } from './app.js'
import { bearer, createPartner, loginToken, type TestPartner } from './partners.js'
import { createTestStore, type TestStore } from './stores.js'

/**
 * The one setup most API tests share: a fresh store of a dialect (seeded by the caller), the
 * production app on it, and a partner granted some brands and logged in, with typed request
 * helpers. Bodies are typed by the route's 200 schema; error fields are there when the status
 * says so (tests check the status first).
 */

/** The fields an error body adds (docs/api-reference.md "Errors"). */
export interface ErrorFields {
  detail: unknown
  error_code: string
  status_code: number
  status: 'error'
  timestamp: string
  request_id: string
  retry_after: number
}

export interface ApiResponse<Ok> {
  status: number
  body: Ok & Partial<ErrorFields>
  headers: LightMyRequestResponse['headers']
}

export type Query = Record<string, string>

export interface PartnerApi {
  test: TestStore
  app: FastifyInstance
  partner: TestPartner
  /** `{ authorization: 'Bearer …' }` of the logged-in partner. */
  auth: { authorization: string }
  me: (query?: Query) => Promise<ApiResponse<MeResponse>>
  analytics: <Ok = DailyReport & MonthlyReport & AggReport>(query?: Query, path?: string) => Promise<ApiResponse<Ok>>
  posts: (query?: Query, path?: string) => Promise<ApiResponse<PostsPage>>
  /** Any GET, with the partner's token unless other headers are given. */
  get: <Ok = Record<string, unknown>>(path: string, query?: Query, headers?: Record<string, string>) => Promise<ApiResponse<Ok>>
  /** Closes the app and drops the store. */
  close: () => Promise<void>
}

export interface PartnerApiOptions {
  /** Writes the data the tests read (brands must exist before they are granted). */
  seed?: (test: TestStore) => Promise<void>
  /** Brands granted to the partner. */
  brandIds: number[]
  /** Environment of the app (e.g. rate limits); rate limits are off unless given. */
  env?: Record<string, string>
  /** The app's wall clock (see wallClock in app.ts); the real one unless given. */
  now?: () => number
  /** The webhooks' resolver, replica hook and time limits. */
  webhooks?: WebhookOptions
  /** The export worker's lease and poll. */
  exports?: ExportOptions
}

export async function openPartnerApi (dialect: Dialect, options: PartnerApiOptions): Promise<PartnerApi> {
  const test = await createTestStore(dialect)
  try {
    await options.seed?.(test)
    // Most tests send many requests: the rate limit is not what they test unless they say so.
    const app = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', ...options.env }, { now: options.now, webhooks: options.webhooks, exports: options.exports })
    const partner = await createPartner(test.store, { brandIds: options.brandIds })
    const auth = bearer(await loginToken(app, partner))
    const get = async <Ok>(path: string, query: Query = {}, headers: Record<string, string> = auth): Promise<ApiResponse<Ok>> => {
      const response = await app.inject({ method: 'GET', url: path, query, headers })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }
    return {
      test,
      app,
      partner,
      auth,
      get,
      me: async (query) => await get('/me', query),
      analytics: async (query, path = '/analytics/') => await get(path, query),
      posts: async (query, path = '/posts') => await get(path, query),
      close: async () => {
        await app.close()
        await test.cleanup()
      },
    }
  } catch (error) {
    await test.cleanup()
    throw error
  }
}
