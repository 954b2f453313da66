import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'

/**
 * The newcomer path and the process lifecycle, end to end in a child process: `serve` on the
 * default embedded database (no DATABASE_URL) in an empty folder seeds demo data, prints a working
 * key pair and curl line, reuses the data on a second start, and stops cleanly on SIGTERM.
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

interface Served {
  child: ChildProcessWithoutNullStreams
  stderr: () => string
  stdout: () => string
  exit: Promise<number | null>
}

/** Starts `serve` in `cwd` and resolves once it logs that it listens. */
async function serve (cwd: string, port: number): Promise<Served> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'development' }
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], { cwd, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const deadline = Date.now() + 120_000
  // The banner is printed once the server listens, after Fastify's own "Server listening" line.
  while (!stdout.includes('Server listening') || !stderr.includes('export PA_API_SECRET_KEY=')) {
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
      // The walkthrough's environment, ready to paste.
      assert.ok(stderr.includes(`\n  export PA_BASE_URL=http://127.0.0.1:${port}\n  export PA_API_CLIENT_KEY=${key}\n  export PA_API_SECRET_KEY=${secret}\n`), stderr)
      assert.equal(statSync(join(cwd, 'data', 'partner-analytics.sqlite')).isFile(), true)
      assert.equal(statSync(join(cwd, 'data', 'demo-credentials.json')).mode & 0o777, 0o600)

      // The printed pair works: login, then /me lists 7 of the 8 demo brands.
      const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: key, api_secret_key: secret }),
      })
      assert.equal(login.status, 200)
      const { access_token: token } = await login.json() as { access_token: string }
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

  it('reuses the data on a second start and prints the same key pair', async () => {
    const served = await serve(cwd, port)
    try {
      assert.doesNotMatch(served.stderr(), /Empty database/)
      assert.match(served.stderr(), /api_client_key: pak_\w{24}/)
      assert.doesNotMatch(served.stderr(), /no longer works/)
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
