import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { startServer } from '../../src/cli/commands/serve.js'
import { EXIT } from '../../src/cli/io.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { exitOf } from '../helpers/processes.js'
import { createEmptyStore, type EmptyStore } from '../helpers/stores.js'

/**
 * Which store `serve` answers from, said at start (README.md "Configuration"): the SQLite file's
 * absolute path, or the PostgreSQL URL with its password masked; and under NODE_ENV=production
 * the relative default refused while it does not exist (exit 78, one line naming DATABASE_URL,
 * nothing created), an existing one or an explicit store served. The CLI run as an operator runs
 * it: its bin, from a folder of its own.
 */

const BIN = fileURLToPath(new URL('../../bin/partner-analytics.js', import.meta.url))
const REFUSAL = 'configuration error: DATABASE_URL must be set when NODE_ENV=production: serve does not fall back to sqlite:./data/partner-analytics.sqlite ' +
  '(here CWD/data/partner-analytics.sqlite, a new database with demo data); set DATABASE_URL to the store to serve, ' +
  'e.g. sqlite:/var/lib/partner-analytics/partner-analytics.sqlite or postgres://user@host:5432/db'

interface Started { code: number | null | undefined, stderr: string }

/**
 * `serve` in `cwd` with only `env` (and PATH, HOME); returns once it exits, or — when it prints
 * `until` — stops it (SIGTERM) and returns what it printed by then.
 */
async function serveIn (cwd: string, env: Record<string, string>, until?: RegExp): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', ...env } })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    if (until?.test(stderr) === true) child.kill('SIGTERM')
  })
  child.stdout.resume()
  const code = await exitOf(child, 120_000)
  if (code === undefined) {
    child.kill('SIGKILL')
    assert.fail(`serve neither exited nor printed ${String(until)} within 120 s: ${stderr}`)
  }
  return { code, stderr }
}

describe('serve: the store it answers from', () => {
  let cwd: string
  let empty: EmptyStore
  before(async () => {
    cwd = realpathSync(mkdtempSync(join(tmpdir(), 'pa-serve-store-')))
    empty = await createEmptyStore('postgres')
  })
  after(async () => {
    await empty.cleanup()
    rmSync(cwd, { recursive: true, force: true })
  })

  it('under NODE_ENV=production refuses the relative default, naming DATABASE_URL, and creates nothing', async () => {
    const run = await serveIn(cwd, { NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET })
    assert.equal(run.code, EXIT.CONFIG, run.stderr)
    assert.equal(run.stderr, REFUSAL.replace('CWD', cwd) + '\n')
    assert.deepEqual(readdirSync(cwd), [])
  })

  it('under NODE_ENV=production serves the default once it exists (an operator\'s migrate in that folder), saying its absolute path', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'pa-serve-default-')))
    try {
      const migrate = spawn(process.execPath, [BIN, 'migrate'], { cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET } })
      migrate.stdout.resume()
      migrate.stderr.resume()
      assert.equal(await exitOf(migrate, 120_000), EXIT.OK)
      const run = await serveIn(folder, { NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET }, /Store: .*\n/)
      assert.equal(run.stderr.split('\n')[0], `Store: SQLite ${folder}/data/partner-analytics.sqlite (DATABASE_URL is not set: the default store of the working directory)`)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('under NODE_ENV=production serves a store given explicitly, relative or not, and says its absolute path', async () => {
    const run = await serveIn(cwd, { NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: 'sqlite:./store/pa.sqlite' }, /Store: .*\n/)
    assert.equal(run.stderr.split('\n')[0], `Store: SQLite ${cwd}/store/pa.sqlite`)
    assert.ok(existsSync(join(cwd, 'store', 'pa.sqlite')))
    assert.equal(existsSync(join(cwd, 'data')), false)
  })

  it('outside production says the default\'s absolute path before making it the demo database', async () => {
    const run = await serveIn(cwd, { NODE_ENV: 'development' }, /Store: .*\n/)
    assert.equal(run.stderr.split('\n')[0], `Store: SQLite ${cwd}/data/partner-analytics.sqlite (DATABASE_URL is not set: the embedded demo database)`)
  })

  it('says a PostgreSQL store by its URL with the password masked', async () => {
    // The test server trusts 127.0.0.1: any password is accepted, and none may be printed.
    const url = new URL(empty.databaseUrl)
    url.password = 'pa-s3cret'
    let stderr = ''
    const server = await startServer({
      stdout: { write: () => true, isTTY: false },
      stderr: { write: (text: string) => { stderr += text; return true }, isTTY: false },
      env: { DATABASE_URL: url.toString(), PORT: '0', LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET },
    })
    await server.close()
    url.password = '***'
    assert.equal(stderr, `Store: PostgreSQL ${url.toString()}\n`)
    assert.doesNotMatch(stderr, /pa-s3cret/)
  })
})
