import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { importSources } from '../../src/services/import/import.service.js'
import type { RecordSource } from '../../src/services/import/source.js'
import { PLATFORM_CODES, platformRank, type PlatformCode } from '../../src/domain/platforms.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { allowSyncs, changeState, eventDataOf, refuseSyncs } from './sync-helpers.js'

/**
 * A sync larger than anything the recorder holds or reads at once (docs/import.md "Syncs"): 100,000
 * new accounts — twenty pages of the account events and of the ranges, two hundred batches of
 * events, five PostgreSQL staging batches — are recorded exactly (every event, in the feed's order,
 * numbered consecutively; the sync's brand and account lists), an import moving and renaming
 * 12,000 of them emits exactly its moved_out / moved_in / updated events, and the same size of
 * import refused at its last step leaves nothing.
 */

const ACCOUNTS = 100_000
const PER_BRAND = 500
const WITH_POSTS = 7_000
const MOVED = 12_000

interface Account { platform: PlatformCode, account_id: number, brand_id: number, name: string }

function accountOf (index: number, offset = 0): Account {
  return {
    platform: PLATFORM_CODES[index % PLATFORM_CODES.length] ?? 'fb',
    account_id: offset + 1_000_000 + index,
    brand_id: 1 + Math.floor(index / PER_BRAND),
    name: `Account ${index}`,
  }
}

/** Canonical order within a brand: platform rank, then account id. */
const byAccount = (a: { platform: PlatformCode, account_id: number }, b: { platform: PlatformCode, account_id: number }) =>
  platformRank(a.platform) - platformRank(b.platform) || a.account_id - b.account_id

function recordSource (name: string, records: () => Generator<unknown>): RecordSource {
  return {
    name,
    read: async function * () {
      let line = 0
      for (const value of records()) {
        line += 1
        yield { line, value }
      }
    },
  }
}

/** Brands, ACCOUNTS accounts, a day of rows each (two separate days for every seventh), a post for the first WITH_POSTS. */
function * firstImport (offset = 0): Generator<unknown> {
  for (let brand = 1; brand <= ACCOUNTS / PER_BRAND; brand += 1) yield { kind: 'brand', brand_id: brand + offset, brand_name: `Brand ${brand}` }
  for (let index = 0; index < ACCOUNTS; index += 1) {
    const account = accountOf(index, offset)
    yield { kind: 'account', platform: account.platform, account_id: account.account_id, brand_id: account.brand_id + offset, account_name: account.name }
  }
  for (let index = 0; index < ACCOUNTS; index += 1) {
    const { platform, account_id: accountId } = accountOf(index, offset)
    yield { kind: 'daily', platform, account_id: accountId, date: '2026-11-01', views: index % 1000 }
    if (index % 7 === 0) yield { kind: 'daily', platform, account_id: accountId, date: '2026-11-03', views: 1 }
  }
  for (let index = 0; index < WITH_POSTS; index += 1) {
    const { platform, account_id: accountId } = accountOf(index, offset)
    yield { kind: 'post', platform, account_id: accountId, id: `p${index}`, created_time: '2026-11-01T10:00:00Z', views: 1 }
  }
}

/** The events of firstImport, as the feed must carry them. */
function firstEvents (): Array<{ type: string, data: unknown }> {
  const brands = ACCOUNTS / PER_BRAND
  const byBrand = Array.from({ length: brands }, (_, brand) =>
    Array.from({ length: PER_BRAND }, (_, k) => accountOf(brand * PER_BRAND + k)).sort(byAccount))
  const indexOf = (account: Account) => account.account_id - 1_000_000
  const events: Array<{ type: string, data: unknown }> = []
  for (let brand = 1; brand <= brands; brand += 1) events.push({ type: 'brand.updated', data: { brand_id: brand, brand_name: `Brand ${brand}`, change: 'created' } })
  for (const accounts of byBrand) {
    for (const a of accounts) events.push({ type: 'account.updated', data: { brand_id: a.brand_id, platform: a.platform, account_id: a.account_id, account_name: a.name, change: 'created' } })
  }
  for (const [brand, accounts] of byBrand.entries()) {
    events.push({
      type: 'analytics.updated',
      data: {
        brand_id: brand + 1,
        accounts: accounts.map((a) => ({
          platform: a.platform,
          account_id: a.account_id,
          dates: indexOf(a) % 7 === 0 ? [{ since: '2026-11-01', until: '2026-11-01' }, { since: '2026-11-03', until: '2026-11-03' }] : [{ since: '2026-11-01', until: '2026-11-01' }],
        })),
      },
    })
  }
  for (const [brand, accounts] of byBrand.entries()) {
    const posted = accounts.filter((a) => indexOf(a) < WITH_POSTS)
    if (posted.length === 0) continue
    events.push({
      type: 'posts.updated',
      data: {
        brand_id: brand + 1,
        accounts: posted.map((a) => ({
          platform: a.platform, account_id: a.account_id, posts_added: 1, posts_changed: 0, added_post_ids: [`p${indexOf(a)}`], changed_post_ids: [], post_ids_truncated: false,
        })),
      },
    })
  }
  return events
}

