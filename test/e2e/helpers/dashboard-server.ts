import type { FastifyInstance } from 'fastify'
import { utcToday as todayUtc } from '../../../src/domain/dates.js'
import { DEMO_DEFAULTS } from '../../../src/services/demo/generator.js'
import { DEMO_USER_BRANDS } from '../../../src/services/demo/first-start.js'
import { demoSource } from '../../../src/services/demo/source.js'
import { importSources } from '../../../src/services/import/import.service.js'
import type { Dialect } from '../../../src/storage/db.js'
import { buildTestApp } from '../../helpers/app.js'
import { createPartner, type TestPartner } from '../../helpers/partners.js'
import { createTestStore, type TestStore } from '../../helpers/stores.js'

/**
 * A listening service with the demo data `npm start` shows (8 brands, 400 days ending today,
 * posts) on a fresh store of either dialect, and a partner granted brands 1..7 like the demo
 * partner. `listen` starts more apps on the same store with other settings (a 4 s token, a tiny
 * rate limit); each has its own in-process rate-limit counters.
 */

export interface DashboardServer {
  baseUrl: string
  testStore: TestStore
  partner: TestPartner
  today: string
  /** Another partner with the same brands (its own rate-limit counters and key pair). */
  newPartner: () => Promise<TestPartner>
  listen: (env?: Record<string, string>) => Promise<{ app: FastifyInstance, baseUrl: string }>
  close: () => Promise<void>
}

/** `until`: the demo's last day (default today), for tests that need the same data every day. */
export async function startDashboardServer (dialect: Dialect, options: { until?: string } = {}): Promise<DashboardServer> {
  const testStore = await createTestStore(dialect)
  const today = todayUtc()
  await importSources(testStore.store, [demoSource({ ...DEMO_DEFAULTS, until: options.until ?? today })], {})
  const newPartner = async () => await createPartner(testStore.store, { brandIds: DEMO_USER_BRANDS })
  const partner = await newPartner()
  const apps: FastifyInstance[] = []
  const listen = async (env: Record<string, string> = {}) => {
    const app = await buildTestApp(testStore.store, env)
    apps.push(app)
    return { app, baseUrl: await app.listen({ host: '127.0.0.1', port: 0 }) }
  }
  const main = await listen()
  return {
    baseUrl: main.baseUrl,
    testStore,
    partner,
    today,
    newPartner,
    listen,
    close: async () => {
      for (const app of apps) await app.close()
      await testStore.cleanup()
    },
  }
}
