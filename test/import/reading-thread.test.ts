import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { fileSource } from '../../src/services/import/file-source.js'
import { ImportRejectedError, importSources, type ImportSummary } from '../../src/services/import/import.service.js'
import type { RecordSource } from '../../src/services/import/source.js'
import type { Store } from '../../src/storage/db.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { ndjson, tempFiles, type TempFiles } from './import-helpers.js'

/**
 * Files are read in a thread of their own that hands daily records over as columns
 * (src/services/import/scan-in-worker.ts); any other source is read in the import's own thread,
 * record by record. Both must store the same rows, read model and events, and list the same
 * errors: the same files imported both ways, into two fresh stores, compared table by table.
 */

const PLATFORMS = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi'] as const
/** Platform-specific metrics each platform takes here (a subset of src/domain/metrics.ts). */
const EXTRA: Record<string, string[]> = { fb: ['reach', 'video_views_3s', 'link_clicks'], ig: ['reach', 'ad_reach'], pi: ['video_views_2s', 'impressions'], tk: ['views_video'] }

function dayOf (index: number): string {
  return new Date(Date.UTC(2026, 0, 1 + index)).toISOString().slice(0, 10)
}

/** 18 accounts over 2 brands, 400 days each (7,200 daily rows: two columns' batches), posts in between, a repeated key. */
function firstFile (): string {
  const records: unknown[] = [{ kind: 'brand', brand_id: 1, brand_name: 'One' }, { kind: 'brand', brand_id: 2, brand_name: 'Two' }]
  for (let id = 1; id <= 18; id += 1) {
    const platform = PLATFORMS[(id - 1) % PLATFORMS.length] as string
    records.push({ kind: 'account', platform, account_id: id, brand_id: id <= 9 ? 1 : 2, account_name: `Account ${id}` })
    for (let day = 0; day < 400; day += 1) {
      const record: Record<string, unknown> = { kind: 'daily', platform, account_id: id, date: dayOf(day), views: id * 1000 + day, followers: day % 7 === 0 ? null : 50_000 + id * 10 + day }
      if (day % 3 !== 0) record.revenue = (id * 7 + day) / 100
      if (day % 5 !== 0) record.interactions = day
      if (day % 4 !== 0) record.new_followers = day % 11
      record.posts_count = day % 3
      for (const metric of EXTRA[platform] ?? []) record[metric] = id + day * 2
      records.push(record)
      if (day % 97 === 0) records.push({ kind: 'post', platform, account_id: id, id: `p-${id}-${day}`, created_time: `${dayOf(day)}T10:00:00Z`, type: 'video', views: day })
    }
  }
  // The same key again, later: the last one given wins.
  records.push({ kind: 'daily', platform: 'fb', account_id: 1, date: dayOf(10), views: 1, followers: 2, revenue: 0.5 })
  return ndjson(...records)
}

/** A second import: some rows changed, some identical, one account moved, a few new days. */
function secondFile (): string {
  const records: unknown[] = [{ kind: 'account', platform: 'ig', account_id: 2, brand_id: 2, account_name: 'Account 2 moved' }]
  for (let day = 395; day < 410; day += 1) records.push({ kind: 'daily', platform: 'tk', account_id: 3, date: dayOf(day), views: 5, reach: null })
  records.push({ kind: 'daily', platform: 'fb', account_id: 1, date: dayOf(10), views: 1, followers: 2, revenue: 0.5 })
  return ndjson(...records)
}

/** The file as a source without a path: read in the import's own thread. */
function inThisThread (path: string): RecordSource {
  const file = fileSource(path)
  return { name: file.name, read: file.read }
}

/** Every row of a table, keys first, as text; ISO times (stamps of this run) blanked. */
async function rowsOf (store: Store, table: string, order: string): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(store.db)
  return rows.map((row) => JSON.stringify(row, (_key, value: unknown) => typeof value === 'bigint' ? Number(value) : value instanceof Date ? value.toISOString().slice(0, 10) : value)
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, 'T'))
}

const TABLES: Array<[string, string]> = [
  ['brands', 'brand_id'], ['accounts', 'platform, account_id'], ['daily_metrics', 'platform, account_id, date'], ['posts', 'platform, id'],
  ['brand_daily', 'brand_id, date'], ['brand_monthly', 'brand_id, month'], ['account_monthly', 'platform, account_id, month'],
  ['account_coverage', 'platform, account_id'], ['change_events', 'created_at, event_id'],
]

interface Outcome { summary?: ImportSummary, errors: string[] }

async function run (store: Store, sources: RecordSource[]): Promise<Outcome> {
  const errors: string[] = []
  try {
    return { summary: await importSources(store, sources, { onError: (message) => errors.push(message) }), errors }
  } catch (error) {
    if (!(error instanceof ImportRejectedError)) throw error
    return { errors }
  }
}

for (const dialect of DIALECTS) {
  describe(`the import's reading thread against reading in its own (${dialect})`, () => {
    let threaded: TestStore
    let inline: TestStore
    let files: TempFiles
    before(async () => {
      threaded = await createTestStore(dialect)
      inline = await createTestStore(dialect)
      files = tempFiles()
    })
    after(async () => {
      await threaded.cleanup()
      await inline.cleanup()
      files.cleanup()
    })

    it('stores the same rows, read model, coverage and events, and reports the same sync, import after import', async () => {
      const first = files.write('first.ndjson', firstFile())
      const second = files.write('second.ndjson', secondFile())
      // The first file again, after the second: its changed rows change back, the rest is identical.
      for (const path of [first, second, first]) {
        const a = await run(threaded.store, [fileSource(path)])
        const b = await run(inline.store, [inThisThread(path)])
        assert.deepEqual(a.errors, [], `the threaded import of ${path} was refused: ${a.errors.join('; ')}`)
        assert.deepEqual(b.errors, [])
        assert.deepEqual(a.summary?.counts, b.summary?.counts)
        assert.deepEqual(a.summary?.sync?.counts, b.summary?.sync?.counts, `the syncs of ${path} differ`)
        for (const [table, order] of TABLES) {
          const threadedRows = await rowsOf(threaded.store, table, order)
          const inlineRows = await rowsOf(inline.store, table, order)
          assert.ok(threadedRows.length > 0 || table === 'posts', `${table} is empty after ${path}`)
          assert.deepEqual(threadedRows, inlineRows, `${table} differs after ${path}`)
        }
      }
    })

    it('lists the same errors in the same order, and writes nothing', async () => {
      const bad = files.write('bad.ndjson', firstFile().replace('"account_id":5,"date":"2026-01-03"', '"account_id":5,"date":"2026-02-30"') +
        ndjson({ kind: 'daily', platform: 'fb', account_id: 99, date: '2026-01-01' }, { kind: 'daily', platform: 'fb', account_id: 1, date: '2026-01-01', views: -1 }) + '{oops\n')
      const before = await rowsOf(threaded.store, 'daily_metrics', 'platform, account_id, date')
      const a = await run(threaded.store, [fileSource(bad)])
      const b = await run(inline.store, [inThisThread(bad)])
      assert.equal(a.errors.length, 4, `expected the four errors, saw ${a.errors.join('; ')}`)
      assert.deepEqual(a.errors, b.errors)
      assert.deepEqual(await rowsOf(threaded.store, 'daily_metrics', 'platform, account_id, date'), before)
    })
  })
}
