import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../src/config/load.js'
import { buildApp, type AppConfig } from '../../src/http/app.js'
import type { Store } from '../../src/storage/db.js'

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789'

/** The configuration tests start from: defaults of DECISIONS.md §9 plus a fixed JWT secret. */
export function testConfig (env: Record<string, string> = {}): AppConfig {
  return { ...loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, ...env }), jwtSecret: env.JWT_SECRET ?? TEST_JWT_SECRET }
}

/** The production app on a test store, logging nothing; call `app.close()` when done. */
export async function buildTestApp (store: Store, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(env), { store, logger: false })
  await app.ready()
  return app
}
