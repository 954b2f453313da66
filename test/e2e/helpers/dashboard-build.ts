import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { DASHBOARD_ASSETS_DIR } from '../../../src/http/routes/dashboard/index.js'

/**
 * The end-to-end tests need the built dashboard (dist/dashboard), and a clean clone has none:
 * build it when it is missing or older than any of its sources. Test files run two at a time,
 * so the build takes a lock (a directory, created atomically); the others wait for it.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SOURCES = [join(ROOT, 'web'), join(ROOT, 'packages/client/src')]
const LOCK = join(ROOT, 'dist/.dashboard-build.lock')
/** A lock older than this is left over from a killed run. */
const STALE_LOCK_MS = 180_000

function newestSourceMs (path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).filter((name) => name !== 'node_modules').map((name) => newestSourceMs(join(path, name))))
}

function isFresh (): boolean {
  try {
    return statSync(join(DASHBOARD_ASSETS_DIR, 'index.html')).mtimeMs >= Math.max(...SOURCES.map(newestSourceMs))
  } catch {
    return false
  }
}

function tryLock (): boolean {
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  try {
    mkdirSync(LOCK)
    return true
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true })
    } catch {}
    return false
  }
}

export async function ensureDashboardBuilt (): Promise<void> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS
  while (!isFresh()) {
    if (tryLock()) {
      try {
        if (!isFresh()) await build({ configFile: join(ROOT, 'web/vite.config.ts'), logLevel: 'warn' })
      } finally {
        rmSync(LOCK, { recursive: true, force: true })
      }
      return
    }
    if (Date.now() > deadline) throw new Error('the dashboard build lock was never released')
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
