import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { EXIT } from '../../src/cli/io.js'
import { withoutPassword } from '../../src/storage/open-store.js'
import { runCliCaptured } from '../helpers/cli.js'

/**
 * Only `migrate`, `serve` and `demo` may create a store: every other command refuses a missing
 * SQLite file with one line naming its path, and nothing appears on disk. An unreachable
 * PostgreSQL is named by its DATABASE_URL, password hidden.
 */
describe('operator CLI: a missing or unreachable store', () => {
  let dir: string
  before(() => { dir = mkdtempSync(join(tmpdir(), 'pa-store-check-')) })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('refuses a missing SQLite file on every command that must not create one, creating nothing', async () => {
    const file = join(dir, 'typo', 'x.sqlite')
    const env = { DATABASE_URL: `sqlite:${file}` }
    const line = `no database at ${file} (DATABASE_URL); run \`partner-analytics migrate\` first to create it, or fix DATABASE_URL`
    for (const argv of [['users', 'list'], ['users', 'create', '--name', 'X'], ['brands', 'list'], ['accounts', 'list'],
      ['credentials', 'list', 'usr_x'], ['usage', 'usr_x']]) {
      const run = await runCliCaptured(argv, env)
      assert.equal(run.code, EXIT.FAILURE, argv.join(' '))
      assert.equal(run.stderr, `error: ${line}\n`, argv.join(' '))
      assert.equal(run.stdout, '')
      const json = await runCliCaptured([...argv, '--json'], env)
      assert.equal(json.code, EXIT.FAILURE)
      assert.deepEqual(json.json(), { error: { code: 'DATABASE_MISSING', message: line, exit_code: 1 } })
    }
    assert.equal(existsSync(join(dir, 'typo')), false)
  })

  it('migrate creates the store (and its folder); other commands then work on it', async () => {
    const file = join(dir, 'new', 'pa.sqlite')
    const env = { DATABASE_URL: `sqlite:${file}` }
    const migrated = await runCliCaptured(['migrate', '--json'], env)
    assert.equal(migrated.code, EXIT.OK, migrated.stderr)
    assert.equal(existsSync(file), true)
    const listed = await runCliCaptured(['users', 'list', '--json'], env)
    assert.equal(listed.code, EXIT.OK)
    assert.deepEqual(listed.json(), { users: [] })
  })

  it('names an unreachable PostgreSQL by its DATABASE_URL, password hidden, and the cause', async () => {
    const env = { DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/pa' }
    const line = 'cannot reach PostgreSQL at DATABASE_URL=postgres://app:***@127.0.0.1:1/pa: connect ECONNREFUSED 127.0.0.1:1'
    for (const argv of [['users', 'list'], ['migrate'], ['brands', 'list'], ['serve'], ['import', 'package.json']]) {
      const run = await runCliCaptured(argv, env)
      assert.equal(run.code, EXIT.FAILURE, argv.join(' '))
      assert.equal(run.stderr, `error: ${line}\n`, argv.join(' '))
    }
    const json = await runCliCaptured(['users', 'list', '--json'], env)
    assert.deepEqual(json.json(), { error: { code: 'DATABASE_UNREACHABLE', message: line, exit_code: 1 } })
    assert.ok(!json.stdout.includes('hunter2'))
  })

  it('hides only the password of a URL', () => {
    assert.equal(withoutPassword('postgres://app:s3cret@db:5432/pa?sslmode=require'), 'postgres://app:***@db:5432/pa?sslmode=require')
    assert.equal(withoutPassword('postgres://app@db/pa'), 'postgres://app@db/pa')
  })
})
