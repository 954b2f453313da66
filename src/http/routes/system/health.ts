import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { VERSION } from '../../../version.js'

const startedAt = Date.now()

const HealthBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  version: Type.String({ description: 'Service version' }),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  uptime_s: Type.Integer({ description: 'Seconds since the process started' }),
})

/** How long /health waits for the store before calling it unreachable. */
const DATABASE_PROBE_TIMEOUT_MS = 2000

/** GET /health (DECISIONS.md §8): no auth, no rate limit, one cheap query. */
export const healthRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['system'],
      summary: 'Liveness and database reachability',
      response: { 200: HealthBody, 503: HealthBody },
    },
  }, async (_request, reply) => {
    const databaseOk = await probe(() => app.store.ping())
    const body = {
      status: databaseOk ? 'ok' as const : 'error' as const,
      version: VERSION,
      database: databaseOk ? 'ok' as const : 'unreachable' as const,
      uptime_s: Math.floor((Date.now() - startedAt) / 1000),
    }
    return reply.code(databaseOk ? 200 : 503).send(body)
  })
}

async function probe (check: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), DATABASE_PROBE_TIMEOUT_MS) })
  try {
    return await Promise.race([check().then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}
