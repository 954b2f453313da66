import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * A build that tests need (the compiled service, the dashboard), made when its output is missing
 * or older than any of its sources. Test files run two at a time, so the build takes a lock (a
 * directory, created atomically) and the others wait for it; a lock older than `staleMs` is left
 * over from a killed run and taken over.
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

function tryLock (step: BuildStep): boolean {
  mkdirSync(dirname(step.lock), { recursive: true })
  try {
    mkdirSync(step.lock)
    return true
  } catch {
    try {
      if (Date.now() - statSync(step.lock).mtimeMs > step.staleMs) rmSync(step.lock, { recursive: true, force: true })
    } catch {}
    return false
  }
}

export async function buildOnce (step: BuildStep): Promise<void> {
  const deadline = Date.now() + 2 * step.staleMs
  while (!isFresh(step)) {
    if (tryLock(step)) {
      try {
        if (!isFresh(step)) await step.build()
      } finally {
        rmSync(step.lock, { recursive: true, force: true })
      }
      return
    }
    if (Date.now() > deadline) throw new Error(`the ${step.name} lock was never released`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
