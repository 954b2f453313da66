import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { addDays, utcToday } from '../../src/domain/dates.js'
import { createStore } from '../../src/storage/db.js'
import { HEAVY_BRAND_DAYS } from '../../src/storage/heavy-reads.js'
import { buildTestApp } from '../helpers/app.js'
import { COMPILED_MAIN, ensureCompiled } from '../helpers/build.js'
import { bearer, loginToken } from '../helpers/partners.js'
import { awaitRoomInDay, exitOf } from '../helpers/processes.js'

/**
 * `serve` started outside the checkout, as operators start it (a service manager's working
 * directory, `npm link`, a container's WORKDIR): the CLI run by its path from an empty temporary
 * folder that holds the data, and heavy reports — which SQLite reads in worker threads — answered
 * 200 with the same content as the main thread computes. Both ways the CLI runs: the bin in a
 * checkout (the TypeScript sources through tsx, registered in code: its workers used to ask Node
 * for `--import tsx` from the working directory, fail to load, and take the process down with the
 * first heavy report), and the compiled CLI in dist/ (production).
 */

const BIN = fileURLToPath(new URL('../../bin/partner-analytics.js', import.meta.url))
const BRANDS = 12
const DAYS = 400

interface Run { code: number | null, stdout: string, stderr: string }

function environment (extra: Record<string, string> = {}): Record<string, string> {
  // Nothing that points back at the checkout: no NODE_OPTIONS, no npm_* variables. The bin runs
  // the sources even when dist/ is current (else it would run the compiled CLI, the other way).
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', PA_CLI_FROM_SOURCES: '1', ...extra }
}

async function run (cwd: string, cli: string[], args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [...cli, ...args], { cwd, env: environment() })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await exitOf(child, 120_000)
  if (code === undefined) {
    child.kill('SIGKILL')
    assert.fail(`${args.join(' ')}: not finished within 120 s`)
  }
  return { code, stdout, stderr }
}

interface Served { child: ChildProcessWithoutNullStreams, port: number, output: () => string }

/** `serve` on PORT=0 in `cwd`; resolves with the port it logs once it listens. */
async function serve (cwd: string, cli: string[]): Promise<Served> {
  const child = spawn(process.execPath, [...cli, 'serve'], { cwd, env: environment({ LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0' }) })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const deadline = Date.now() + 120_000
  for (;;) {
    const port = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)?.[1]
    if (port !== undefined) return { child, port: Number(port), output: () => output }
    if (child.exitCode !== null) assert.fail(`serve exited early (${child.exitCode}): ${output}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      assert.fail(`serve did not listen within 120 s: ${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const WAYS = [
  { name: 'the partner-analytics bin of a checkout (sources through tsx)', cli: [BIN] },
  { name: 'the compiled CLI (dist/cli/main.js)', cli: [COMPILED_MAIN] },
]

for (const way of WAYS) {
  describe(`serve started outside the checkout: ${way.name}`, () => {
    let cwd: string
    let keys: { clientKey: string, secretKey: string }

    before(async () => {
      if (way.cli[0] === COMPILED_MAIN) await ensureCompiled()
      cwd = mkdtempSync(join(tmpdir(), 'pa-elsewhere-'))
      // Outside the checkout: nothing between the folder and / holds this package's node_modules.
      assert.ok(!realpathSync(cwd).startsWith(realpathSync(fileURLToPath(new URL('../../', import.meta.url)))))
      // The embedded default database, in the operator's folder: ./data/partner-analytics.sqlite.
      for (const args of [['migrate'], ['demo', '--brands', String(BRANDS), '--days', String(DAYS)]]) {
        const result = await run(cwd, way.cli, args)
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
      }
      const user = await run(cwd, way.cli, ['users', 'create', '--name', 'ETL', '--brands', Array.from({ length: BRANDS }, (_, index) => index + 1).join(','), '--json'])
      assert.equal(user.code, 0, user.stderr)
      const created = JSON.parse(user.stdout) as { api_client_key: string, api_secret_key: string }
      keys = { clientKey: created.api_client_key, secretKey: created.api_secret_key }
    })
    after(() => { rmSync(cwd, { recursive: true, force: true }) })

    it('answers heavy monthly and agg reports 200 with the main thread\'s content, and keeps serving', async () => {
      // "Today" is the server's and this process's: not across a midnight.
      await awaitRoomInDay(120_000)
      const until = utcToday()
      const since = addDays(until, -(DAYS - 1))
      // The brand-days these reports cover: heavy, so SQLite reads them in worker threads.
      assert.ok(BRANDS * DAYS > HEAVY_BRAND_DAYS)
      const queries: Array<Record<string, string>> = [
        { type: 'agg', since, until },
        { type: 'monthly', since, until },
        { type: 'agg', since, until, split_by_platform: 'true' },
        { type: 'monthly', since, until, split_by_platform: 'true' },
      ]

      const served = await serve(cwd, way.cli)
      const base = `http://127.0.0.1:${served.port}`
      // The same reports from the same file, all on the main thread, in this process.
      const light = createStore({ kind: 'sqlite', file: join(cwd, 'data', 'partner-analytics.sqlite') }, { heavyReads: { brandDays: Number.MAX_SAFE_INTEGER } })
      const app = await buildTestApp(light, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      try {
        const login = await fetch(`${base}/auth/login`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: keys.clientKey, api_secret_key: keys.secretKey }),
        })
        assert.equal(login.status, 200, await login.clone().text())
        const { access_token: token } = await login.json() as { access_token: string }
        const expectedAuth = bearer(await loginToken(app, keys))

        for (const query of queries) {
          const response = await fetch(`${base}/analytics/?${new URLSearchParams(query).toString()}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) })
          const body = await response.text()
          assert.equal(response.status, 200, `${JSON.stringify(query)}: ${body}\n${served.output()}`)
          const expected = await app.inject({ method: 'GET', url: '/analytics/', query, headers: expectedAuth })
          assert.equal(expected.statusCode, 200, expected.body)
          assert.equal(body, expected.body, JSON.stringify(query))
          // Every brand's data is in it: per brand, or summed per platform.
          const { data } = JSON.parse(body) as { data: Array<{ brand_id?: number, platform?: string }> }
          if (query.split_by_platform === undefined) assert.equal(new Set(data.map((entry) => entry.brand_id)).size, BRANDS)
          else assert.ok(data.length > 1 && data.every((entry) => entry.platform !== undefined && entry.brand_id === undefined))
        }

        const health = await fetch(`${base}/health`)
        assert.equal(health.status, 200)
        assert.equal(served.child.exitCode, null, served.output())
        assert.doesNotMatch(served.output(), /"level":50/)
      } finally {
        await app.close()
        await light.destroy()
        served.child.kill('SIGTERM')
        assert.equal(await exitOf(served.child, 15_000), 0, served.output())
      }
    })
  })
}
