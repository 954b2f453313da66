import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { account, brand, importRecords, post } from '../import/sync-helpers.js'
import { QUIET, createWebhook } from '../webhooks/webhook-fixtures.js'

/**
 * posts.updated names the posts (docs/api-reference.md "Events"), on both stores, as partners
 * read it: GET /changes and a webhook's body carry, per account, the ids of the posts added and
 * changed — the very ids GET /posts shows — at most 100 of each, ascending by their bytes, with
 * post_ids_truncated when an import added or changed more.
 */

interface PostsAccount {
  platform: string
  account_id: number
  posts_added: number
  posts_changed: number
  added_post_ids: string[]
  changed_post_ids: string[]
  post_ids_truncated: boolean
}
interface PostsEvent { id: string, type: string, data: { brand_id: number, accounts: PostsAccount[] } }

const byBytes = (ids: string[]): string[] => [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))

for (const dialect of DIALECTS) {
  describe(`posts.updated names the posts (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await importRecords(test.store, [brand(7, 'Posts Brand'), account('ig', 71, 7), account('yt', 72, 7)]) },
        brandIds: [7],
        env: { WEBHOOK_ALLOW_PRIVATE: '1' },
      })
      api.app.services.webhooks.worker.start(QUIET)
    })
    after(async () => {
      await api.close()
      await receiver.close()
    })

    /** The posts.updated events the partner sees, oldest first, through GET /changes. */
    const postsEvents = async (): Promise<PostsEvent[]> => {
      const page = await api.get<{ data: PostsEvent[] }>('/changes', { type: 'posts.updated', limit: '100' })
      assert.equal(page.status, 200)
      return page.body.data
    }

    /** Every id GET /posts shows for the account (posts of 2026-11-01, the helper's day). */
    const postIdsOf = async (platform: string, accountId: number): Promise<string[]> => {
      const ids: string[] = []
      let cursor: string | undefined
      do {
        const page = await api.posts({ platform, account_id: String(accountId), since: '2026-11-01', until: '2026-11-01', limit: '50', ...(cursor === undefined ? {} : { cursor }) })
        assert.equal(page.status, 200)
        ids.push(...page.body.data.map((item) => item.id))
        cursor = page.body.next_cursor ?? undefined
      } while (cursor !== undefined)
      return ids
    }

    it('lists the ids GET /posts shows, in the feed and in the webhook body alike, bounded and flagged', async () => {
      await createWebhook(api.app, api.auth, { url: `${receiver.origin}/posts`, events: ['posts.updated'] })
      // 130 posts of one account (ids of mixed case and accents, in no order), 2 of another.
      const many = Array.from({ length: 65 }, (_, n) => [`Post-${n}`, `post_${n}`]).flat().reverse()
      await importRecords(api.test.store, [...many.map((id) => post('ig', 71, id)), post('yt', 72, 'vid-b'), post('yt', 72, 'Vid-a')])

      const [first] = await postsEvents()
      assert.ok(first !== undefined)
      const shown = byBytes(await postIdsOf('ig', 71))
      assert.deepEqual(shown, byBytes(many), 'GET /posts shows every imported id')
      assert.deepEqual(first.data, {
        brand_id: 7,
        accounts: [
          { platform: 'ig', account_id: 71, posts_added: 130, posts_changed: 0, added_post_ids: shown.slice(0, 100), changed_post_ids: [], post_ids_truncated: true },
          { platform: 'yt', account_id: 72, posts_added: 2, posts_changed: 0, added_post_ids: byBytes(await postIdsOf('yt', 72)), changed_post_ids: [], post_ids_truncated: false },
        ],
      })
      assert.deepEqual(first.data.accounts[1]?.added_post_ids, ['Vid-a', 'vid-b'])

      // Three changed and one added: every id listed, nothing truncated.
      await importRecords(api.test.store, [post('ig', 71, 'post_3', 5), post('ig', 71, 'Post-9', 5), post('ig', 71, 'post_10', 5), post('ig', 71, 'added-later')])
      const second = (await postsEvents())[1]
      assert.deepEqual(second?.data, {
        brand_id: 7,
        accounts: [{ platform: 'ig', account_id: 71, posts_added: 1, posts_changed: 3, added_post_ids: ['added-later'], changed_post_ids: ['Post-9', 'post_10', 'post_3'], post_ids_truncated: false }],
      })

      // The webhook carried the same objects, byte for byte in their data.
      await waitFor('both deliveries', () => receiver.at('/posts').length >= 2, 10_000)
      const delivered = receiver.at('/posts').map((delivery) => JSON.parse(delivery.body) as PostsEvent).sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }))
      assert.deepEqual(delivered.map((event) => event.data), [first.data, second?.data])
    })
  })
}
