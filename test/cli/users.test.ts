import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN, digestSecret } from '../../src/services/auth/credentials.js'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

interface Created { user_id: string, name: string, brand_ids: number[], api_client_key: string, api_secret_key: string }
interface Listed { users: Array<{ user_id: string, name: string, disabled: boolean, api_client_key: string | null, brand_ids: number[] }> }

for (const dialect of DIALECTS) {
  describe(`operator CLI: users and credentials (${dialect})`, () => {
    let testStore: TestStore
    let env: Record<string, string>
    const cli = async (...argv: string[]) => await runCliCaptured(argv, env)

    before(async () => {
      testStore = await createTestStore(dialect)
      env = { DATABASE_URL: testStore.databaseUrl }
      const now = new Date().toISOString()
      await testStore.store.db.insertInto('brands').values([1, 2, 3].map((id) => ({ brand_id: id, brand_name: `Brand ${id}`, updated_at: now }))).execute()
    })
    after(async () => { await testStore.cleanup() })

    it('creates a user with brands and prints the key pair once, as JSON on stdout', async () => {
      const run = await cli('users', 'create', '--name', 'Acme Partner', '--brands', '2, 1,2', '--json')
      assert.equal(run.code, EXIT.OK, run.stderr)
      const created = run.json<Created>()
      assert.deepEqual(Object.keys(created).sort(), ['api_client_key', 'api_secret_key', 'brand_ids', 'name', 'user_id'])
      assert.match(created.user_id, /^usr_[0-9a-f]{24}$/)
      assert.equal(created.name, 'Acme Partner')
      assert.deepEqual(created.brand_ids, [1, 2])
      assert.match(created.api_client_key, CLIENT_KEY_PATTERN)
      assert.match(created.api_secret_key, SECRET_KEY_PATTERN)
      assert.equal(run.stderr, '')

      // Only the digest is stored.
      const stored = await testStore.store.db.selectFrom('credentials').selectAll().where('user_id', '=', created.user_id).execute()
      assert.equal(stored.length, 1)
      assert.equal(stored[0]?.secret_digest, digestSecret(created.api_secret_key))
      assert.ok(!JSON.stringify(stored).includes(created.api_secret_key))
    })

    it('prints human text on stderr and nothing on stdout without --json', async () => {
      const run = await cli('users', 'create', '--name', 'Human')
      assert.equal(run.code, EXIT.OK)
      assert.equal(run.stdout, '')
      assert.match(run.stderr, /^Created user usr_[0-9a-f]{24} \(Human\) with brands \[\]/)
      assert.match(run.stderr, /api_secret_key: pas_[0-9A-Za-z]{43}/)
    })

    it('lists, disables, enables, grants and revokes', async () => {
      const created = (await cli('users', 'create', '--name', 'Lifecycle', '--brands', '1', '--json')).json<Created>()

      const disabled = await cli('users', 'disable', created.user_id, '--json')
      assert.equal(disabled.code, EXIT.OK)
      assert.deepEqual(disabled.json(), { user_id: created.user_id, disabled: true })
      let listed = (await cli('users', 'list', '--json')).json<Listed>().users.find((u) => u.user_id === created.user_id)
      assert.ok(listed !== undefined)
      const { created_at: createdAt, ...rest } = listed as Listed['users'][number] & { created_at: string }
      assert.match(createdAt, /^\d{4}-\d{2}-\d{2}T/)
      assert.deepEqual(rest, { user_id: created.user_id, name: 'Lifecycle', disabled: true, api_client_key: created.api_client_key, brand_ids: [1] })

      assert.deepEqual((await cli('users', 'enable', created.user_id, '--json')).json(), { user_id: created.user_id, disabled: false })
      assert.deepEqual((await cli('users', 'grant', created.user_id, '--brands', '3,2', '--json')).json(), { user_id: created.user_id, brand_ids: [1, 2, 3] })
      assert.deepEqual((await cli('users', 'revoke', created.user_id, '--brands', '1', '--json')).json(), { user_id: created.user_id, brand_ids: [2, 3] })
      listed = (await cli('users', 'list', '--json')).json<Listed>().users.find((u) => u.user_id === created.user_id)
      assert.equal(listed?.disabled, false)
      assert.deepEqual(listed?.brand_ids, [2, 3])
    })

    it('rotates credentials: a new pair, the old one revoked', async () => {
      const created = (await cli('users', 'create', '--name', 'Rotator', '--json')).json<Created>()
      const run = await cli('credentials', 'rotate', created.user_id, '--json')
      assert.equal(run.code, EXIT.OK)
      const rotated = run.json<{ user_id: string, api_client_key: string, api_secret_key: string }>()
      assert.equal(rotated.user_id, created.user_id)
      assert.match(rotated.api_client_key, CLIENT_KEY_PATTERN)
      assert.notEqual(rotated.api_client_key, created.api_client_key)
      assert.notEqual(rotated.api_secret_key, created.api_secret_key)
      const rows = await testStore.store.db.selectFrom('credentials').select(['client_key', 'revoked_at']).where('user_id', '=', created.user_id).execute()
      const byKey = new Map(rows.map((row) => [row.client_key, row.revoked_at]))
      assert.notEqual(byKey.get(created.api_client_key), null)
      assert.equal(byKey.get(rotated.api_client_key), null)
    })

    it('fails with exit 1 and one clear line for an unknown user or brand', async () => {
      const unknownUser = await cli('users', 'disable', 'usr_nobody')
      assert.equal(unknownUser.code, EXIT.FAILURE)
      assert.equal(unknownUser.stderr, 'error: No user with id usr_nobody\n')
      const created = (await cli('users', 'create', '--name', 'Granted', '--json')).json<Created>()
      const unknownBrand = await cli('users', 'grant', created.user_id, '--brands', '2,99,98')
      assert.equal(unknownBrand.code, EXIT.FAILURE)
      assert.equal(unknownBrand.stderr, 'error: No brand with id 98, 99\n')
      const creating = await cli('users', 'create', '--name', 'X', '--brands', '42')
      assert.equal(creating.code, EXIT.FAILURE)
      const rotate = await cli('credentials', 'rotate', 'usr_nobody')
      assert.equal(rotate.code, EXIT.FAILURE)
    })

    it('refuses bad arguments with exit 2', async () => {
      for (const argv of [
        ['users', 'create'],
        ['users', 'create', '--name', 'X', '--brands', '1,a'],
        ['users', 'grant', 'usr_x', '--brands', '0'],
        ['users', 'grant', 'usr_x'],
        ['users', 'frobnicate'],
        ['nonsense'],
      ]) {
        const run = await cli(...argv)
        assert.equal(run.code, EXIT.USAGE, argv.join(' '))
        assert.match(run.stderr, /error:/i, argv.join(' '))
      }
      assert.equal((await cli('users', 'create', '--name', '   ')).code, EXIT.USAGE)
    })
  })
}

describe('operator CLI: help and configuration errors', () => {
  it('prints --help for every command with exit 0', async () => {
    for (const argv of [[], ['users'], ['users', 'create'], ['users', 'list'], ['users', 'disable'], ['users', 'enable'],
      ['users', 'grant'], ['users', 'revoke'], ['credentials', 'rotate'], ['migrate'], ['serve']]) {
      const run = await runCliCaptured([...argv, '--help'], {})
      assert.equal(run.code, EXIT.OK, argv.join(' '))
      assert.match(run.stderr, /Usage: partner-analytics/, argv.join(' '))
    }
  })

  it('stops with one line naming a bad variable and exit 78', async () => {
    const run = await runCliCaptured(['migrate'], { DATABASE_URL: 'mysql://nope' })
    assert.equal(run.code, EXIT.CONFIG)
    assert.equal(run.stderr, 'configuration error: DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (got "mysql://nope")\n')
    const port = await runCliCaptured(['users', 'list'], { PORT: 'eighty' })
    assert.equal(port.code, EXIT.CONFIG)
    assert.equal(port.stderr, 'configuration error: PORT must be an integer from 0 to 65535 (got "eighty")\n')
  })
})
