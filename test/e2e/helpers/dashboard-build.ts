import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { DASHBOARD_ASSETS_DIR } from '../../../src/http/routes/dashboard/index.js'
import { buildOnce } from '../../helpers/build-once.js'

/**
 * The end-to-end tests need the built dashboard (dist/dashboard), and a clean clone has none:
 * built when it is missing or older than any of its sources, once however many test files ask
 * at the same time (test/helpers/build-once.ts).
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export async function ensureDashboardBuilt (): Promise<void> {
  await buildOnce({
    name: 'dashboard build',
    output: join(DASHBOARD_ASSETS_DIR, 'index.html'),
    sources: [join(ROOT, 'web'), join(ROOT, 'packages/client/src')],
    lock: join(ROOT, 'dist/.dashboard-build.lock'),
    staleMs: 180_000,
    build: async () => { await build({ configFile: join(ROOT, 'web/vite.config.ts'), logLevel: 'warn' }) },
  })
}
