import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { DataStatusPage } from '../../src/http/schemas/data-status.schemas.js'
import { generateDemoRecords, type DemoOptions } from '../../src/services/demo/generator.js'
import { demoSource } from '../../src/services/demo/source.js'
import type { DemoRecord } from '../../src/services/demo/records.js'
import { importSources } from '../../src/services/import/import.service.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * GET /data-status on the demo data (docs/demo-data.md), as the issue tried it: the gaps it names
 * are the gaps the generated records really have, found here from the records themselves with a
 * plain walk over each account's days — not from the service. With the demo of 2026-11-24 (as the issue saw it), brand
 * 4's Facebook account has no row for 2026-11-04 (the issue's cliff).
 */

const DEMO: DemoOptions = { brands: 8, days: 400, seed: 42, until: '2026-11-24', asOf: '2026-11-24T18:00:00Z' }
const ORDER = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
const DAY = 86_400_000
const next = (date: string, days = 1): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)

interface Expected { brand_id: number, platform: string, account_id: number, first_date: string | null, last_date: string | null, days_expected: number, days_reported: number, missing: Array<{ since: string, until: string }> }

/** Each account's status for a period, from the records: a day of its coverage without a row is missing. */
function expectedStatus (records: readonly DemoRecord[], since: string, until: string): Expected[] {
  const accounts: Array<{ brand_id: number, platform: string, account_id: number }> = []
  const days = new Map<string, Set<string>>()
  for (const record of records) {
    if (record.kind === 'account') accounts.push({ brand_id: record.brand_id, platform: record.platform, account_id: record.account_id })
    if (record.kind === 'daily') {
      const key = `${record.platform}:${record.account_id}`
      days.set(key, (days.get(key) ?? new Set()).add(record.date))
    }
  }
  accounts.sort((a, b) => a.brand_id - b.brand_id || ORDER.indexOf(a.platform) - ORDER.indexOf(b.platform) || a.account_id - b.account_id)
  return accounts.map((account) => {
    const reported = days.get(`${account.platform}:${account.account_id}`) ?? new Set<string>()
    const sorted = [...reported].sort()
    const first = sorted[0] ?? null
    const last = sorted.at(-1) ?? null
    const missing: Array<{ since: string, until: string }> = []
    let expected = 0
    let present = 0
    if (first !== null && last !== null) {
      for (let date = first > since ? first : since; date <= (last < until ? last : until); date = next(date)) {
        expected++
        if (reported.has(date)) { present++; continue }
        const open = missing.at(-1)
        if (open !== undefined && next(open.until) === date) open.until = date
        else missing.push({ since: date, until: date })
      }
    }
    return { ...account, first_date: first, last_date: last, days_expected: expected, days_reported: present, missing }
  })
}

const RECORDS: DemoRecord[] = [...generateDemoRecords(DEMO)]

for (const dialect of DIALECTS) {
  describe(`GET /data-status on the demo data (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await importSources(test.store, [demoSource(DEMO)]) },
        brandIds: [1, 2, 3, 4, 5, 6, 7, 8],
      })
    })
    after(async () => { await api.close() })

    async function walk (query: Record<string, string>): Promise<Expected[]> {
      const seen: Expected[] = []
      let cursor: string | undefined
      do {
        const page = await api.get<DataStatusPage>('/data-status', cursor === undefined ? query : { ...query, cursor })
        assert.equal(page.status, 200, JSON.stringify(page.body))
        seen.push(...page.body.data.map(({ synced_at: syncedAt, account_name: _name, ...rest }) => {
          assert.match(String(syncedAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'every demo account was written by the import')
          return rest
        }))
        cursor = page.body.next_cursor ?? undefined
        assert.ok(seen.length < 1000)
      } while (cursor !== undefined)
      return seen
    }

    it('names the gaps the records have, over the whole history and over the last four weeks', async () => {
      const whole = await walk({ since: '2025-10-17', until: DEMO.until as string, limit: '7' })
      const expected = expectedStatus(RECORDS, '2025-10-17', DEMO.until as string)
      assert.deepEqual(whole, expected)
      assert.ok(expected.reduce((gaps, account) => gaps + account.missing.length, 0) > 20, 'the demo has gaps to find')
      // Accounts launched inside the window: the days before their first row are not missing.
      assert.ok(expected.some((account) => account.first_date !== null && account.first_date > '2025-10-18'))
      const recent = await walk({ since: '2026-10-24', until: DEMO.until as string })
      assert.deepEqual(recent, expectedStatus(RECORDS, '2026-10-24', DEMO.until as string))
    })

    it('shows brand 4\'s Facebook account missing 2026-11-04, the day of the issue\'s cliff', async () => {
      const page = await api.get<DataStatusPage>('/data-status', { brand_id: '4', platform: 'fb', since: '2026-11-01', until: '2026-11-07' })
      assert.equal(page.status, 200)
      const [facebook] = page.body.data
      assert.deepEqual([facebook?.days_expected, facebook?.days_reported, facebook?.missing], [7, 6, [{ since: '2026-11-04', until: '2026-11-04' }]])
      // The daily page of that brand has no Facebook day behind 2026-11-04, and include=status says so.
      const daily = await api.analytics({ brand_id: '4', since: '2026-11-03', until: '2026-11-05', include: 'status' })
      assert.deepEqual(daily.body.data.map((entry) => {
        const status = entry as unknown as { date: string, accounts_expected: number, accounts_reported: number }
        return [status.date, status.accounts_expected, status.accounts_reported]
      }), [['2026-11-05', 3, 3], ['2026-11-04', 3, 2], ['2026-11-03', 3, 3]])
    })
  })
}
