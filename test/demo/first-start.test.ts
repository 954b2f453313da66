import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN } from '../../src/services/auth/credentials.js'
import { loopbackUrl, printDemoAccess } from '../../src/cli/demo-banner.js'
import { say, type CliIo } from '../../src/cli/io.js'
import { loadConfig } from '../../src/config/load.js'
import type { Config } from '../../src/config/schema.js'
import { demoCredentialsPath, prepareDemoDatabase, type DemoCredentials } from '../../src/services/demo/first-start.js'
import { rotateCredentials } from '../../src/services/users/users.service.js'
import type { Store } from '../../src/storage/db.js'
import { buildTestApp } from '../helpers/app.js'
import { bearer, loginToken } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

function capturingIo (): CliIo & { text: () => string } {
  let stderr = ''
  let stdout = ''
  return {
    stdout: { write: (chunk: string) => { stdout += chunk } },
    stderr: { write: (chunk: string) => { stderr += chunk }, isTTY: false },
    env: {},
    text: () => stdout + stderr,
  }
}

/** What `serve` does on the demo database: prepare it, then print the access banner. */
async function startDemo (store: Store, config: Config, io: CliIo): Promise<void> {
  const access = await prepareDemoDatabase(store, config, (line) => say(io, line))
  if (access !== undefined) printDemoAccess(io, loopbackUrl(config.host, config.port), access)
}

