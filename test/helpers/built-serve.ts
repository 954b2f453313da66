import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_JWT_SECRET } from './app.js'
import { COMPILED_MAIN, ensureCompiled } from './build.js'
import { exitOf } from './processes.js'

/**
 * `serve` as deployed: the compiled CLI (dist/cli/main.js, built when older than the sources)
 * started by `node` from a temporary directory of its own, on a port it picks itself.
 */

/**
 * Compiles src/ into dist/ unless dist is current, under the lock every test file that runs
 * dist/ shares (test/helpers/build.ts): two files compiling at once, or one starting `serve`
 * while the other's tsc rewrites dist/, made `serve` exit early.
 */
export async function buildServer (): Promise<string> {
  await ensureCompiled()
  return COMPILED_MAIN
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
  // PORT=0: the kernel gives serve a free port as it binds, and serve logs it. A port picked here
  // and closed again could be taken by another test file's process before serve binds it.
  const child = spawn(process.execPath, [COMPILED_MAIN, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info', ...env },
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<void>((resolve) => child.once('exit', () => { rmSync(cwd, { recursive: true, force: true }); resolve() }))
  const deadline = Date.now() + 60_000
  let url: string | undefined
  while ((url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]) === undefined) {
    if (child.exitCode !== null) assert.fail(`serve exited early (${child.exitCode}): ${output}`)
    if (Date.now() > deadline) assert.fail(`serve did not start within 60 s: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    child,
    url,
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
