import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * A build that tests need (the compiled service, the dashboard), made when its output is missing
 * or older than any of its sources. Test files run two at a time, so the build takes a lock (a
 * directory, created atomically) and the others wait for it; a lock whose process is gone, or
 * older than `staleMs`, is left over from a killed run and taken over.
 *
 * While a build runs its output may already look fresh (tsc writes dist/cli/main.js before the
 * modules it imports), so freshness is only trusted when no build holds the lock: a test file
 * that started `serve` from a half-written dist/ saw "does not provide an export named …".
 */
export interface BuildStep {
  /** In the errors: what is built. */
  name: string
  /** A file the build writes: it is fresh when newer than every source. */
  output: string
  /** Files or folders (node_modules inside them is not looked at). */
  sources: string[]
  lock: string
  staleMs: number
  build: () => void | Promise<void>
}

export function newestMs (path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).filter((name) => name !== 'node_modules').map((name) => newestMs(join(path, name))))
}

function isFresh (step: BuildStep): boolean {
  try {
    return statSync(step.output).mtimeMs >= Math.max(...step.sources.map(newestMs))
  } catch {
    return false
  }
}

/** False once the lock's holder has exited (a run killed mid-build); true while unknown. */
function holderAlive (lock: string): boolean {
  try {
    process.kill(Number(readFileSync(join(lock, 'pid'), 'utf8')), 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function tryLock (step: BuildStep): boolean {
  mkdirSync(dirname(step.lock), { recursive: true })
  try {
    mkdirSync(step.lock)
    writeFileSync(join(step.lock, 'pid'), String(process.pid))
    return true
  } catch {
    try {
      if (!holderAlive(step.lock) || Date.now() - statSync(step.lock).mtimeMs > step.staleMs) rmSync(step.lock, { recursive: true, force: true })
    } catch {}
    return false
  }
}

export async function buildOnce (step: BuildStep): Promise<void> {
  // Fresh, checked before the lock is seen free: a build that starts later finds it fresh too.
  if (isFresh(step) && !existsSync(step.lock)) return
  const deadline = Date.now() + 2 * step.staleMs
  while (!tryLock(step)) {
    if (Date.now() > deadline) throw new Error(`the ${step.name} lock was never released`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  try {
    if (!isFresh(step)) await step.build()
  } finally {
    rmSync(step.lock, { recursive: true, force: true })
  }
}
