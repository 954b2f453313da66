import type { FastifyInstance } from 'fastify'
import { loginRoute } from './auth/login.js'
import { dashboardRoutes } from './dashboard/index.js'
import { docsRoutes } from './docs/index.js'
import { partnerRoutes } from './partner-routes.js'
import { healthRoute } from './system/health.js'

/**
 * Every route of the service, in one list. Public routes first; partner routes sit behind the
 * authentication hook and the per-user rate limit (partner-routes.ts).
 */
export async function registerRoutes (app: FastifyInstance): Promise<void> {
  await app.register(healthRoute)
  await app.register(docsRoutes)
  await app.register(dashboardRoutes)
  await app.register(loginRoute)
  await app.register(partnerRoutes)
}
