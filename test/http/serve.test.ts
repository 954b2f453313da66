import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { MIGRATIONS } from '../../src/storage/migrations/index.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { freePort } from '../helpers/processes.js'
import { createPartner } from '../helpers/partners.js'
import { createEmptyStore, type EmptyStore } from '../helpers/stores.js'

/**
 * The newcomer path and the process lifecycle, end to end in a child process: `serve` on the
 * default embedded database (no DATABASE_URL) in an empty folder seeds demo data, prints a working
 * key pair and curl line, reuses the data on a second start, and stops cleanly on SIGTERM.
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

interface Served {
  child: ChildProcessWithoutNullStreams
  stderr: () => string
  stdout: () => string
  exit: Promise<number | null>
}

/**
 * Starts `serve` in `cwd` and resolves once it logs that it listens (and, on the embedded demo
 * database, once it printed the demo banner).
 */
async function serve (cwd: string, port: number, extraEnv: Record<string, string> = {}, options: { banner?: boolean } = {}): Promise<Served> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'development', ...extraEnv }
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], { cwd, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const deadline = Date.now() + 120_000
  // The banner is printed once the server listens, after Fastify's own "Server listening" line.
  while (!stdout.includes('Server listening') || (options.banner !== false && !stderr.includes('export PA_API_SECRET_KEY='))) {
    if (child.exitCode !== null) assert.fail(`serve exited early (${child.exitCode}): ${stderr}`)
    if (Date.now() > deadline) assert.fail('serve did not start within 120 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, exit, stdout: () => stdout, stderr: () => stderr }
}

/** Resolves once `text()` matches; fails if serve exits first, or after 60 s (a bound, not a measure). */
async function outputShows (served: Served, text: () => string, pattern: RegExp, what: string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!pattern.test(text())) {
    if (served.child.exitCode !== null) assert.fail(`serve exited (${served.child.exitCode}) before ${what}: ${served.stderr()}`)
    if (Date.now() > deadline) assert.fail(`${what}: not within 60 s`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('serve on the embedded default database', () => {
  let cwd: string
  let port: number
  // What the first start left for the restart to find.
  let firstSecret: string
  let firstToken: string

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pa-serve-'))
    port = await freePort()
  })
  after(() => { rmSync(cwd, { recursive: true, force: true }) })

  it('seeds demo data on first start and prints a working key pair and curl line', async () => {
    const served = await serve(cwd, port)
    try {
      const stderr = served.stderr()
      assert.match(stderr, /Empty database: importing demo data \(8 brands, 400 days/)
      const key = /api_client_key: (pak_\w{24})/.exec(stderr)?.[1]
      const secret = /api_secret_key: (pas_\w{43})/.exec(stderr)?.[1]
      assert.ok(key !== undefined && secret !== undefined, stderr)
      assert.ok(stderr.includes(`curl -s -X POST http://127.0.0.1:${port}/auth/login -H 'Content-Type: application/json' -d '{"api_client_key":"${key}","api_secret_key":"${secret}"}'`))
      assert.ok(stderr.includes(`Or open the dashboard and sign in with the key pair above: http://127.0.0.1:${port}/dashboard/`))
      // A newcomer's local webhook receiver is refused by default: the banner says how to allow it.
      assert.ok(stderr.includes('for local development only, start with WEBHOOK_ALLOW_PRIVATE=1 to allow them.'), stderr)
      // The walkthrough's environment, ready to paste.
      assert.ok(stderr.includes(`\n  export PA_BASE_URL=http://127.0.0.1:${port}\n  export PA_API_CLIENT_KEY=${key}\n  export PA_API_SECRET_KEY=${secret}\n`), stderr)
      assert.equal(statSync(join(cwd, 'data', 'partner-analytics.sqlite')).isFile(), true)
      assert.equal(statSync(join(cwd, 'data', 'demo-credentials.json')).mode & 0o777, 0o600)
      // Without JWT_SECRET, one is generated and kept for the next start, readable by the owner only.
      assert.equal(statSync(join(cwd, 'data', 'jwt-secret')).mode & 0o777, 0o600)
      firstSecret = readFileSync(join(cwd, 'data', 'jwt-secret'), 'utf8')
      assert.match(firstSecret, /^[\w-]{64}\n$/)

      // The printed pair works: login, then /me lists 7 of the 8 demo brands.
      const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: key, api_secret_key: secret }),
      })
      assert.equal(login.status, 200)
      const { access_token: token } = await login.json() as { access_token: string }
      firstToken = token
      const me = await fetch(`http://127.0.0.1:${port}/me?limit=100`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(me.status, 200)
      const profile = await me.json() as { brands: Array<{ brand_id: number }> }
      assert.deepEqual(profile.brands.map((brand) => brand.brand_id), [1, 2, 3, 4, 5, 6, 7])
      // Logs are JSON lines carrying the request id, and never the secret.
      assert.ok(served.stdout().split('\n').filter(Boolean).every((line) => JSON.parse(line) !== null))
      assert.match(served.stdout(), /"request_id":/)
      assert.ok(!served.stdout().includes(secret))
    } finally {
      served.child.kill('SIGTERM')
      assert.equal(await served.exit, 0)
    }
  })

  it('reuses the data and the JWT secret on a second start: the same key pair, and tokens issued before still work', async () => {
    const served = await serve(cwd, port)
    try {
      assert.doesNotMatch(served.stderr(), /Empty database/)
      assert.match(served.stderr(), /api_client_key: pak_\w{24}/)
      assert.doesNotMatch(served.stderr(), /no longer works/)
      assert.equal(readFileSync(join(cwd, 'data', 'jwt-secret'), 'utf8'), firstSecret)
      assert.equal(statSync(join(cwd, 'data', 'jwt-secret')).mode & 0o777, 0o600)
      const me = await fetch(`http://127.0.0.1:${port}/me`, { headers: { authorization: `Bearer ${firstToken}` } })
      assert.equal(me.status, 200, await me.clone().text())
    } finally {
      served.child.kill('SIGTERM')
      assert.equal(await served.exit, 0)
    }
  })

  it('lets an in-flight request finish when SIGTERM arrives, then exits 0', async () => {
    const served = await serve(cwd, port)
    // A login whose body is still arriving when the signal comes: the request is in flight.
    const body = JSON.stringify({ api_client_key: 'not-a-key', api_secret_key: 'not-a-secret' })
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/auth/login',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    const response = new Promise<{ status: number, body: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => { text += chunk.toString() })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      request.on('error', reject)
    })
    // Events, not sleeps: the server has logged the request (its body is still arriving) before
    // the signal, and has logged the signal before the rest of the body is sent.
    const logged = served.stdout().length
    request.write(body.slice(0, 10))
    await outputShows(served, () => served.stdout().slice(logged), /"msg":"incoming request"/, 'the request logged as received')
    served.child.kill('SIGTERM')
    await outputShows(served, served.stdout, /shutting down: finishing in-flight requests/, 'the shutdown logged')
    request.end(body.slice(10))

    const answered = await response
    assert.equal(answered.status, 401)
    assert.equal(JSON.parse(answered.body).detail, 'Malformed API client key')
    assert.equal(await served.exit, 0)
    assert.match(served.stdout(), /shutting down: finishing in-flight requests/)
  })
})