/** The first MOVED accounts moved to the next brand; every other one renamed too. */
function movedAccount (index: number): Account {
  const account = accountOf(index)
  const brands = ACCOUNTS / PER_BRAND
  return { ...account, brand_id: account.brand_id % brands + 1, name: index % 2 === 1 ? `Renamed ${index}` : account.name }
}

function * moveImport (): Generator<unknown> {
  for (let index = 0; index < MOVED; index += 1) {
    const a = movedAccount(index)
    yield { kind: 'account', platform: a.platform, account_id: a.account_id, brand_id: a.brand_id, account_name: a.name }
  }
}

const CHANGE_ORDER = { created: 0, moved_in: 1, updated: 2, moved_out: 3 } as const

function moveEvents (): Array<{ type: string, data: unknown }> {
  const data: Array<{ brand_id: number, platform: PlatformCode, account_id: number, account_name: string, change: keyof typeof CHANGE_ORDER }> = []
  for (let index = 0; index < MOVED; index += 1) {
    const before = accountOf(index)
    const now = movedAccount(index)
    const event = (brandId: number, change: keyof typeof CHANGE_ORDER) => ({ brand_id: brandId, platform: now.platform, account_id: now.account_id, account_name: now.name, change })
    data.push(event(before.brand_id, 'moved_out'), event(now.brand_id, 'moved_in'))
    if (now.name !== before.name) data.push(event(now.brand_id, 'updated'))
  }
  data.sort((a, b) => a.brand_id - b.brand_id || byAccount(a, b) || CHANGE_ORDER[a.change] - CHANGE_ORDER[b.change])
  return data.map((event) => ({ type: 'account.updated', data: event }))
}

for (const dialect of DIALECTS) {
  describe(`a sync of 100,000 new accounts (${dialect})`, { timeout: 600_000 }, () => {
    let test: TestStore
    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    it('records every event exactly, in the feed\'s order, and the sync\'s counts, brands and accounts', async () => {
      const summary = await importSources(test.store, [recordSource('large.ndjson', () => firstImport())])
      const sync = summary.sync
      assert.ok(sync !== null)
      const expected = firstEvents()
      assert.equal(sync.eventCount, expected.length)
      assert.deepEqual(sync.counts.changed, {
        brand: { created: ACCOUNTS / PER_BRAND, renamed: 0 },
        account: { created: ACCOUNTS, updated: 0, moved: 0 },
        daily: { inserted: ACCOUNTS + Math.ceil(ACCOUNTS / 7), changed: 0 },
        post: { added: WITH_POSTS, changed: 0 },
      })
      assert.deepEqual(sync.brandIds, Array.from({ length: ACCOUNTS / PER_BRAND }, (_, index) => index + 1))
      assert.deepEqual(sync.accounts, Array.from({ length: ACCOUNTS }, (_, index) => accountOf(index)).sort(byAccount)
        .map((account) => ({ platform: account.platform, account_id: account.account_id })))
      const stored = await eventDataOf(test.store, sync.syncId)
      assert.equal(stored.length, expected.length)
      assert.deepEqual(stored, expected)
    })

    it('moving and renaming 12,000 of them: exactly their moved_out, moved_in and updated events', async () => {
      const summary = await importSources(test.store, [recordSource('move.ndjson', moveImport)])
      const sync = summary.sync
      assert.ok(sync !== null)
      assert.deepEqual(sync.counts.changed.account, { created: 0, updated: MOVED / 2, moved: MOVED })
      const expected = moveEvents()
      assert.equal(sync.eventCount, expected.length)
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), expected)
      assert.deepEqual(sync.brandIds, [...new Set(expected.map((event) => (event.data as { brand_id: number }).brand_id))].sort((a, b) => a - b))
      assert.equal(sync.accounts.length, MOVED)
    })

    it('the same size of import refused at its last step leaves no row, sync, event or coverage change', async () => {
      const before = await changeState(test)
      await refuseSyncs(test)
      try {
        await assert.rejects(importSources(test.store, [recordSource('refused.ndjson', () => firstImport(10_000_000))]), /refused by the test trigger/)
      } finally {
        await allowSyncs(test)
      }
      assert.deepEqual(await changeState(test), before)
      const accounts = Number((await test.store.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
      assert.equal(accounts, ACCOUNTS)
    })
  })
}