async function count (t: TestStore, table: 'brands' | 'accounts' | 'daily_metrics' | 'posts' | 'users'): Promise<number> {
  const row = await t.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: first start on an empty demo database`, () => {
    let t: TestStore
    let dataDir: string
    let config: Config
    let app: FastifyInstance
    let firstOutput: string
    let todayBefore: string

    before(async () => {
      todayBefore = new Date().toISOString().slice(0, 10)
      t = await createTestStore(dialect)
      dataDir = mkdtempSync(join(tmpdir(), 'pa-first-start-'))
      config = { ...loadConfig({ DATABASE_URL: t.databaseUrl, HOST: '0.0.0.0', PORT: '8123' }), dataDir }
      app = await buildTestApp(t.store)
      const io = capturingIo()
      await startDemo(t.store, config, io)
      firstOutput = io.text()
    })
    after(async () => {
      await app.close()
      await t.cleanup()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('imports the default demo data: 8 brands, 25 accounts, 400 days ending today', async () => {
      assert.equal(await count(t, 'brands'), 8)
      assert.equal(await count(t, 'accounts'), 25)
      const days = await t.store.db.selectFrom('daily_metrics')
        .select((eb) => [eb.fn.min('date').as('first'), eb.fn.max('date').as('last')]).executeTakeFirstOrThrow()
      // "today" as the import saw it: the day the test started, or the next one if it ran across midnight.
      const today = [todayBefore, new Date().toISOString().slice(0, 10)].includes(String(days.last)) ? String(days.last) : todayBefore
      const expectedFirst = new Date(Date.parse(`${today}T00:00:00Z`) - 399 * 86_400_000).toISOString().slice(0, 10)
      assert.deepEqual([String(days.first), String(days.last)], [expectedFirst, today])
      assert.ok(await count(t, 'posts') > 5000)
    })

    it('creates one demo partner with brands 1..7 and keeps its key pair in a 0600 file', async () => {
      assert.equal(await count(t, 'users'), 1)
      const file = demoCredentialsPath(config)
      assert.equal(file, join(dataDir, 'demo-credentials.json'))
      assert.equal(statSync(file).mode & 0o777, 0o600)
      const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials
      assert.match(saved.api_client_key, CLIENT_KEY_PATTERN)
      assert.match(saved.api_secret_key, SECRET_KEY_PATTERN)
      assert.deepEqual(saved.brand_ids, [1, 2, 3, 4, 5, 6, 7])
      assert.equal(existsSync(`${file}.partial`), false)

      // The saved pair really logs in, and sees brands 1..7 but not 8.
      const token = await loginToken(app, { clientKey: saved.api_client_key, secretKey: saved.api_secret_key })
      const me = await app.inject({ method: 'GET', url: '/me?limit=100', headers: bearer(token) })
      assert.equal(me.statusCode, 200)
      assert.deepEqual((me.json() as { brands: Array<{ brand_id: number }> }).brands.map((b) => b.brand_id), [1, 2, 3, 4, 5, 6, 7])
    })

    it('prints the key pair and a ready-to-paste login on loopback', () => {
      const saved = JSON.parse(readFileSync(demoCredentialsPath(config), 'utf8')) as DemoCredentials
      assert.match(firstOutput, /importing demo data \(8 brands, 400 days to \d{4}-\d{2}-\d{2}, seed 42\)/)
      assert.ok(firstOutput.includes(`api_client_key: ${saved.api_client_key}`))
      assert.ok(firstOutput.includes(`api_secret_key: ${saved.api_secret_key}`))
      const body = JSON.stringify({ api_client_key: saved.api_client_key, api_secret_key: saved.api_secret_key })
      assert.ok(firstOutput.includes(`curl -s -X POST http://127.0.0.1:8123/auth/login -H 'Content-Type: application/json' -d '${body}'`), firstOutput)
      assert.ok(firstOutput.includes("curl -s http://127.0.0.1:8123/me -H 'Authorization: Bearer ACCESS_TOKEN'"))
    })

    it('on a later start reuses the data (no import, no new user) and prints the same key pair', async () => {
      const stamp = await t.store.db.selectFrom('brands').select('updated_at').where('brand_id', '=', 1).executeTakeFirstOrThrow()
      const io = capturingIo()
      await startDemo(t.store, config, io)
      const output = io.text()
      assert.doesNotMatch(output, /importing/)
      assert.equal(await count(t, 'users'), 1)
      assert.equal(await count(t, 'brands'), 8)
      const again = await t.store.db.selectFrom('brands').select('updated_at').where('brand_id', '=', 1).executeTakeFirstOrThrow()
      assert.equal(again.updated_at, stamp.updated_at)
      const saved = JSON.parse(readFileSync(demoCredentialsPath(config), 'utf8')) as DemoCredentials
      assert.ok(output.includes(`api_secret_key: ${saved.api_secret_key}`))
      assert.match(output, /curl -s -X POST http:\/\/127\.0\.0\.1:8123\/auth\/login/)
      assert.doesNotMatch(output, /no longer works/)
    })

    it('warns when the saved pair was rotated away, and survives a damaged file', async () => {
      const file = demoCredentialsPath(config)
      const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials
      await rotateCredentials(t.store.db, saved.user_id)
      const io = capturingIo()
      await startDemo(t.store, config, io)
      assert.match(io.text(), /this key pair no longer works/)

      writeFileSync(file, '{not json')
      const damaged = capturingIo()
      await startDemo(t.store, config, damaged)
      assert.match(damaged.text(), /is not readable as JSON/)
      assert.equal(await count(t, 'users'), 1)
    })
  })
}

describe('first start on a database that already has brands but no demo key pair', () => {
  it('imports nothing and prints nothing', async () => {
    const t = await createTestStore('sqlite')
    const dataDir = mkdtempSync(join(tmpdir(), 'pa-first-start-'))
    try {
      await t.store.db.insertInto('brands').values({ brand_id: 50, brand_name: 'Existing', updated_at: '2026-01-01T00:00:00Z' }).execute()
      const io = capturingIo()
      await startDemo(t.store, { ...loadConfig({ DATABASE_URL: t.databaseUrl }), dataDir }, io)
      assert.equal(io.text(), '')
      assert.equal(await count(t, 'brands'), 1)
      assert.equal(existsSync(join(dataDir, 'demo-credentials.json')), false)
    } finally {
      await t.cleanup()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
