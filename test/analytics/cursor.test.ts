import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../helpers/stores.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'

const QUERY = { since: '2026-01-20', until: '2026-02-20', brand_id: '1,2', platform: 'fb,ig' }

for (const dialect of DIALECTS) {
  describe(`GET /analytics/ daily cursors (${dialect})`, () => {
    let client: PartnerApi
    let cursor: string
    before(async () => {
      client = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, generateDataset({ seed: 5, start: '2026-01-20', days: 40 })) }, brandIds: [1, 2] })
      const first = await client.analytics(QUERY)
      assert.equal(first.body.total, 20)
      cursor = first.body.next_cursor as string
      assert.equal(typeof cursor, 'string')
    })
    after(async () => { await client.close() })

    it('accepts the cursor with the same query written differently (05/5, FB/facebook, order)', async () => {
      const same = await client.analytics({ ...QUERY, brand_id: '02, 1,1', platform: 'Instagram,FB', cursor })
      const plain = await client.analytics({ ...QUERY, cursor })
      assert.equal(same.status, 200)
      assert.deepEqual(same.body, plain.body)
      assert.notDeepEqual(plain.body.data[0], (await client.analytics(QUERY)).body.data[0])
    })

    for (const [name, change] of [['since', { since: '2026-01-21' }], ['until', { until: '2026-02-19' }], ['brand_id', { brand_id: '1' }], ['platform', { platform: 'fb' }], ['split_by_platform', { split_by_platform: 'true' }]] as const) {
      it(`refuses the cursor with another ${name}: 422 on cursor`, async () => {
        const { status, body } = await client.analytics({ ...QUERY, ...change, cursor })
        assert.equal(status, 422)
        assert.deepEqual((body.detail as Array<{ loc: string[] }>).map((item) => item.loc), [['query', 'cursor']])
      })
    }

    it('refuses an edited or garbage cursor', async () => {
      const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6)
      for (const bad of [flipped, 'garbage', `${cursor}x`]) {
        assert.equal((await client.analytics({ ...QUERY, cursor: bad })).status, 422)
      }
    })

    it('refuses a cursor whose payload was edited into another valid position, keeping its signature', async () => {
      const [payload, mac] = cursor.split('.') as [string, string]
      // [date, group id, platform rank] of the first page's last entry: moved a week back, still
      // well-formed JSON and a real position, so that only the signature can tell.
      const position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, number, number]
      assert.match(position[0], /^2026-\d{2}-\d{2}$/)
      const earlier = new Date(Date.parse(`${position[0]}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10)
      const edited = `${Buffer.from(JSON.stringify([earlier, position[1], position[2]]), 'utf8').toString('base64url')}.${mac}`
      const { status, body } = await client.analytics({ ...QUERY, cursor: edited })
      assert.equal(status, 422)
      assert.deepEqual(body.detail, [{ loc: ['query', 'cursor'], msg: (body.detail as Array<{ msg: string }>)[0]?.msg, type: 'cursor_invalid', ctx: {} }])
    })

    it('ignores the cursor, even garbage, unless type=daily', async () => {
      assert.equal((await client.analytics({ ...QUERY, type: 'agg', cursor: 'garbage' })).status, 200)
      assert.equal((await client.analytics({ ...QUERY, type: 'monthly', cursor })).status, 200)
    })

    it('the last page has no next_cursor at all', async () => {
      let page = (await client.analytics(QUERY)).body
      let pages = 1
      while (typeof page.next_cursor === 'string') {
        page = (await client.analytics({ ...QUERY, cursor: page.next_cursor })).body
        pages++
      }
      assert.ok(pages >= 3)
      assert.equal('next_cursor' in page, false)
    })
  })
}
