import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { countRows, importFiles, tempFiles, type TempFiles } from './import-helpers.js'

/**
 * The import parser against garbage (issue 11, property-based, on both stores): files made of valid
 * records with invalid lines slipped in at random places — text that is not JSON, JSON that is
 * not an object, records of unknown kinds, records with one field of the wrong type or value
 * (NUL characters, signs, decimals, dates outside the calendar, unknown platforms) — are rejected
 * with every invalid line, and only those, named as `FILE:LINE: message`; nothing is written; no
 * value reaches a store that would refuse it (PostgreSQL refused a NUL in a name with a raw error).
 */

const RUNS = 60

const VALID = {
  brand: { kind: 'brand', brand_id: 1, brand_name: 'Acme' },
  account: { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'Acme FB', network_id: 'n-10' },
  daily: { kind: 'daily', platform: 'fb', account_id: 10, date: '2026-11-01', views: 10, followers: 5, revenue: 1.25 },
  post: { kind: 'post', id: 'p-1', platform: 'fb', account_id: 10, created_time: '2026-11-01T10:30:00Z', type: 'REELS', title: 'Hello', views: 3 },
} as const

type Kind = keyof typeof VALID

/** A string with no line break (readline would split it into two lines). */
const oneLine = (options: Parameters<typeof fc.string>[0] = {}) => fc.string(options).map((text) => text.replace(/[\r\n\u2028\u2029]/g, ' '))

const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Values no field of that kind accepts. */
const BAD_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  brand_id: fc.constantFrom(0, -1, 1.5, '1', null, true, [], {}, 2 ** 53, 'NaN'),
  account_id: fc.constantFrom(0, -10, 10.5, '10', null, false, [10], 2 ** 60),
  brand_name: fc.oneof(fc.constantFrom('', '   ', null, 5, [], 'A\u0000B', '\u0000', 'A\ud800', '\udc00B'), oneLine().map((text) => `${text}\u0000`)),
  account_name: fc.constantFrom('', null, 1, { a: 1 }, 'x\u0000'),
  platform: fc.oneof(fc.constantFrom('', 'fbx', 'FaceBook!', null, 1, 'twitter'), oneLine({ maxLength: 12 }).filter((text) => !/^(fb|ig|tk|yt|li|th|sc|da|pi|facebook|instagram|tiktok|youtube|linkedin|threads|snapchat|dailymotion|pinterest)$/i.test(text.trim()))),
  date: fc.oneof(fc.constantFrom('2026-02-30', '0000-12-31', '10000-01-01', '2026-1-1', '20261101', '', null, 20261101, '2026-11-01T00:00:00Z'), oneLine({ maxLength: 12 }).filter((text) => !/^\d{4}-\d{2}-\d{2}$/.test(text))),
  views: fc.constantFrom(-1, 1.5, '10', true, [], {}, 'NaN', 2 ** 53),
  revenue: fc.constantFrom(-0.01, '1.25', 1.0000001, true, [], 1e300),
  id: fc.constantFrom('', null, 7, '\u0000', 'id\u0000', 'id\ud83d'),
  created_time: fc.constantFrom('2026-11-01', '2026-11-01 10:30:00', '2026-13-01T00:00:00Z', '', null, 0, '10000-01-01T00:00:00Z'),
  title: fc.constantFrom(5, [], { t: 1 }, 'T\u0000', true, '\ude00T'),
  network_id: fc.constantFrom(5, [], 'n\u0000'),
}

const FIELDS_BY_KIND: Record<Kind, string[]> = {
  brand: ['brand_id', 'brand_name'],
  account: ['platform', 'account_id', 'brand_id', 'account_name', 'network_id'],
  daily: ['platform', 'account_id', 'date', 'views', 'revenue'],
  post: ['id', 'platform', 'account_id', 'created_time', 'title', 'views'],
}

/** One line no import may accept. */
const garbageLine: fc.Arbitrary<string> = fc.oneof(
  // Not JSON (and not blank: blank lines carry no record).
  oneLine({ minLength: 1, maxLength: 80 }).filter((text) => text.trim() !== '' && !parses(text)),
  fc.constantFrom('{', '{"kind":"brand"', "{'kind':'brand'}", '{"kind":"brand","brand_id":1,}', 'NaN', 'undefined', '\u0000', '{"kind":"brand","brand_id":1,"brand_name":"A"}x'),
  // JSON, but not an object.
  fc.oneof(fc.integer(), oneLine(), fc.array(fc.integer(), { maxLength: 3 }), fc.constant(null), fc.boolean()).map((value) => JSON.stringify(value)),
  // An object of no known kind.
  fc.record({ kind: fc.oneof(oneLine({ maxLength: 10 }).filter((kind) => !(kind in VALID)), fc.integer(), fc.constant(null)) }).map((record) => JSON.stringify(record)),
  fc.constant(JSON.stringify({ brand_id: 1, brand_name: 'No kind' })),
  // A known kind with one field broken.
  fc.constantFrom(...(Object.keys(VALID) as Kind[])).chain((kind) => fc.constantFrom(...FIELDS_BY_KIND[kind]).chain((field) =>
    (BAD_VALUES[field] as fc.Arbitrary<unknown>).map((value) => JSON.stringify({ ...VALID[kind], [field]: value }))),
  ),
)

