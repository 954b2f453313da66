import type { FastifyInstance } from 'fastify'
import type { Store } from '../../src/storage/db.js'
import { buildTestApp } from './app.js'
import { bearer, createPartner, loginToken } from './partners.js'

/** The app plus a logged-in partner granted some brands, and a GET helper for /analytics/. */
export interface AnalyticsClient {
  app: FastifyInstance
  get: (query: Record<string, string>, path?: string) => Promise<{ status: number, body: Record<string, unknown> & { data: Array<Record<string, unknown>> } }>
}

export async function analyticsClient (store: Store, brandIds: number[]): Promise<AnalyticsClient> {
  // Property tests send hundreds of requests: the rate limit is not what they test.
  const app = await buildTestApp(store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
  const partner = await createPartner(store, { brandIds })
  const headers = bearer(await loginToken(app, partner))
  return {
    app,
    get: async (query, path = '/analytics/') => {
      const response = await app.inject({ method: 'GET', url: path, query, headers })
      return { status: response.statusCode, body: response.json() }
    },
  }
}
