import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/**
 * Servers a test starts, owns, freezes and kills itself (docs/reliability.md "How it is tested"):
 * a redis-server and a whole PostgreSQL cluster on free ports. Freezing is SIGSTOP — of the Redis
 * process, or of every process of the PostgreSQL cluster (the postmaster and each backend) — so the kernel still accepts connections and data while nothing answers,
 * exactly as a hung server behaves. Every wait here is bounded.
 */

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

export async function sleep (ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Waits until at least `marginMs` remain in the current UTC day, so a test comparing its own
 * "today" with a command's cannot straddle midnight (at most `marginMs` of waiting, once a day).
 */
export async function awaitRoomInDay (marginMs: number): Promise<void> {
  const left = 86_400_000 - (Date.now() % 86_400_000)
  if (left < marginMs) await sleep(left + 50)
}

/** Polls `check` every 100 ms until it is true; throws after `timeoutMs`. */
export async function waitFor (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await sleep(100)
  }
}

/** Resolves with the exit code, or with undefined after `timeoutMs`. */
export async function exitOf (child: ChildProcess, timeoutMs: number): Promise<number | null | undefined> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  return await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs)
    child.once('exit', (code) => { clearTimeout(timer); resolve(code) })
  })
}

/** What a shell script printed and how it ended (code undefined: killed at its bound). */
export interface ScriptRun { code: number | null | undefined, stdout: string, stderr: string }

/**
 * Runs a script as a reader pastes it, with `bash -e -o pipefail` (it stops at the first command
 * that fails), in `cwd` with exactly `env`; killed after `boundMs` — a bound, not a timing: the
 * scripts start npm and tsx, minutes on a machine held busy.
 */
export async function runBash (script: string, options: { cwd: string, env: Record<string, string>, boundMs: number }): Promise<ScriptRun> {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: options.cwd, env: options.env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await exitOf(child, options.boundMs)
  if (code === undefined) child.kill('SIGKILL')
  return { code, stdout, stderr }
}

export interface PrivateRedis {
  url: string
  /** SIGSTOP: connections stay open, nothing is answered. */
  freeze: () => void
  thaw: () => void
  /** SIGKILL: connections are refused until `start`. */
  kill: () => Promise<void>
  /** Starts it again on the same port (empty). */
  start: () => Promise<void>
  close: () => Promise<void>
}

async function redisAnswers (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    const timer = setTimeout(() => { socket.destroy(); resolve(false) }, 500)
    socket.once('error', () => { clearTimeout(timer); resolve(false) })
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => { clearTimeout(timer); socket.destroy(); resolve(data.toString().startsWith('+PONG')) })
  })
}

export async function startPrivateRedis (): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' })
    await waitFor('redis-server answers', async () => await redisAnswers(port), 10_000)
  }
  const kill = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    running.kill('SIGCONT')
    running.kill('SIGKILL')
    await exitOf(running, 5000)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => { child?.kill('SIGSTOP') },
    thaw: () => { child?.kill('SIGCONT') },
    kill,
    start,
    close: kill,
  }
}

export interface PrivatePostgres {
  /** The cluster's `postgres` database, trust authentication. */
  url: string
  /** SIGSTOP to every process of the cluster. */
  freeze: () => void
  thaw: () => void
  close: () => Promise<void>
}

/** Where PostgreSQL's programs are, or undefined when this machine has none (tests that need them skip, saying so). */
export function findPostgresBinDir (): string | undefined {
  try {
    const bin = postgresBinDir()
    return existsSync(join(bin, 'postgres')) && existsSync(join(bin, 'pg_basebackup')) ? bin : undefined
  } catch {
    return undefined
  }
}

function postgresBinDir (): string {
  if (process.env.TEST_PG_BINDIR !== undefined) return process.env.TEST_PG_BINDIR
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
  } catch {
    const root = '/usr/lib/postgresql'
    const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : []
    if (versions[0] === undefined) throw new Error('no PostgreSQL binaries found (set TEST_PG_BINDIR)')
    return join(root, versions[0], 'bin')
  }
}

/** PostgreSQL refuses to run as root: then the cluster runs as the `postgres` user. */
export function clusterOwner (): { uid: number, gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

/** initdb + postgres on a free port, in a temporary folder (about 2 s). */
export async function startPrivatePostgres (): Promise<PrivatePostgres> {
  const bin = postgresBinDir()
  const owner = clusterOwner()
  const dir = mkdtempSync(join(tmpdir(), 'pa-pg-'))
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { stdio: 'ignore', ...owner, timeout: 60_000 })
  const port = await freePort()
  const child = spawn(join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir,
    '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=40', '-c', 'shared_buffers=16MB',
  ], { stdio: 'ignore', ...owner })
  const pid = child.pid as number
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const close = async (): Promise<void> => {
    if (child.exitCode !== null) return rmSync(dir, { recursive: true, force: true })
    for (const target of [pid, ...childrenOf(pid)]) {
      try { process.kill(target, 'SIGCONT') } catch { /* gone */ }
    }
    // Immediate shutdown: the postmaster stops every backend.
    try { process.kill(pid, 'SIGQUIT') } catch { /* gone */ }
    if (await exitOf(child, 10_000) === undefined) {
      for (const target of [pid, ...childrenOf(pid)]) {
        try { process.kill(target, 'SIGKILL') } catch { /* gone */ }
      }
      await exitOf(child, 5000)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitFor('private PostgreSQL accepts connections', async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
      try {
        await client.connect()
        await client.query('select 1')
        return true
      } finally {
        await client.end().catch(() => {})
      }
    }, 30_000)
  } catch (error) {
    await close()
    throw error
  }
  // Postgres puts each backend in a session of its own: signal the postmaster first (it then
  // forks nothing new), then each of its children.
  const signalCluster = (signal: NodeJS.Signals): void => {
    for (const target of [pid, ...childrenOf(pid)]) {
      try { process.kill(target, signal) } catch { /* exited meanwhile */ }
    }
  }
  return {
    url,
    freeze: () => { signalCluster('SIGSTOP') },
    thaw: () => { signalCluster('SIGCONT') },
    close,
  }
}

/** Process ids whose parent is `pid` (Linux: /proc/<n>/stat, field 4). */
export function childrenOf (pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // The command name (field 2) may hold spaces and parentheses: read after its last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) === pid) children.push(Number(entry))
    } catch {
      // exited meanwhile
    }
  }
  return children
}