for (const dialect of DIALECTS) {
  describe(`import of garbage NDJSON and CSV (${dialect}, property-based)`, () => {
    let test: TestStore
    let files: TempFiles
    let file = 0

    before(async () => {
      test = await createTestStore(dialect)
      files = tempFiles()
    })
    after(async () => {
      await test.cleanup()
      files.cleanup()
    })

    it(`NDJSON: every invalid line, and only those, is reported with its number; nothing is written (${RUNS} files)`, async () => {
      await fc.assert(fc.asyncProperty(
        fc.array(garbageLine, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        async (garbage, positions) => {
          const lines: Array<{ text: string, bad: boolean }> = [VALID.brand, VALID.account, VALID.daily, VALID.post].map((record) => ({ text: JSON.stringify(record), bad: false }))
          garbage.forEach((text, i) => lines.splice((positions[i] ?? 0) % (lines.length + 1), 0, { text, bad: true }))
          file += 1
          const path = files.write(`garbage-${file}.ndjson`, lines.map((line) => line.text).join('\n') + '\n')
          const outcome = await importFiles(test.store, [path])
          const expected = lines.flatMap((line, i) => line.bad ? [i + 1] : [])
          assert.equal(outcome.summary, undefined, `accepted: ${JSON.stringify(lines)}`)
          const reported = outcome.errors.map((error) => {
            const match = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+): \\S`).exec(error)
            assert.ok(match !== null, `not FILE:LINE: message: ${error}`)
            return Number(match[1])
          })
          assert.deepEqual([...new Set(reported)].sort((a, b) => a - b), expected, `${JSON.stringify(lines)} → ${JSON.stringify(outcome.errors)}`)
          assert.deepEqual(await countRows(test.store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
        },
      ), { numRuns: RUNS })
    })

    it(`CSV: every invalid row, and only those, is reported with its line; nothing is written (${RUNS} files)`, async () => {
      // The accounts the rows refer to exist, so only the garbage can be wrong.
      const accounts = files.write('accounts.ndjson', `${JSON.stringify(VALID.brand)}\n${JSON.stringify(VALID.account)}\n`)
      assert.deepEqual((await importFiles(test.store, [accounts])).errors, [])
      const cell = oneLine({ maxLength: 12 }).map((text) => text.replace(/[",]/g, ''))
      const badRow = fc.oneof(
        // No quote characters: an unclosed quote makes the rest of the file one cell (tested below).
        (BAD_VALUES.platform as fc.Arbitrary<unknown>).map((platform) => String(platform ?? '').replace(/[",]/g, '')).filter((platform) => !/^(fb|ig|tk|yt|li|th|sc|da|pi|facebook|instagram|tiktok|youtube|linkedin|threads|snapchat|dailymotion|pinterest)$/i.test(platform.trim())).map((platform) => `${platform},10,2026-11-01,1`),
        fc.constantFrom('0', '-10', '10.5', '1e3', 'x', '').map((id) => `fb,${id},2026-11-01,1`),
        (BAD_VALUES.date as fc.Arbitrary<unknown>).filter((date) => typeof date === 'string' && !/[",\r\n]/.test(date)).map((date) => `fb,10,${String(date)},1`),
        fc.constantFrom('-1', '1.5', '1e-2', 'ten', '0x10', '1\u0000', '+1', '9007199254740993').map((views) => `fb,10,2026-11-02,${views}`),
        fc.array(cell, { minLength: 5, maxLength: 7 }).map((cells) => cells.join(',')),
        fc.constant('fb,10'),
      )
      await fc.assert(fc.asyncProperty(
        fc.array(badRow, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
        async (garbage, positions) => {
          const rows: Array<{ text: string, bad: boolean }> = [{ text: 'fb,10,2026-11-03,7', bad: false }, { text: 'facebook,10,2026-11-04,', bad: false }]
          garbage.forEach((text, i) => rows.splice((positions[i] ?? 0) % (rows.length + 1), 0, { text, bad: true }))
          file += 1
          const path = files.write(`garbage-${file}.csv`, ['platform,account_id,date,views', ...rows.map((row) => row.text)].join('\n') + '\n')
          const before = await countRows(test.store)
          const outcome = await importFiles(test.store, [path])
          assert.equal(outcome.summary, undefined, `accepted: ${JSON.stringify(rows)}`)
          // Line 1 is the header.
          const expected = rows.flatMap((row, i) => row.bad ? [i + 2] : [])
          const reported = outcome.errors.map((error) => Number(/:(\d+): \S/.exec(error.slice(path.length))?.[1]))
          assert.ok(outcome.errors.every((error) => error.startsWith(`${path}:`)), JSON.stringify(outcome.errors))
          assert.deepEqual([...new Set(reported)].sort((a, b) => a - b), expected, `${JSON.stringify(rows)} → ${JSON.stringify(outcome.errors)}`)
          assert.deepEqual(await countRows(test.store), before)
        },
      ), { numRuns: RUNS })
    })

    it('CSV: a quote never closed is reported on the line it opens (RFC 4180 makes the rest of the file its cell)', async () => {
      const before = await countRows(test.store)
      file += 1
      const path = files.write(`quote-${file}.csv`, 'platform,account_id,date,views\nfb,10,2026-11-05,1\nfb,"10,2026-11-06,1\nfb,10,2026-11-07,1\n')
      const outcome = await importFiles(test.store, [path])
      assert.deepEqual(outcome.errors, [`${path}:3: invalid CSV: a quoted cell opened on this line is never closed`])
      assert.deepEqual(await countRows(test.store), before)
    })
  })
}
