import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { openApiDocumentRoute } from './openapi-document.js'

/**
 * The partner's reference material: GET /openapi.json and the interactive page at GET /docs.
 * Public and not rate limited (registered outside the partner scope, without a limiter hook).
 * Swagger UI's assets ship inside @fastify/swagger-ui and are served from node_modules, so the
 * page works with no internet access; the CSP below forbids loading anything from elsewhere.
 */
export async function docsRoutes (app: FastifyInstance): Promise<void> {
  await app.register(openApiDocumentRoute)
  // The page's own policy (staticCSP below) allows same-origin framing; X-Frame-Options agrees.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/docs')) reply.header('x-frame-options', 'SAMEORIGIN')
  })
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      // The default posts the document to validator.swagger.io: no third-party calls.
      validatorUrl: null,
      persistAuthorization: false,
      displayOperationId: true,
      tryItOutEnabled: true,
    },
    staticCSP: "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
      "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
    theme: { title: 'Partner Analytics API reference' },
  })
}
