/**
 * `npm run bench:heavy -- --database-url URL [options]`
 *
 * Reports at scale, and whether heavy reports stall light ones (docs/storage.md "Heavy reads"),
 * against the real server in a process of its own over a store that is already imported, e.g.
 *
 *   npm run build
 *   npm run bench:generate -- --brands 1000 --accounts-per-brand 10 --days 730 --out /tmp/pa-m/m.ndjson
 *   DATABASE_URL=sqlite:/tmp/pa-m/db.sqlite node dist/cli/main.js import /tmp/pa-m/m.ndjson
 *   npm run bench:heavy -- --database-url sqlite:/tmp/pa-m/db.sqlite --until 2026-10-31
 *
 * It needs `npm run build` first (it runs dist/cli/main.js, as production does; it says so and
 * exits 2 when dist/ is missing). Then:
 *
 * 1. Unless --client-key and --secret-key are given, creates a partner granted brands 1..--brands
 *    with `node dist/cli/main.js users create --name … --brands 1,…,N --json` (one new user in
 *    the store per run).
 * 2. Spawns `node dist/cli/main.js serve` with DATABASE_URL=--database-url, HOST=127.0.0.1,
 *    PORT=--port (default a free one), a random JWT_SECRET, NODE_ENV=production, rate limits off
 *    (RATE_LIMIT_PER_MINUTE=0, RATE_LIMIT_PER_HOUR=0) and LOG_LEVEL=--log-level (default warn;
 *    its log lines are passed on to stderr, prefixed `[server]`), waits for GET /health, logs in.
 *    This process is the load generator; the server never shares its event loop.
 * 3. Part a, "reports at scale" (--part a or both): one request at a time over keep-alive HTTP,
 *    --warmup (3) unmeasured, then --runs (30) measured, of each of: agg and monthly of the year
 *    ending --until (365 days) over brands 1..--brands; the daily page (first page) of the 7 days
 *    ending --until for brand 1; agg of the 365 days for brand 1. Prints p50/p90/max ms.
 * 4. Part b, "heavy never stalls light" (--part b or both): first --baseline seconds (5) of the
 *    light loops alone, then --duration seconds (20, at most 120) of both:
 *    - heavy: --connections (32) loops, each on its own keep-alive connection, sending 100-brand
 *      year reports back to back, agg and monthly in turn, each window 365 days ending 0..27 days
 *      before --until (chosen at random, so both stores see varying windows). A 503 is counted
 *      and the loop waits its Retry-After (1 s), as the client library does; any other status
 *      is an error.
 *    - light: --light-loops (4) loops, each starting a daily page (7 days of one random brand of
 *      1..--brands, ending on a random day of the --light-span (365) days up to --until) at most
 *      every --light-interval ms (50), i.e. a steady pace of up to 80 requests/s.
 *    Prints heavy req/s (200s completed within the window ÷ seconds), 200/503/error counts and
 *    heavy p50/p99, and the light loops' count, p50/p99/max ms and errors, for both phases.
 *    Latency is measured from sending the request to the last byte of the answer (bodies are
 *    read, not parsed), with no Accept-Encoding (no compression), as autocannon does.
 *
 * At the end the server is stopped (SIGTERM) and its peak RSS (VmHWM) is printed with the
 * number of warn/error lines it logged. Every request has a 60 s timeout; the whole run is
 * bounded by the options above (a few minutes at most).
 *
 * Options: --database-url URL (required: sqlite:/abs/path or postgres://…), --until YYYY-MM-DD
 * (default 2026-10-31, the last day of the data), --brands N (default 100, at most 100),
 * --part a|b|both, --runs N, --warmup N, --duration S, --baseline S, --connections C,
 * --light-loops L, --light-interval MS, --light-span DAYS, --port P, --log-level LEVEL,
 * --client-key K --secret-key S, --label TEXT (printed in the headings).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { loadavg } from 'node:os'
import { createInterface } from 'node:readline'
import { text } from 'node:stream/consumers'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { addDays, isCalendarDate } from '../src/domain/dates.js'
import { Random } from '../src/services/demo/random.js'
import { positiveOption } from './support.js'
import { freePort } from '../test/helpers/processes.js'

const USAGE = 'usage: npm run bench:heavy -- --database-url URL [--until YYYY-MM-DD] [--brands N] [--part a|b|both] [--runs N] [--warmup N] [--duration S] [--baseline S] [--connections C] [--light-loops L] [--light-interval MS] [--light-span DAYS] [--port P] [--log-level LEVEL] [--client-key K --secret-key S] [--label TEXT]'

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    until: { type: 'string', default: '2026-10-31' },
    brands: { type: 'string', default: '100' },
    part: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '20' },
    baseline: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    'light-loops': { type: 'string', default: '4' },
    'light-interval': { type: 'string', default: '50' },
    'light-span': { type: 'string', default: '365' },
    port: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    'client-key': { type: 'string' },
    'secret-key': { type: 'string' },
    label: { type: 'string' },
  },
})

function fail (message: string): never {
  console.error(`${message}\n${USAGE}`)
  process.exit(2)
}

const DATABASE_URL = args['database-url'] ?? fail('--database-url is required')
const UNTIL = args.until
if (!isCalendarDate(UNTIL)) fail(`--until must be a date YYYY-MM-DD (got "${UNTIL}")`)
const BRANDS = positiveOption('brands', args.brands)
if (BRANDS > 100) fail('--brands must be at most 100 (a request names at most 100 brand ids)')
const PART = args.part
if (PART !== 'a' && PART !== 'b' && PART !== 'both') fail('--part must be a, b or both')
const RUNS = positiveOption('runs', args.runs)
const WARMUP = Number(args.warmup)
if (!Number.isSafeInteger(WARMUP) || WARMUP < 0) fail('--warmup must be an integer ≥ 0')
const DURATION = positiveOption('duration', args.duration)
if (DURATION > 120) fail('--duration must be at most 120 seconds')
const BASELINE = Number(args.baseline)
if (!Number.isSafeInteger(BASELINE) || BASELINE < 0 || BASELINE > 60) fail('--baseline must be an integer from 0 to 60 seconds')
const CONNECTIONS = positiveOption('connections', args.connections)
if (CONNECTIONS > 256) fail('--connections must be at most 256')
const LIGHT_LOOPS = positiveOption('light-loops', args['light-loops'])
const LIGHT_INTERVAL = positiveOption('light-interval', args['light-interval'])
const LIGHT_SPAN = positiveOption('light-span', args['light-span'])
const PORT = args.port === undefined ? undefined : positiveOption('port', args.port)
if ((args['client-key'] === undefined) !== (args['secret-key'] === undefined)) fail('--client-key and --secret-key go together')

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
const REQUEST_TIMEOUT_MS = 60_000
const ALL_BRANDS = Array.from({ length: BRANDS }, (_, i) => i + 1).join(',')
const YEAR_SINCE = addDays(UNTIL, -364)

// ---------------------------------------------------------------- HTTP

interface Answer { status: number, ms: number, bytes: number, retryAfter: number | undefined, body: string | undefined }

/** GET over `agent`; the body is read to its end (kept only when the status is not 200). */
async function get (agent: Agent, base: URL, path: string, token: string): Promise<Answer> {
  const started = performance.now()
  return await new Promise<Answer>((resolve, reject) => {
    const req = request({ agent, host: base.hostname, port: base.port, path, method: 'GET', headers: { authorization: `Bearer ${token}` }, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let bytes = 0
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (res.statusCode !== 200 && bytes < 4096) chunks.push(chunk)
      })
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'] === undefined ? undefined : Number(res.headers['retry-after'])
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes, retryAfter, body: res.statusCode === 200 ? undefined : Buffer.concat(chunks).toString('utf8').slice(0, 300) })
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms: ${path}`)))
    req.on('error', reject)
    req.end()
  })
}

function analyticsPath (type: 'daily' | 'monthly' | 'agg', brands: string, since: string, until: string): string {
  return `/analytics/?type=${type}&brand_id=${brands}&since=${since}&until=${until}`
}

/** Nearest-rank percentile of ascending `sorted`. */
function percentile (sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}

function ms (value: number): string {
  return Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(1) : String(Math.round(value))
}

// ---------------------------------------------------------------- server and partner

async function cli (argv: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...argv], { cwd: ROOT, env: { ...process.env, DATABASE_URL }, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const [stdout, stderr] = await Promise.all([text(child.stdout), text(child.stderr)])
  const [code] = await exited
  if (code !== 0) throw new Error(`partner-analytics ${argv.slice(0, 2).join(' ')} exited ${code}: ${stderr.trim()}`)
  return stdout
}

async function partnerKeys (): Promise<{ api_client_key: string, api_secret_key: string }> {
  if (args['client-key'] !== undefined && args['secret-key'] !== undefined) return { api_client_key: args['client-key'], api_secret_key: args['secret-key'] }
  const name = `bench-heavy ${new Date().toISOString()}`
  return JSON.parse(await cli(['users', 'create', '--name', name, '--brands', ALL_BRANDS, '--json'])) as { api_client_key: string, api_secret_key: string }
}

interface Server { child: ChildProcess, base: URL, logged: { warn: number, error: number } }

async function startServer (): Promise<Server> {
  const port = PORT ?? await freePort()
  const env = {
    ...process.env,
    DATABASE_URL,
    HOST: '127.0.0.1',
    PORT: String(port),
    JWT_SECRET: randomBytes(32).toString('hex'),
    NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_PER_HOUR: '0',
    LOG_LEVEL: args['log-level'],
  }
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const logged = { warn: 0, error: 0 }
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      const level = /"level":(\d+)/.exec(line)?.[1]
      if (level !== undefined && Number(level) >= 50) logged.error++
      else if (level !== undefined && Number(level) >= 40) logged.warn++
      process.stderr.write(`[server] ${line}\n`)
    })
  }
  const base = new URL(`http://127.0.0.1:${port}`)
  let exited: string | undefined
  child.on('exit', (code, signal) => { exited = `exited ${code ?? signal}` })
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`the server ${exited} before answering /health`)
    try {
      const health = await fetch(new URL('/health', base))
      if (health.status === 200) return { child, base, logged }
    } catch { /* not listening yet */ }
    await sleep(250)
  }
  child.kill('SIGTERM')
  throw new Error('the server did not answer GET /health within 60 s')
}

