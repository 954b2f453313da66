import type { FastifyInstance } from 'fastify'
import { PUBLIC_ROUTE } from '../../route-access.js'

/** GET /openapi.json: the OpenAPI 3.1 document built from the route schemas (plugins/openapi.ts). */
export async function openApiDocumentRoute (app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true }, config: { access: PUBLIC_ROUTE } }, async (_request, reply) => {
    // Built once by @fastify/swagger after ready and cached there; public and cacheable.
    reply.removeHeader('pragma')
    return await reply.header('cache-control', 'public, max-age=300').send(app.swagger())
  })
}
