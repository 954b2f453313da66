import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { demoSource } from '../../src/services/demo/source.js'
import { PLATFORM_CODES } from '../../src/domain/platforms.js'
import { ImportRejectedError, importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { buildTestApp } from '../helpers/app.js'
import { memorySource, postsClient, walkPages, type Client, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

/** Accounts of insertPostsWorld, one per platform, brand 1 or 2. */
const ACCOUNT_OF = { fb: 10, ig: 11, tk: 12, yt: 13, li: 14, th: 20, sc: 21, da: 22, pi: 23 } as const

function post (platform: keyof typeof ACCOUNT_OF, id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'post', id, platform, account_id: ACCOUNT_OF[platform], created_time: '2026-11-03T10:30:00Z', ...extra }
}

async function importErrors (test: TestStore, records: unknown[]): Promise<string[]> {
  const errors: string[] = []
  await assert.rejects(importSources(test.store, [memorySource(records)], { onError: (message) => errors.push(message) }), ImportRejectedError)
  return errors
}

for (const dialect of DIALECTS) {
  describe(`posts import as /posts shows it (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let client: Client

    before(async () => { ({ test, app, client } = await openPostsWorld(dialect)) })
    after(async () => { await closePostsWorld({ test, app, client }) })

    it('derives post_type from each platform\'s own type by the documented mapping; an explicit post_type wins', async () => {
      const cases: Array<[keyof typeof ACCOUNT_OF, string | null, string]> = [
        ['fb', 'video_inline', 'video'], ['fb', 'album', 'carousel'], ['fb', 'link', 'share'], ['fb', 'status', 'text'],
        ['ig', 'REELS', 'reel'], ['ig', 'CAROUSEL_ALBUM', 'carousel'], ['tk', 'photo_mode', 'carousel'], ['yt', 'shorts', 'short'],
        ['li', 'document', 'document'], ['li', 'poll', 'other'], ['th', 'repost_facade', 'share'], ['sc', 'spotlight', 'short'],
        ['da', 'live', 'video'], ['pi', 'idea_pin', 'carousel'], ['pi', 'hologram', 'other'], ['tk', 'Image', 'image'], ['yt', null, 'other'],
      ]
      await importSources(test.store, [memorySource([
        ...cases.map(([platform, type], index) => post(platform, `derive-${index}`, type === null ? {} : { type })),
        post('fb', 'explicit', { type: 'photo', post_type: 'Reels' }),
      ])])
      const records = await walkPages(client, { since: '2026-11-03', until: '2026-11-03', order: 'asc' }, 50)
      const byId = new Map(records.map((record) => [record.id, record]))
      cases.forEach(([, type, category], index) => {
        const record = byId.get(`derive-${index}`)
        assert.equal(record?.type, type, `type of case ${index}`)
        assert.equal(record?.post_type, category, `post_type of ${String(type)}`)
      })
      assert.deepEqual([byId.get('explicit')?.type, byId.get('explicit')?.post_type], ['photo', 'reel'])
    })

    it('stores created_time with an offset as UTC and shows whole seconds', async () => {
      await importSources(test.store, [memorySource([post('ig', 'offset', { created_time: '2026-11-04T01:15:30.250+02:00', views: 3, reach: 2, interactions: 1 })])])
      const { body } = await client.get({ since: '2026-11-03', until: '2026-11-03', platform: 'ig', post_type: 'other' })
      assert.deepEqual(body.data.map((record: Record<string, unknown>) => [record.id, record.created_time, record.engagement_rate]), [['offset', '2026-11-03T23:15:30Z', 0.5]])
    })

    it('rejects a file whose posts break the rules of daily rows, listing every error and writing nothing', async () => {
      const errors = await importErrors(test, [
        post('sc', 'ok-but-rejected', { views: 1 }),
        post('sc', 'likes-on-snapchat', { likes: 3 }),
        post('tk', 'reach-on-tiktok', { reach: 3 }),
        post('fb', 'negative', { views: -1 }),
        post('fb', 'bad-time', { created_time: '2026-11-31T10:00:00Z' }),
        post('fb', 'bad-category', { post_type: 'podcast' }),
        { ...post('fb', 'unknown-account'), account_id: 999 },
      ])
      assert.equal(errors.length, 6, errors.join('\n'))
      for (const [line, text] of [[2, 'likes'], [3, 'reach'], [4, 'views'], [5, 'created_time'], [6, 'post_type'], [7, '999']] as const) {
        assert.ok(errors.some((message) => message.startsWith(`posts.ndjson:${line}: `) && message.includes(text)), `line ${line}: ${errors.join('\n')}`)
      }
      const { body } = await client.get({ since: '2026-11-03', until: '2026-11-03', platform: 'sc' })
      assert.deepEqual(body.data.map((record: { id: string }) => record.id), ['derive-11'], 'only the post of the earlier, valid import')
    })

    it('serves the demo data (3 brands cover every platform): realistic posts on every platform', async () => {
      const demo = await createTestStore(dialect)
      try {
        await importSources(demo.store, [demoSource({ brands: 3, days: 30, seed: 7 })])
        const demoApp = await buildTestApp(demo.store)
        try {
          const brands = await demo.store.db.selectFrom('brands').select('brand_id').execute()
          const demoClient = await postsClient(demoApp, demo, brands.map((brand) => Number(brand.brand_id)))
          const today = new Date().toISOString().slice(0, 10)
          const since = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10)
          const seen = new Set<string>()
          for (const code of PLATFORM_CODES) {
            const { status, body } = await demoClient.get({ since, until: today, platform: code, order_by: 'interactions' })
            assert.equal(status, 200)
            assert.ok(body.data.length > 0, `demo posts on ${code}`)
            const top = body.data[0]
            assert.ok(typeof top.interactions === 'number' && top.interactions > 0, `${code} interactions`)
            assert.ok(typeof top.type === 'string' && top.type.length > 0, `${code} type`)
            seen.add(top.platform)
          }
          assert.equal(seen.size, 9)
        } finally {
          await demoApp.close()
        }
      } finally {
        await demo.cleanup()
      }
    })
  })
}
