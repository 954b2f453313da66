import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PUBLIC_ROUTE } from '../../route-access.js'
import { Health } from '../../schemas/health.schemas.js'

/** GET /health (docs/api-reference.md "GET /health"): no auth, no rate limit, one cheap probe of the store. */
export const healthRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['system'],
      summary: 'Liveness and database reachability',
      response: { 200: Health, 503: Health },
    },
    config: { access: PUBLIC_ROUTE },
  }, async (_request, reply) => {
    const health = await app.services.health.check()
    return await reply.code(health.status === 'ok' ? 200 : 503).send(health)
  })
}
