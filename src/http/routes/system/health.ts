import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PUBLIC_ROUTE } from '../../route-access.js'
import { Health, Liveness, Readiness } from '../../schemas/health.schemas.js'

/**
 * The health routes (docs/reliability.md "Probes"), all public and never rate limited:
 * - GET /health: the full report for people and monitoring, 503 naming any dependency down;
 * - GET /health/live: the process answers (an orchestrator's liveness probe), no I/O;
 * - GET /health/ready: the database answers within 1 s (a load balancer's health check); Redis
 *   is left out, since the service keeps serving without it.
 */
export const healthRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['system'],
      summary: 'Full report: version, uptime, database and Redis reachability',
      response: { 200: Health, 503: Health },
    },
    config: { access: PUBLIC_ROUTE },
  }, async (_request, reply) => {
    const health = await app.services.health.check()
    return await reply.code(health.status === 'ok' ? 200 : 503).send(health)
  })

  app.get('/health/live', {
    schema: {
      operationId: 'getHealthLive',
      tags: ['system'],
      summary: 'Liveness: the process answers (for an orchestrator\'s liveness probe)',
      response: { 200: Liveness },
    },
    config: { access: PUBLIC_ROUTE },
  }, async () => ({ status: 'ok' as const }))

  app.get('/health/ready', {
    schema: {
      operationId: 'getHealthReady',
      tags: ['system'],
      summary: 'Readiness: the database answers (for a load balancer\'s health check)',
      response: { 200: Readiness, 503: Readiness },
    },
    config: { access: PUBLIC_ROUTE },
  }, async (_request, reply) => {
    const readiness = await app.services.health.ready()
    return await reply.code(readiness.status === 'ok' ? 200 : 503).send(readiness)
  })
}
