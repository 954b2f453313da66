import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

for (const dialect of DIALECTS) {
  describe(`operator CLI: brands list, accounts list (${dialect})`, () => {
    let testStore: TestStore
    const cli = async (...argv: string[]) => await runCliCaptured(argv, { DATABASE_URL: testStore.databaseUrl })

    before(async () => {
      testStore = await createTestStore(dialect)
      await insertBrandsWithAccounts(testStore.store.db, [
        { brand_id: 2, brand_name: 'Globex', accounts: [{ platform: 'tk', account_id: 20 }, { platform: 'fb', account_id: 21, network_id: null }] },
        { brand_id: 1, brand_name: 'Acme', accounts: [{ platform: 'ig', account_id: 10, account_name: 'Acme IG' }] },
        { brand_id: 3, brand_name: 'Initech' },
      ])
    })
    after(async () => { await testStore.cleanup() })

    it('lists brands by id with their account counts', async () => {
      const run = await cli('brands', 'list', '--json')
      assert.equal(run.code, EXIT.OK)
      assert.deepEqual(run.json(), {
        brands: [
          { brand_id: 1, brand_name: 'Acme', accounts: 1 },
          { brand_id: 2, brand_name: 'Globex', accounts: 2 },
          { brand_id: 3, brand_name: 'Initech', accounts: 0 },
        ],
      })
      const human = await cli('brands', 'list')
      assert.equal(human.stdout, '')
      assert.equal(human.stderr, '1  Acme  (1 account)\n2  Globex  (2 accounts)\n3  Initech  (0 accounts)\n')
    })

    it('lists accounts by brand, canonical platform order and id; --brand narrows, an unknown brand fails', async () => {
      const all = await cli('accounts', 'list', '--json')
      assert.equal(all.code, EXIT.OK)
      assert.deepEqual(all.json(), {
        accounts: [
          { brand_id: 1, platform: 'ig', account_id: 10, account_name: 'Acme IG', network_id: 'net-ig-10' },
          { brand_id: 2, platform: 'fb', account_id: 21, account_name: 'Account fb 21', network_id: null },
          { brand_id: 2, platform: 'tk', account_id: 20, account_name: 'Account tk 20', network_id: 'net-tk-20' },
        ],
      })
      const one = await cli('accounts', 'list', '--brand', '2')
      assert.equal(one.stderr, 'brand 2  fb  21  Account fb 21\nbrand 2  tk  20  Account tk 20  (network id net-tk-20)\n')
      const empty = await cli('accounts', 'list', '--brand', '3')
      assert.equal(empty.code, EXIT.OK)
      assert.equal(empty.stderr, 'Brand 3 has no accounts.\n')
      const unknown = await cli('accounts', 'list', '--brand', '9', '--json')
      assert.equal(unknown.code, EXIT.FAILURE)
      assert.deepEqual(unknown.json(), { error: { code: 'NOT_FOUND', message: 'No brand with id 9', exit_code: 1 } })
      const bad = await cli('accounts', 'list', '--brand', 'x')
      assert.equal(bad.code, EXIT.USAGE)
    })
  })
}
