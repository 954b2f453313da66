import type { FastifyInstance } from 'fastify'
import { getAnalyticsRoute } from './analytics/get-analytics.js'
import { loginRoute } from './auth/login.js'
import { getMetricCatalogRoute } from './catalog/get-metrics.js'
import { listChangesRoute } from './changes/list-changes.js'
import { dashboardRoutes } from './dashboard/index.js'
import { getDataStatusRoute } from './data-status/get-data-status.js'
import { docsRoutes } from './docs/index.js'
import { exportFileRoutes } from './exports/files.js'
import { exportJobRoutes } from './exports/jobs.js'
import { getMeRoute } from './me/get-me.js'
import { getPostsRoute } from './posts/get-posts.js'
import { reportsRoutes } from './reports/reports.js'
import { healthRoute } from './system/health.js'
import { webhookDeliveryRoutes } from './webhooks/deliveries.js'
import { webhookEndpointRoutes } from './webhooks/endpoints.js'

/**
 * Every route of the service, in one list. Each route declares its own access (bearer + per-user
 * limit, per-IP limit, or public) in its options: src/http/route-access.ts.
 */
export async function registerRoutes (app: FastifyInstance): Promise<void> {
  await app.register(healthRoute)
  await app.register(docsRoutes)
  await app.register(dashboardRoutes)
  await app.register(loginRoute)
  await app.register(getMeRoute)
  await app.register(getAnalyticsRoute)
  await app.register(getPostsRoute)
  await app.register(reportsRoutes)
  await app.register(getDataStatusRoute)
  await app.register(getMetricCatalogRoute)
  await app.register(listChangesRoute)
  await app.register(webhookEndpointRoutes)
  await app.register(webhookDeliveryRoutes)
  await app.register(exportJobRoutes)
  await app.register(exportFileRoutes)
}
