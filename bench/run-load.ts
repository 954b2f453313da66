import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { text } from 'node:stream/consumers'
import { fileURLToPath } from 'node:url'
import type { LoadOptions, LoadResult } from './load.js'

const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * Runs autocannon in a child process of its own (bench/load.ts), so that the load does not share
 * an event loop with a server measured in this process, and returns what it printed. The options
 * go on stdin: they may hold a bearer token, which `ps` would show in argv.
 */
export async function runLoad (options: LoadOptions): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD_SCRIPT], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  child.stdin.end(JSON.stringify(options))
  const output = await text(child.stdout)
  const [code, signal] = await exited
  if (code !== 0) throw new Error(`bench/load.ts exited with ${code ?? signal}`)
  return JSON.parse(output) as LoadResult
}
