import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { parseDatabaseUrl } from '../../src/config/load.js'
import { createStore, type Store } from '../../src/storage/db.js'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { recordSyncs, visibleTo, wire, type WrittenEvent, type FeedPageBody } from './feed-fixtures.js'

/**
 * Cursor stability across instances: two apps, each with its own connections to one store and the
 * same JWT_SECRET, as two servers behind a load balancer. A walk that alternates between them
 * reads the same pages as a walk on one; a cursor from one is answered identically by the other;
 * an instance with another secret refuses it.
 */

for (const dialect of DIALECTS) {
  describe(`GET /changes on two instances (${dialect})`, () => {
    let test: TestStore
    let secondStore: Store
    let first: FastifyInstance
    let second: FastifyInstance
    let foreign: FastifyInstance
    let partner: TestPartner
    let written: WrittenEvent[]

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 3, 1))
      written = await recordSyncs(test.store.db, { count: 9, perSync: 7, brandIds: [1, 2, 3], createdAt: '2026-11-25T10:00:00Z' })
      partner = await createPartner(test.store, { brandIds: [1, 3] })
      const config = parseDatabaseUrl(test.databaseUrl)
      if (typeof config === 'string') throw new Error(config)
      secondStore = createStore(config)
      first = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      second = await buildTestApp(secondStore, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      foreign = await buildTestApp(secondStore, { JWT_SECRET: 'another-secret-another-secret-another-secret-42' })
    })
    after(async () => {
      await first.close()
      await second.close()
      await foreign.close()
      await secondStore.destroy()
      await test.cleanup()
    })

    async function page (app: FastifyInstance, query: Record<string, string>): Promise<{ status: number, body: FeedPageBody }> {
      const response = await app.inject({ method: 'GET', url: '/changes', query, headers: bearer(await loginToken(app, partner)) })
      return { status: response.statusCode, body: response.json() }
    }

    async function walk (instances: FastifyInstance[], limit: string): Promise<Array<FeedPageBody['data']>> {
      const pages: Array<FeedPageBody['data']> = []
      let cursor: string | undefined
      for (let i = 0; i < 100; i++) {
        const answer = await page(instances[i % instances.length] as FastifyInstance, cursor === undefined ? { limit } : { limit, cursor })
        assert.equal(answer.status, 200)
        pages.push(answer.body.data)
        if (!answer.body.has_more) return pages
        cursor = answer.body.next_cursor
      }
      throw new Error('the walk did not end')
    }

    it('a walk alternating between the instances reads exactly the pages of a walk on one', async () => {
      const alone = await walk([first], '5')
      const alternating = await walk([first, second], '5')
      assert.deepEqual(alternating, alone)
      assert.deepEqual(alone.flat(), visibleTo(written, partner.userId, [1, 3]).map(wire))
    })

    it('a cursor from one instance gets the same answer from the other, and 422 from an instance with another secret', async () => {
      const start = await page(first, { limit: '4', brand_id: '3' })
      const onFirst = await page(first, { limit: '4', brand_id: '3', cursor: start.body.next_cursor })
      const onSecond = await page(second, { limit: '4', brand_id: '3', cursor: start.body.next_cursor })
      assert.deepEqual(onSecond.body.data, onFirst.body.data)
      assert.equal(onSecond.body.has_more, onFirst.body.has_more)
      assert.deepEqual(onFirst.body.data, visibleTo(written, partner.userId, [3]).slice(4, 8).map(wire))
      const refused = await page(foreign, { limit: '4', brand_id: '3', cursor: start.body.next_cursor })
      assert.equal(refused.status, 422)
      assert.deepEqual((refused.body as unknown as { detail: Array<{ loc: string[] }> }).detail.map((item) => item.loc), [['query', 'cursor']])
    })
  })
}
