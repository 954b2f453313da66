import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { exitOf, sleep } from './processes.js'

/**
 * The service as it is deployed: compiled with the build's own tsconfig into a folder laid out
 * like an installed package (package.json, dist/, node_modules), started with plain `node` (no
 * tsx) from a working directory of the test's own. Built once per test file (about 25 s).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface BuiltPackage {
  /** `node <main> serve` runs the compiled CLI. */
  main: string
  cleanup: () => void
}

export async function buildPackage (): Promise<BuiltPackage> {
  const dir = mkdtempSync(join(tmpdir(), 'pa-built-'))
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')], { cwd: ROOT, timeout: 180_000 })
  return { main: join(dir, 'dist', 'cli', 'main.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export interface ServedProcess {
  child: ChildProcessWithoutNullStreams
  stdout: () => string
  stderr: () => string
  /** Every JSON log line printed so far. */
  logLines: () => Array<Record<string, unknown>>
  /** SIGKILL if still running, and the folder removed. */
  kill: () => Promise<void>
}

/**
 * `node <main> serve …` in a fresh working directory, resolved once `ready(stdout)` holds
 * (within 120 s; an early exit fails with its stderr).
 */
export async function serveBuilt (main: string, args: string[], env: Record<string, string>, ready: (stdout: string) => boolean): Promise<ServedProcess> {
  const cwd = mkdtempSync(join(tmpdir(), 'pa-serve-'))
  mkdirSync(cwd, { recursive: true })
  const child = spawn(process.execPath, [main, 'serve', ...args], { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const served: ServedProcess = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    logLines: () => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>),
    kill: async () => {
      // Its workers too (each logged its pid), so none outlives the test.
      const pids = new Set(served.logLines().map((line) => Number(line.pid)).filter((pid) => pid !== child.pid && pid > 0))
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await exitOf(child, 5000)
      }
      for (const pid of pids) {
        try { process.kill(pid, 'SIGKILL') } catch { /* gone already */ }
      }
      rmSync(cwd, { recursive: true, force: true })
    },
  }
  const deadline = Date.now() + 120_000
  while (!ready(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await served.kill()
      throw new Error(child.exitCode !== null ? `serve exited early (${child.exitCode}): ${stderr}` : `serve not ready within 120 s: ${stderr.slice(-2000)}`)
    }
    await sleep(50)
  }
  return served
}
