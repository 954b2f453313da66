import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TEST_JWT_SECRET } from './app.js'
import { exitOf, freePort } from './processes.js'

/**
 * `serve` as deployed: the compiled CLI (dist/cli/main.js, built here with the build's own
 * tsconfig when older than the sources) started by `node` from a temporary directory of its own.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = join(ROOT, 'dist', 'cli', 'main.js')

/** Compiles src/ into dist/ (what `npm run build` does before the dashboard) unless dist is current. */
export function buildServer (): string {
  const stale = !existsSync(MAIN) || execFileSync('find', [join(ROOT, 'src'), '-name', '*.ts', '-newer', MAIN]).toString().trim() !== ''
  if (stale) execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' })
  assert.ok(statSync(MAIN).isFile())
  return MAIN
}

export interface BuiltServer {
  child: ChildProcessWithoutNullStreams
  url: string
  output: () => string
  /** SIGKILL, then waits for the exit. */
  kill9: () => Promise<void>
  /** SIGTERM, then waits (bounded) for the exit; returns its code. */
  stop: () => Promise<number | null | undefined>
}

export async function startBuiltServer (env: Record<string, string>): Promise<BuiltServer> {
  const cwd = mkdtempSync(join(tmpdir(), 'pa-built-serve-'))
  const port = await freePort()
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info', ...env },
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<void>((resolve) => child.once('exit', () => { rmSync(cwd, { recursive: true, force: true }); resolve() }))
  const deadline = Date.now() + 60_000
  while (!output.includes('Server listening')) {
    if (child.exitCode !== null) assert.fail(`serve exited early (${child.exitCode}): ${output}`)
    if (Date.now() > deadline) assert.fail(`serve did not start within 60 s: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    kill9: async () => {
      child.kill('SIGKILL')
      await exited
    },
    stop: async () => {
      child.kill('SIGTERM')
      const code = await exitOf(child, 15_000)
      if (code === undefined) child.kill('SIGKILL')
      await exited
      return code
    },
  }
}
