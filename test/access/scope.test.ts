import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { resolveScope } from '../../src/services/access/access.service.js'
import { AppError, type ErrorCode } from '../../src/domain/errors.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { accountRow, brandRow, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'

async function rejectsWith (promise: Promise<unknown>, code: ErrorCode, message?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError)
    assert.equal(error.code, code)
    if (message !== undefined) assert.equal(error.message, message)
    return true
  })
}

for (const dialect of DIALECTS) {
  describe(`resolveScope (${dialect})`, () => {
    let test: TestStore
    before(async () => {
      test = await createTestStore(dialect)
      await insertDatasetAndReadModel(test.store, {
        brands: [brandRow(1), brandRow(2), brandRow(3)],
        accounts: [accountRow('fb', 10, 1), accountRow('ig', 10, 2), accountRow('fb', 11, 2), accountRow('fb', 30, 3)],
        daily: [],
      })
    })
    after(async () => { await test.cleanup() })

    const accessible = [1, 2]

    it('uses every accessible brand when neither brand_id nor account_id is given', async () => {
      assert.deepEqual(await resolveScope(test.store.db, [2, 1], {}), { kind: 'brands', brandIds: [1, 2], platforms: undefined, singleBrandId: undefined })
    })

    it('keeps the given brands and platforms and names a single brand', async () => {
      assert.deepEqual(await resolveScope(test.store.db, accessible, { brandIds: [2], platforms: ['fb', 'ig'] }), { kind: 'brands', brandIds: [2], platforms: ['fb', 'ig'], singleBrandId: 2 })
    })

    it('answers 403 for a brand not granted, and for one that does not exist', async () => {
      await rejectsWith(resolveScope(test.store.db, accessible, { brandIds: [1, 3] }), 'FORBIDDEN', 'You do not have access to brand_id 3')
      await rejectsWith(resolveScope(test.store.db, accessible, { brandIds: [999] }), 'FORBIDDEN')
    })

    it('answers 400 for account_id without exactly one platform, before 403', async () => {
      const detail = 'account_id requires exactly one platform to be specified'
      await rejectsWith(resolveScope(test.store.db, accessible, { accountIds: [10] }), 'ACCOUNT_NEEDS_ONE_PLATFORM', detail)
      await rejectsWith(resolveScope(test.store.db, accessible, { accountIds: [10], platforms: ['fb', 'ig'], brandIds: [3] }), 'ACCOUNT_NEEDS_ONE_PLATFORM', detail)
    })

    it('looks an account up on the one platform given (ids are per platform)', async () => {
      const fb = await resolveScope(test.store.db, accessible, { accountIds: [10], platforms: ['fb'] })
      assert.equal(fb.kind, 'accounts')
      if (fb.kind === 'accounts') {
        assert.deepEqual(fb.accounts.map((a) => [a.platform, Number(a.account_id), Number(a.brand_id)]), [['fb', 10, 1]])
        assert.deepEqual(fb.brandIds, [1])
      }
      const ig = await resolveScope(test.store.db, accessible, { accountIds: [10], platforms: ['ig'] })
      assert.deepEqual(ig.brandIds, [2])
    })

    it('lists the brands of the accounts when no brand_id is given', async () => {
      const scope = await resolveScope(test.store.db, accessible, { accountIds: [11, 10], platforms: ['fb'] })
      assert.deepEqual(scope.brandIds, [1, 2])
      assert.equal(scope.singleBrandId, undefined)
    })

    it('answers 404 for an unknown account, one on another platform, or one in an inaccessible brand', async () => {
      await rejectsWith(resolveScope(test.store.db, accessible, { accountIds: [999], platforms: ['fb'] }), 'NOT_FOUND')
      await rejectsWith(resolveScope(test.store.db, accessible, { accountIds: [11], platforms: ['ig'] }), 'NOT_FOUND')
      await rejectsWith(resolveScope(test.store.db, accessible, { accountIds: [10, 30], platforms: ['fb'] }), 'NOT_FOUND', 'account_id 30 not found on platform fb in an accessible brand')
    })

    it('answers 404 when an account is outside the given brands, and 403 first for a bad brand', async () => {
      await rejectsWith(resolveScope(test.store.db, accessible, { brandIds: [2], accountIds: [10], platforms: ['fb'] }), 'NOT_FOUND')
      await rejectsWith(resolveScope(test.store.db, accessible, { brandIds: [3], accountIds: [999], platforms: ['fb'] }), 'FORBIDDEN')
      const both = await resolveScope(test.store.db, accessible, { brandIds: [1, 2], accountIds: [10], platforms: ['fb'] })
      assert.deepEqual([both.kind, both.brandIds], ['accounts', [1, 2]])
    })
  })
}
