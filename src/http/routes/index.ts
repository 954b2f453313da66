import type { FastifyInstance } from 'fastify'
import { healthRoute } from './system/health.js'

/**
 * Every route of the service, in one list. Public routes first; partner routes sit behind the
 * authentication hook (src/auth) once it exists.
 */
export async function registerRoutes (app: FastifyInstance): Promise<void> {
  await app.register(healthRoute)
}
