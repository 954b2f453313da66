import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, existsSync, readFileSync } from 'node:fs'
import { platformMetricsOf } from '../src/domain/metrics.js'
import { PLATFORM_CODES } from '../src/domain/platforms.js'
import type { Store } from '../src/storage/db.js'

/** What bench/import.ts and bench/import-compare.ts share: the fixture, and timing with CPU seconds. */

/** Accounts of the fixture. */
export const ACCOUNTS = 200

const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK').toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** CPU seconds (user + system) a process has used, from /proc; undefined when unreadable. */
function processCpuSeconds (pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/** The PostgreSQL backends a store's pool opens (their pids), so their CPU time can be read. */
export function watchBackends (store: Store): Set<number> {
  const pids = new Set<number>()
  if (store.dialect === 'postgres') {
    store.pool.on('connect', (client) => {
      client.query<{ pid: number }>('select pg_backend_pid() as pid').then((result) => { pids.add(Number(result.rows[0]?.pid)) }, () => {})
    })
  }
  return pids
}

/** CPU seconds so far of this process (key 0) and of each backend that can be read. */
function cpuSnapshot (backends: ReadonlySet<number>): Map<number, number> {
  const own = process.cpuUsage()
  const snapshot = new Map([[0, (own.user + own.system) / 1e6]])
  for (const pid of backends) {
    const used = processCpuSeconds(pid)
    if (used !== undefined) snapshot.set(pid, used)
  }
  return snapshot
}

/**
 * CPU used between two snapshots: a backend first seen in `after` started during the run; one gone
 * by `after` (an idle connection the pool closed) is left out. Undefined without /proc.
 */
function cpuUsed (before: Map<number, number>, after: Map<number, number>, backends: ReadonlySet<number>): number | undefined {
  if (backends.size > 0 && !existsSync('/proc/self/stat')) return undefined
  let total = 0
  for (const [pid, used] of after) total += used - (before.get(pid) ?? 0)
  return total
}

/** Peak RSS while `run` runs, sampled every 20 ms (maxRSS cannot be reset between runs), and the CPU it used. */
export async function measure<T> (run: () => Promise<T>, backends: ReadonlySet<number> = new Set()): Promise<{ result: T, seconds: number, cpuSeconds: number | undefined, peakRssMb: number }> {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 20)
  const started = performance.now()
  const cpuBefore = cpuSnapshot(backends)
  try {
    const result = await run()
    const cpu = cpuUsed(cpuBefore, cpuSnapshot(backends), backends)
    return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: cpu, peakRssMb: Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576) }
  } finally {
    clearInterval(timer)
  }
}

/**
 * An NDJSON file of 1 brand, ACCOUNTS accounts over the nine platforms and `rows` daily rows (day by
 * day, every account each day), then `posts` posts spread over the accounts (default none).
 */
export async function writeFixture (path: string, rows: number, posts = 0): Promise<void> {
  const out = createWriteStream(path)
  const write = async (line: string): Promise<void> => { if (!out.write(line + '\n')) await once(out, 'drain') }
  await write(JSON.stringify({ kind: 'brand', brand_id: 1, brand_name: 'Bench' }))
  for (let a = 0; a < ACCOUNTS; a += 1) {
    const platform = PLATFORM_CODES[a % PLATFORM_CODES.length]
    await write(JSON.stringify({ kind: 'account', platform, account_id: 1000 + a, brand_id: 1, account_name: `Account ${a}` }))
  }
  const start = Date.UTC(2020, 0, 1)
  for (let i = 0; i < rows; i += 1) {
    const a = i % ACCOUNTS
    const platform = PLATFORM_CODES[a % PLATFORM_CODES.length] ?? 'fb'
    const row: Record<string, unknown> = {
      kind: 'daily',
      platform,
      account_id: 1000 + a,
      date: new Date(start + Math.floor(i / ACCOUNTS) * 86_400_000).toISOString().slice(0, 10),
      views: (i * 7919) % 100_000,
      revenue: ((i * 31) % 100_000) / 100,
      followers: 10_000 + i % 5000,
      new_followers: i % 50,
      posts_count: i % 4,
      interactions: (i * 13) % 9000,
    }
    for (const metric of platformMetricsOf(platform)) row[metric] = (i * 17 + metric.length) % 20_000
    await write(JSON.stringify(row))
  }
  for (let p = 0; p < posts; p += 1) {
    const a = p % ACCOUNTS
    const platform = PLATFORM_CODES[a % PLATFORM_CODES.length] ?? 'fb'
    const created = new Date(start + Math.floor(p / ACCOUNTS) * 3_600_000).toISOString().slice(0, 19) + 'Z'
    await write(JSON.stringify({ kind: 'post', platform, account_id: 1000 + a, id: `p${p}`, created_time: created, title: `Post ${p}`, views: (p * 7919) % 100_000, interactions: (p * 13) % 9000 }))
  }
  out.end()
  await once(out, 'finish')
}

/**
 * Runs a command to its end: wall seconds, peak RSS (VmHWM from /proc, sampled every 50 ms) and its
 * stderr; `stdin` may be a file descriptor to read (a pipe a generator writes). Throws when it fails.
 */
export async function timeChild (command: string, argv: string[], env: Record<string, string>, stdin: number | 'ignore' = 'ignore'): Promise<{ seconds: number, peakRssMb: number, stderr: string }> {
  const started = performance.now()
  const child: ChildProcess = spawn(command, argv, { stdio: [stdin, 'ignore', 'pipe'], env: { ...process.env, ...env } })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (text: string) => { stderr += text })
  let peak = 0
  const sample = (): void => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8'))?.[1]
      if (kb !== undefined) peak = Math.max(peak, Number(kb))
    } catch { /* gone */ }
  }
  const timer = setInterval(sample, 50)
  const [code] = await once(child, 'close') as [number | null]
  clearInterval(timer)
  const seconds = (performance.now() - started) / 1000
  if (code !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${String(code)}: ${stderr}`)
  return { seconds, peakRssMb: Math.round(peak / 1024), stderr }
}
