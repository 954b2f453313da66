import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * An argument holding text no store can hold (a NUL, an unpaired surrogate) is refused before any
 * command runs, with a usage error naming it, on both stores (issue 27.6). A shell cannot pass a
 * NUL in argv, but a program calling the CLI, or a test, can hand it any string.
 */
for (const dialect of DIALECTS) {
  describe(`operator CLI: arguments no store can hold (${dialect})`, () => {
    let testStore: TestStore
    let env: Record<string, string>
    before(async () => {
      testStore = await createTestStore(dialect)
      env = { DATABASE_URL: testStore.databaseUrl }
    })
    after(async () => { await testStore.cleanup() })

    it('refuses a NUL or an unpaired surrogate in any argument, naming it, and runs nothing', async () => {
      const nul = await runCliCaptured(['webhooks', 'disable', 'wh_x', '--reason', 'a\u0000b'], env)
      assert.equal(nul.code, EXIT.USAGE)
      assert.equal(nul.stderr, 'error: argument 5 "a\\u0000b" must not contain the NUL character (U+0000)\n')
      const surrogate = await runCliCaptured(['webhooks', 'list', '--user', '\ud800', '--json'], env)
      assert.equal(surrogate.code, EXIT.USAGE)
      assert.deepEqual(surrogate.json(), { error: { code: 'USAGE_ERROR', message: 'argument 4 "\\ud800" must not contain an unpaired surrogate', exit_code: EXIT.USAGE } })
      // The same commands with storable text run (and find nothing).
      const listed = await runCliCaptured(['webhooks', 'list', '--user', 'nobody'], env)
      assert.equal(listed.code, EXIT.OK, listed.stderr)
    })
  })
}