describe('serve: where it listens, and when it cannot', () => {
  let cwd: string
  before(() => { cwd = mkdtempSync(join(tmpdir(), 'pa-serve-port-')) })
  after(() => { rmSync(cwd, { recursive: true, force: true }) })

  it('with PORT=0 prints the port it really got, once it listens', async () => {
    const served = await serve(cwd, 0)
    try {
      const port = Number(/export PA_BASE_URL=http:\/\/127\.0\.0\.1:(\d+)\n/.exec(served.stderr())?.[1])
      assert.ok(port > 0, served.stderr())
      assert.doesNotMatch(served.stderr(), /:0\//)
      assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200)
    } finally {
      served.child.kill('SIGTERM')
      assert.equal(await served.exit, 0)
    }
  })

  it('on a busy port prints one line naming HOST and PORT, no curl line, and exits 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'development' }
      const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], { cwd, env })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      clearTimeout(timer)
      assert.equal(code, 1)
      assert.equal(stdout, '')
      const lines = stderr.trimEnd().split('\n')
      assert.equal(lines.at(-1), `error: cannot listen on 127.0.0.1:${port} (HOST=127.0.0.1, PORT=${port}): the port is already in use (another server?); stop it or choose another PORT`)
      assert.doesNotMatch(stderr, /curl|export PA_|api_secret_key/)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  })
})

describe('serve on PostgreSQL', () => {
  let cwd: string
  let empty: EmptyStore
  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pa-serve-pg-'))
    empty = await createEmptyStore('postgres')
  })
  after(async () => {
    await empty.cleanup()
    rmSync(cwd, { recursive: true, force: true })
  })

  it('migrates an empty schema, imports no demo data, answers from PostgreSQL and stops on SIGTERM', async () => {
    const served = await serve(cwd, 0, { DATABASE_URL: empty.databaseUrl }, { banner: false })
    try {
      const port = Number(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(served.stdout())?.[1])
      assert.ok(port > 0, served.stdout())
      assert.doesNotMatch(served.stderr(), /Empty database|api_secret_key|export PA_/)
      const store = empty.open()
      const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db)
      assert.deepEqual(migrations.rows.map((row) => row.name), Object.keys(MIGRATIONS).sort())
      assert.deepEqual(await store.db.selectFrom('brands').select('brand_id').execute(), [])

      const health = await fetch(`http://127.0.0.1:${port}/health`)
      assert.equal(health.status, 200)
      assert.deepEqual(pick(await health.json() as Record<string, unknown>, ['status', 'database']), { status: 'ok', database: 'ok' })

      // Data written to the schema is what the server reads: the worked example's agg numbers.
      await insertDatasetAndReadModel(store, workedExampleDataset())
      const partner = await createPartner(store, { brandIds: [1, 2] })
      const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: partner.clientKey, api_secret_key: partner.secretKey }),
      })
      assert.equal(login.status, 200)
      const { access_token: token } = await login.json() as { access_token: string }
      const agg = await fetch(`http://127.0.0.1:${port}/analytics/?type=agg&since=2026-03-30&until=2026-04-02`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(agg.status, 200)
      const body = await agg.json() as { data: Array<Record<string, unknown>> }
      assert.deepEqual(body.data.map((entry) => pick(entry, ['brand_id', 'name', 'views', 'revenue'])), [
        { brand_id: 1, name: 'Acme', views: 5300, revenue: 4.24 },
        { brand_id: 2, name: 'Globex', views: 4800, revenue: null },
      ])
    } finally {
      served.child.kill('SIGTERM')
      assert.equal(await served.exit, 0)
    }
    assert.match(served.stdout(), /shutting down: finishing in-flight requests/)
  })
})

function pick (record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, record[field]]))
}
