import fastifySwagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { VERSION } from '../../config/version.js'
import { completeDocument, type OpenApiDocument } from './openapi-document.js'
import { apiDescription } from './openapi-description.js'
import { transformRouteSchema } from './openapi-transform.js'

/**
 * Collects every route's TypeBox schemas into one OpenAPI 3.1 document (the single source of
 * truth: Ajv validation, serialization and the document read the same objects). Registered in
 * buildApp BEFORE the routes, since @fastify/swagger learns routes through the onRoute hook.
 * The shared parts every operation has (security, rate-limit and request-id headers, error
 * examples) are added once here, in completeDocument, not repeated in each route.
 */
export const openApiPlugin = fp(async function openApi (app: FastifyInstance) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Analytics API',
        version: VERSION,
        description: apiDescription(),
        license: { name: 'Proprietary: use is governed by your partner agreement', identifier: 'LicenseRef-Partner-Agreement' },
      },
      // Relative: the API is served from the host that serves this document.
      servers: [{ url: '/', description: 'This service' }],
      tags: [
        { name: 'auth', description: 'Trading a key pair for a bearer token' },
        { name: 'partners', description: 'The authenticated user and their brands' },
        { name: 'analytics', description: 'Daily, monthly and aggregated metrics across nine platforms' },
        { name: 'posts', description: 'Unified posts from every platform' },
        { name: 'webhooks', description: 'Signed pushes of the change feed\'s events to your endpoints, with a delivery log' },
        { name: 'system', description: 'Monitoring' },
      ],
    },
    // const stays const: OpenAPI 3.1 is JSON Schema 2020-12, and the generated client types keep literals.
    convertConstToEnum: false,
    transform: ({ schema, url, route }) => ({ schema: transformRouteSchema(schema, route), url }),
    // Always the openapi branch here (this plugin configures `openapi`, never `swagger`).
    transformObject: (documentObject) => completeDocument((documentObject as { openapiObject: OpenApiDocument }).openapiObject) as never,
  })
}, { name: 'openapi' })
