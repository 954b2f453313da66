import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN } from '../../src/services/auth/credentials.js'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

interface Created { user_id: string, name: string, brand_ids: number[], api_client_key: string, api_secret_key: string }
interface Listed { users: Array<{ user_id: string, name: string, disabled: boolean, api_client_key: string | null, api_client_keys: string[], brand_ids: number[] }> }
interface Rotated { user_id: string, api_client_key: string, api_secret_key: string, replaced: Array<{ api_client_key: string, revoked_at: string }> }
interface CredentialList { user_id: string, credentials: Array<{ api_client_key: string, created_at: string, revoked_at: string | null, live: boolean }> }

/** The one timestamp format of the CLI and the API: UTC, whole seconds. */
const WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

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

      // Only the digest is stored: SHA-256 of the secret's UTF-8 bytes, hex (docs/authentication.md).
      const stored = await testStore.store.db.selectFrom('credentials').selectAll().where('user_id', '=', created.user_id).execute()
      assert.equal(stored.length, 1)
      assert.equal(stored[0]?.secret_digest, createHash('sha256').update(Buffer.from(created.api_secret_key, 'utf8')).digest('hex'))
      assert.match(stored[0]?.secret_digest ?? '', /^[0-9a-f]{64}$/)
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
      assert.match(createdAt, WHOLE_SECONDS)
      assert.deepEqual(rest, { user_id: created.user_id, name: 'Lifecycle', disabled: true, api_client_key: created.api_client_key, api_client_keys: [created.api_client_key], brand_ids: [1] })

      assert.deepEqual((await cli('users', 'enable', created.user_id, '--json')).json(), { user_id: created.user_id, disabled: false })
      assert.deepEqual((await cli('users', 'grant', created.user_id, '--brands', '3,2', '--json')).json(), { user_id: created.user_id, brand_ids: [1, 2, 3] })
      assert.deepEqual((await cli('users', 'revoke', created.user_id, '--brands', '1', '--json')).json(), { user_id: created.user_id, brand_ids: [2, 3] })
      listed = (await cli('users', 'list', '--json')).json<Listed>().users.find((u) => u.user_id === created.user_id)
      assert.equal(listed?.disabled, false)
      assert.deepEqual(listed?.brand_ids, [2, 3])
    })

    it('grant and revoke tell the user through its change feed: one access event per brand that changed, none for a brand already so', async () => {
      const created = (await cli('users', 'create', '--name', 'Feed', '--brands', '1', '--json')).json<Created>()
      const events = async () => (await testStore.store.db.selectFrom('change_events').select(['type', 'brand_id', 'user_id', 'sync_id', 'data'])
        .where('user_id', '=', created.user_id).orderBy('event_id').execute()).map((row) => [row.type, Number(row.brand_id), row.sync_id, row.data])
      assert.deepEqual(await events(), [], 'creating a user emits nothing')
      assert.equal((await cli('users', 'grant', created.user_id, '--brands', '1,2,3')).code, EXIT.OK)
      assert.equal((await cli('users', 'grant', created.user_id, '--brands', '2')).code, EXIT.OK)
      assert.equal((await cli('users', 'revoke', created.user_id, '--brands', '3,3')).code, EXIT.OK)
      assert.equal((await cli('users', 'revoke', created.user_id, '--brands', '3')).code, EXIT.OK)
      assert.deepEqual(await events(), [
        ['access.granted', 2, null, '{"brand_id":2}'],
        ['access.granted', 3, null, '{"brand_id":3}'],
        ['access.revoked', 3, null, '{"brand_id":3}'],
      ])
      assert.equal((await cli('users', 'delete', created.user_id, '--yes')).code, EXIT.OK)
    })

    it('rotates credentials: a new pair, the old one revoked', async () => {
      const created = (await cli('users', 'create', '--name', 'Rotator', '--json')).json<Created>()
      const run = await cli('credentials', 'rotate', created.user_id, '--json')
      assert.equal(run.code, EXIT.OK)
      const rotated = run.json<Rotated>()
      assert.equal(rotated.user_id, created.user_id)
      assert.match(rotated.api_client_key, CLIENT_KEY_PATTERN)
      assert.notEqual(rotated.api_client_key, created.api_client_key)
      assert.notEqual(rotated.api_secret_key, created.api_secret_key)
      assert.equal(rotated.replaced.length, 1)
      assert.equal(rotated.replaced[0]?.api_client_key, created.api_client_key)
      const rows = await testStore.store.db.selectFrom('credentials').select(['client_key', 'revoked_at']).where('user_id', '=', created.user_id).execute()
      const byKey = new Map(rows.map((row) => [row.client_key, row.revoked_at]))
      assert.notEqual(byKey.get(created.api_client_key), null)
      assert.equal(byKey.get(rotated.api_client_key), null)
      const listed = (await cli('credentials', 'list', created.user_id, '--json')).json<CredentialList>()
      assert.deepEqual(listed.credentials.map((credential) => [credential.api_client_key, credential.live]), [[rotated.api_client_key, true], [created.api_client_key, false]])
      assert.equal(listed.credentials[1]?.revoked_at, rotated.replaced[0]?.revoked_at)
    })

    it('two live key pairs at most: create, list, refuse a third, revoke', async () => {
      const created = (await cli('users', 'create', '--name', 'Two keys', '--json')).json<Created>()
      const second = await cli('credentials', 'create', created.user_id, '--json')
      assert.equal(second.code, EXIT.OK, second.stderr)
      const issued = second.json<{ user_id: string, api_client_key: string, api_secret_key: string }>()
      assert.deepEqual(Object.keys(issued), ['user_id', 'api_client_key', 'api_secret_key'])
      assert.match(issued.api_secret_key, SECRET_KEY_PATTERN)

      const listed = (await cli('credentials', 'list', created.user_id, '--json')).json<CredentialList>()
      assert.equal(listed.user_id, created.user_id)
      assert.deepEqual(listed.credentials.map((credential) => credential.api_client_key).sort(), [created.api_client_key, issued.api_client_key].sort())
      for (const credential of listed.credentials) {
        assert.equal(credential.live, true)
        assert.equal(credential.revoked_at, null)
        assert.match(credential.created_at, WHOLE_SECONDS)
      }
      const user = (await cli('users', 'list', '--json')).json<Listed>().users.find((u) => u.user_id === created.user_id)
      assert.deepEqual(user?.api_client_keys.slice().sort(), [created.api_client_key, issued.api_client_key].sort())

      const third = await cli('credentials', 'create', created.user_id, '--json')
      assert.equal(third.code, EXIT.FAILURE)
      const live = listed.credentials.map((credential) => credential.api_client_key).join(', ')
      const message = `User ${created.user_id} already has 2 live key pairs (${live}); revoke one first: partner-analytics credentials revoke CLIENT_KEY`
      assert.deepEqual(third.json(), { error: { code: 'CONFLICT', message, exit_code: 1 } })
      assert.equal(third.stderr, `error: ${message}\n`)
      // A rotation with a grace period would leave three: refused the same way.
      const graceful = await cli('credentials', 'rotate', created.user_id, '--grace', '1h')
      assert.equal(graceful.code, EXIT.FAILURE)
      assert.equal(graceful.stderr, `error: ${message}\n`)

      const revoked = await cli('credentials', 'revoke', created.api_client_key, '--json')
      assert.equal(revoked.code, EXIT.OK)
      const body = revoked.json<{ user_id: string, api_client_key: string, revoked_at: string }>()
      assert.deepEqual({ ...body, revoked_at: 'T' }, { user_id: created.user_id, api_client_key: created.api_client_key, revoked_at: 'T' })
      assert.match(body.revoked_at, WHOLE_SECONDS)
      // Revoking again changes nothing; an unknown key is a clear failure.
      assert.deepEqual((await cli('credentials', 'revoke', created.api_client_key, '--json')).json(), body)
      const unknown = await cli('credentials', 'revoke', 'pak_000000000000000000000000')
      assert.equal(unknown.code, EXIT.FAILURE)
      assert.equal(unknown.stderr, 'error: No key pair with client key pak_000000000000000000000000\n')
      assert.equal((await cli('credentials', 'create', created.user_id)).code, EXIT.OK)
    })

    it('rotate --grace keeps the old pair live until the grace ends', async () => {
      const created = (await cli('users', 'create', '--name', 'Graceful', '--json')).json<Created>()
      const run = await cli('credentials', 'rotate', created.user_id, '--grace', '1h30m', '--json')
      assert.equal(run.code, EXIT.OK, run.stderr)
      const rotated = run.json<Rotated>()
      const issuedAt = (await testStore.store.db.selectFrom('credentials').select('created_at').where('client_key', '=', rotated.api_client_key).executeTakeFirstOrThrow()).created_at
      // The grace ends at the first whole second at or after the rotation + 1h30m (never before it):
      // the issue time is that instant cut to the second, so the end is 1h30m after it, or 1 s more.
      const graceEnd = rotated.replaced[0]?.revoked_at ?? ''
      assert.ok([0, 1000].includes(Date.parse(graceEnd) - Date.parse(issuedAt) - 5400_000), `${issuedAt} → ${graceEnd}`)
      assert.deepEqual(rotated.replaced, [{ api_client_key: created.api_client_key, revoked_at: graceEnd }])
      const listed = (await cli('credentials', 'list', created.user_id, '--json')).json<CredentialList>()
      assert.deepEqual(listed.credentials.map((credential) => [credential.api_client_key, credential.revoked_at, credential.live]), [
        [rotated.api_client_key, null, true],
        [created.api_client_key, graceEnd, true],
      ])
      const human = await cli('credentials', 'list', created.user_id)
      assert.equal(human.stderr.split('\n')[1], `${created.api_client_key}  created ${listed.credentials[1]?.created_at ?? ''}  live until ${graceEnd}`)

      const text = await cli('credentials', 'rotate', created.user_id, '--grace', 'soon')
      assert.equal(text.code, EXIT.USAGE)
      assert.match(text.stderr, /^error: option '--grace <duration>' argument 'soon' is invalid\. expected a duration from 1s to 30d such as 90s, 15m, 24h, 7d or 1h30m, got "soon"\n/)
    })

    it('deletes a user only with --yes, with its key pairs and grants', async () => {
      const created = (await cli('users', 'create', '--name', 'Leaving', '--brands', '1', '--json')).json<Created>()
      const unconfirmed = await cli('users', 'delete', created.user_id, '--json')
      assert.equal(unconfirmed.code, EXIT.USAGE)
      const message = `deleting ${created.user_id} cannot be undone: add --yes to confirm (to keep the user but stop its access, use \`users disable\`)`
      assert.deepEqual(unconfirmed.json(), { error: { code: 'CONFIRMATION_REQUIRED', message, exit_code: 2 } })
      const deleted = await cli('users', 'delete', created.user_id, '--yes', '--json')
      assert.equal(deleted.code, EXIT.OK)
      assert.deepEqual(deleted.json(), { user_id: created.user_id, deleted: true })
      assert.equal((await testStore.store.db.selectFrom('credentials').select('client_key').where('user_id', '=', created.user_id).execute()).length, 0)
      assert.equal((await testStore.store.db.selectFrom('user_brands').select('brand_id').where('user_id', '=', created.user_id).execute()).length, 0)
      const again = await cli('users', 'delete', created.user_id, '--yes')
      assert.equal(again.code, EXIT.FAILURE)
      assert.equal(again.stderr, `error: No user with id ${created.user_id}\n`)
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

    it('with --json, a failure is one JSON error object on stdout, with the same exit code', async () => {
      const grant = await cli('users', 'grant', 'usr_nope', '--brands', '1', '--json')
      assert.equal(grant.code, EXIT.FAILURE)
      assert.equal(grant.stdout, '{"error":{"code":"NOT_FOUND","message":"No user with id usr_nope","exit_code":1}}\n')
      assert.equal(grant.stderr, 'error: No user with id usr_nope\n')
      const missingOption = await cli('users', 'create', '--json')
      assert.equal(missingOption.code, EXIT.USAGE)
      assert.deepEqual(missingOption.json(), { error: { code: 'USAGE_ERROR', message: "required option '--name <name>' not specified", exit_code: 2 } })
      const badName = await cli('users', 'create', '--name', ' ', '--json')
      assert.equal(badName.code, EXIT.USAGE)
      assert.deepEqual(badName.json(), { error: { code: 'VALIDATION_ERROR', message: 'The user name must not be empty', exit_code: 2 } })
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
      ['users', 'grant'], ['users', 'revoke'], ['users', 'delete'], ['credentials'], ['credentials', 'rotate'], ['credentials', 'create'],
      ['credentials', 'list'], ['credentials', 'revoke'], ['brands', 'list'], ['accounts', 'list'], ['usage'], ['migrate'], ['serve']]) {
      const run = await runCliCaptured([...argv, '--help'], {})
      assert.equal(run.code, EXIT.OK, argv.join(' '))
      assert.match(run.stderr, /Usage: partner-analytics/, argv.join(' '))
    }
  })

  it('marks required options and shows no empty default', async () => {
    const create = await runCliCaptured(['users', 'create', '--help'], {})
    assert.ok(create.stderr.includes('  --name <name>   display name of the user (required)\n'), create.stderr)
    assert.ok(create.stderr.includes('  --brands <ids>  comma-separated brand ids to grant (default: none)\n'), create.stderr)
    assert.doesNotMatch(create.stderr, /default: \[\]/)
    for (const name of ['grant', 'revoke']) {
      const run = await runCliCaptured(['users', name, '--help'], {})
      assert.ok(run.stderr.includes('  --brands <ids>  comma-separated brand ids (required)\n'), run.stderr)
    }
    const root = await runCliCaptured(['--help'], {})
    for (const command of ['serve', 'migrate', 'users', 'credentials', 'brands', 'accounts', 'usage', 'import', 'demo']) {
      assert.match(root.stderr, new RegExp(`^  ${command}\\b`, 'm'), command)
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