async function stopServer (server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** The server's peak resident memory so far (Linux), MB. */
function peakRssMb (pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid ?? 0}/status`, 'utf8'))
    return match?.[1] === undefined ? undefined : Math.round(Number(match[1]) / 1024)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------- part a

interface Kind { name: string, path: string }

async function partA (base: URL, token: string): Promise<void> {
  const kinds: Kind[] = [
    { name: `agg year, ${BRANDS} brands`, path: analyticsPath('agg', ALL_BRANDS, YEAR_SINCE, UNTIL) },
    { name: `monthly year, ${BRANDS} brands`, path: analyticsPath('monthly', ALL_BRANDS, YEAR_SINCE, UNTIL) },
    { name: 'daily page 7 days, brand 1', path: analyticsPath('daily', '1', addDays(UNTIL, -6), UNTIL) },
    { name: 'agg 365 days, brand 1', path: analyticsPath('agg', '1', YEAR_SINCE, UNTIL) },
  ]
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const rows: string[] = []
  for (const kind of kinds) {
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const answer = await get(agent, base, kind.path, token)
      if (answer.status !== 200) throw new Error(`${kind.name}: ${answer.status} ${answer.body ?? ''}`)
      if (i >= WARMUP) times.push(answer.ms)
      bytes = answer.bytes
    }
    times.sort((a, b) => a - b)
    rows.push(`| ${kind.name} | ${times.length} | ${ms(percentile(times, 0.5))} | ${ms(percentile(times, 0.9))} | ${ms(times[times.length - 1] ?? Number.NaN)} | ${Math.round(bytes / 1024)} |`)
  }
  agent.destroy()
  console.log(`\n### Reports at scale${args.label === undefined ? '' : ` (${args.label})`}\n`)
  console.log(`store=${redact(DATABASE_URL)} until=${UNTIL} warmup=${WARMUP} runs=${RUNS} sequential, keep-alive; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`)
  console.log('| request | n | p50 ms | p90 ms | max ms | body KiB |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const row of rows) console.log(row)
}

// ---------------------------------------------------------------- part b

interface Phase {
  name: string
  seconds: number
  heavy: { ok: number, unavailable: number, errors: number, times: number[] }
  light: { times: number[], errors: number }
  firstError: string | undefined
}

async function runPhase (name: string, base: URL, token: string, seconds: number, heavyConnections: number): Promise<Phase> {
  const phase: Phase = { name, seconds, heavy: { ok: 0, unavailable: 0, errors: 0, times: [] }, light: { times: [], errors: 0 }, firstError: undefined }
  const started = performance.now()
  const deadline = started + seconds * 1000
  const note = (message: string): void => { phase.firstError ??= message }

  const heavyAgent = new Agent({ keepAlive: true, maxSockets: Math.max(1, heavyConnections) })
  const heavyLoop = async (loop: number): Promise<void> => {
    const rng = new Random(`heavy:${loop}`)
    for (let i = 0; performance.now() < deadline; i++) {
      const until = addDays(UNTIL, -rng.int(0, 27))
      const type = (i + loop) % 2 === 0 ? 'agg' : 'monthly'
      try {
        const answer = await get(heavyAgent, base, analyticsPath(type, ALL_BRANDS, addDays(until, -364), until), token)
        if (performance.now() > deadline) break
        if (answer.status === 200) {
          phase.heavy.ok++
          phase.heavy.times.push(answer.ms)
        } else if (answer.status === 503) {
          phase.heavy.unavailable++
          await sleep(Math.min((answer.retryAfter ?? 1) * 1000, Math.max(0, deadline - performance.now())))
        } else {
          phase.heavy.errors++
          note(`heavy ${type}: ${answer.status} ${answer.body ?? ''}`)
        }
      } catch (error) {
        phase.heavy.errors++
        note(`heavy ${type}: ${(error as Error).message}`)
      }
    }
  }

  const lightAgent = new Agent({ keepAlive: true, maxSockets: LIGHT_LOOPS })
  const lightLoop = async (loop: number): Promise<void> => {
    const rng = new Random(`light:${loop}`)
    while (performance.now() < deadline) {
      const sent = performance.now()
      const until = addDays(UNTIL, -rng.int(0, LIGHT_SPAN - 7))
      const path = analyticsPath('daily', String(rng.int(1, BRANDS)), addDays(until, -6), until)
      try {
        const answer = await get(lightAgent, base, path, token)
        if (answer.status === 200) phase.light.times.push(answer.ms)
        else {
          phase.light.errors++
          note(`light daily: ${answer.status} ${answer.body ?? ''}`)
        }
      } catch (error) {
        phase.light.errors++
        note(`light daily: ${(error as Error).message}`)
      }
      const wait = LIGHT_INTERVAL - (performance.now() - sent)
      if (wait > 0) await sleep(Math.min(wait, Math.max(0, deadline - performance.now())))
    }
  }

  await Promise.all([
    ...Array.from({ length: heavyConnections }, async (_, i) => { await heavyLoop(i) }),
    ...Array.from({ length: LIGHT_LOOPS }, async (_, i) => { await lightLoop(i) }),
  ])
  heavyAgent.destroy()
  lightAgent.destroy()
  phase.heavy.times.sort((a, b) => a - b)
  phase.light.times.sort((a, b) => a - b)
  return phase
}

async function partB (base: URL, token: string): Promise<void> {
  const phases: Phase[] = []
  if (BASELINE > 0) phases.push(await runPhase(`light alone, ${BASELINE} s`, base, token, BASELINE, 0))
  phases.push(await runPhase(`light + heavy (C=${CONNECTIONS}), ${DURATION} s`, base, token, DURATION, CONNECTIONS))
  console.log(`\n### Heavy never stalls light${args.label === undefined ? '' : ` (${args.label})`}\n`)
  console.log(`store=${redact(DATABASE_URL)} until=${UNTIL} heavy: ${CONNECTIONS} connections of ${BRANDS}-brand year reports (agg/monthly in turn); light: ${LIGHT_LOOPS} loops of daily 7-day pages, one every ${LIGHT_INTERVAL} ms at most; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`)
  console.log('| phase | heavy req/s | heavy 200 | heavy 503 | heavy errors | heavy p50 ms | heavy p99 ms | light n | light p50 ms | light p99 ms | light max ms | light errors |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const phase of phases) {
    const { heavy, light } = phase
    const heavyCells = heavy.ok + heavy.unavailable + heavy.errors === 0
      ? '– | – | – | – | – | –'
      : `${(heavy.ok / phase.seconds).toFixed(1)} | ${heavy.ok} | ${heavy.unavailable} | ${heavy.errors} | ${ms(percentile(heavy.times, 0.5))} | ${ms(percentile(heavy.times, 0.99))}`
    console.log(`| ${phase.name} | ${heavyCells} | ${light.times.length} | ${ms(percentile(light.times, 0.5))} | ${ms(percentile(light.times, 0.99))} | ${ms(light.times[light.times.length - 1] ?? Number.NaN)} | ${light.errors} |`)
  }
  for (const phase of phases) if (phase.firstError !== undefined) console.log(`\nfirst error (${phase.name}): ${phase.firstError}`)
}

function redact (url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}

// ---------------------------------------------------------------- main

async function main (): Promise<void> {
  if (!existsSync(CLI)) {
    console.error(`${CLI} is missing: run \`npm run build\` first`)
    process.exit(2)
  }
  const keys = await partnerKeys()
  const server = await startServer()
  const stop = (): void => {
    server.child.kill('SIGTERM')
    process.exit(130)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const login = await fetch(new URL('/auth/login', server.base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(keys) })
    if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`)
    const { access_token: token } = await login.json() as { access_token: string }
    console.error(`server ${server.base.href} (pid ${server.child.pid ?? '?'}) on ${redact(DATABASE_URL)}; node ${process.version}`)
    if (PART !== 'b') await partA(server.base, token)
    if (PART !== 'a') await partB(server.base, token)
    const rss = peakRssMb(server.child.pid)
    console.log(`\nserver: peak RSS ${rss === undefined ? 'unknown' : `${rss} MB`}, ${server.logged.warn} warn and ${server.logged.error} error log lines`)
  } finally {
    await stopServer(server)
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
