import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { addDays, utcToday } from '../../src/domain/dates.js'
import { inOneClockWindow } from '../helpers/redis.js'
import { generateDemoRecords } from '../../src/services/demo/generator.js'
import type { DailyRecord, DemoRecord } from '../../src/services/demo/records.js'
import { demoSource } from '../../src/services/demo/source.js'
import { importSources } from '../../src/services/import/import.service.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

interface DemoJson {
  brands: number
  days: number
  seed: number
  until: string
  out: string | null
  counts: { brand: number, account: number, daily: number, post: number }
  records: number
  bytes?: number
}

function countByKind (records: Iterable<DemoRecord>): Record<string, number> {
  const counts: Record<string, number> = { brand: 0, account: 0, daily: 0, post: 0 }
  for (const record of records) counts[record.kind] = (counts[record.kind] ?? 0) + 1
  return counts
}

async function tableCounts (t: TestStore): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ['brands', 'accounts', 'daily_metrics', 'posts'] as const) {
    const row = await t.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: demo data through the import`, () => {
    let t: TestStore
    let dir: string
    before(async () => {
      t = await createTestStore(dialect)
      dir = mkdtempSync(join(tmpdir(), 'pa-demo-'))
    })
    after(async () => {
      await t.cleanup()
      rmSync(dir, { recursive: true, force: true })
    })

    it('passes import validation for every record, for several seeds (dry run writes nothing)', async () => {
      for (const options of [{ brands: 8, days: 400, seed: 42, until: '2026-11-21' }, { brands: 24, days: 60, seed: 1, until: '2024-02-29' }, { brands: 9, days: 90, seed: 999, until: '2025-12-31' }]) {
        const errors: string[] = []
        const summary = await importSources(t.store, [demoSource(options)], { dryRun: true, onError: (message) => errors.push(message) })
        assert.deepEqual(errors, [])
        assert.deepEqual(summary.counts, countByKind(generateDemoRecords(options)))
        assert.equal(summary.dryRun, true)
      }
      assert.deepEqual(await tableCounts(t), { brands: 0, accounts: 0, daily_metrics: 0, posts: 0 })
    })

    it('`demo` imports into the configured database, and running it again replaces the same rows', async () => {
      const argv = ['demo', '--brands', '3', '--days', '45', '--seed', '7', '--until', '2026-06-30', '--json']
      const run = await runCliCaptured(argv, { DATABASE_URL: t.databaseUrl })
      assert.equal(run.code, 0, run.stderr)
      const json = run.json<DemoJson>()
      assert.deepEqual({ ...json.counts }, countByKind(generateDemoRecords({ brands: 3, days: 45, seed: 7, until: '2026-06-30' })))
      assert.deepEqual([json.brands, json.days, json.seed, json.until, json.out], [3, 45, 7, '2026-06-30', null])
      assert.match(run.stderr, /^Imported \d+ records \(3 brands, 10 accounts, \d+ daily rows, \d+ posts\)/m)
      const first = await tableCounts(t)
      assert.deepEqual(first, { brands: 3, accounts: 10, daily_metrics: json.counts.daily, posts: json.counts.post })

      const again = await runCliCaptured(argv, { DATABASE_URL: t.databaseUrl })
      assert.equal(again.code, 0, again.stderr)
      assert.deepEqual(await tableCounts(t), first)

      // Values arrive as generated: revenue in micro-units, nulls as nulls.
      const sample = [...generateDemoRecords({ brands: 3, days: 45, seed: 7, until: '2026-06-30' })]
        .find((r): r is DailyRecord => r.kind === 'daily' && r.revenue !== null && r.revenue > 0) as DailyRecord
      const row = await t.store.db.selectFrom('daily_metrics').selectAll()
        .where('platform', '=', sample.platform).where('account_id', '=', sample.account_id).where('date', '=', sample.date)
        .executeTakeFirstOrThrow()
      assert.equal(row.revenue_micros, Math.round((sample.revenue as number) * 100) * 10_000)
      assert.equal(row.views, sample.views)
      assert.equal(row.followers, sample.followers)
    })

    it('`demo --out` writes the same NDJSON every time, and `import` accepts it', async () => {
      const file = join(dir, `demo-${dialect}.ndjson`)
      const argv = ['demo', '--brands', '2', '--days', '30', '--seed', '11', '--until', '2026-01-31', '--out', file, '--json']
      const run = await runCliCaptured(argv, { DATABASE_URL: t.databaseUrl })
      assert.equal(run.code, 0, run.stderr)
      const json = run.json<DemoJson>()
      const text = readFileSync(file, 'utf8')
      const lines = text.split('\n')
      assert.equal(lines.pop(), '')
      assert.equal(lines.length, json.records)
      assert.equal(Buffer.byteLength(text), json.bytes)
      assert.deepEqual(lines.map((line) => JSON.parse(line) as unknown), [...generateDemoRecords({ brands: 2, days: 30, seed: 11, until: '2026-01-31' })])
      assert.deepEqual(Object.keys(JSON.parse(lines[0] as string) as object), ['kind', 'brand_id', 'brand_name'])

      const rerun = await runCliCaptured(argv, { DATABASE_URL: t.databaseUrl })
      assert.equal(rerun.code, 0)
      assert.equal(readFileSync(file, 'utf8'), text)

      const imported = await runCliCaptured(['import', file, '--json'], { DATABASE_URL: t.databaseUrl })
      assert.equal(imported.code, 0, imported.stderr)
      assert.deepEqual(imported.json<{ counts: unknown }>().counts, json.counts)
    })

    it('counts in the singular where there is one: "1 brand, 1 day"', async () => {
      const file = join(dir, `one-${dialect}.ndjson`)
      const run = await runCliCaptured(['demo', '--brands', '1', '--days', '1', '--seed', '3', '--until', '2026-01-31', '--out', file], { DATABASE_URL: t.databaseUrl })
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stderr, /^Wrote \d+ records \(1 brand, \d+ accounts?, \d+ daily rows?, \d+ posts?\) to .* \(seed 3, 1 brand, 1 day to 2026-01-31\)\.$/m)
    })

    it('refuses bad options with exit 2 and names the option', async () => {
      // The command reads its own clock: the test's "tomorrow" is the command's only if no
      // midnight falls between them. A run a midnight fell in (a command's start can take long on
      // a busy machine) is run again in the new day (test/helpers/redis.ts).
      await inOneClockWindow(86_400_000, 30_000, async () => {
        const today = utcToday()
        const tomorrow = addDays(today, 1)
        const run = await runCliCaptured(['demo', '--until', tomorrow], { DATABASE_URL: t.databaseUrl })
        assert.equal(run.code, 2, `--until ${tomorrow}: ${run.stderr}`)
        assert.match(run.stderr, new RegExp(`--until.*expected today \\(${today}\\) or an earlier day, got "${tomorrow}"`))
      })
      for (const [args, pattern] of [
        [['--until', '2026-02-30'], /--until.*expected a date YYYY-MM-DD, got "2026-02-30"/],
        [['--brands', '0'], /--brands must be an integer from 1 to/],
        [['--days', '3661'], /--days must be an integer from 1 to 3660/],
        [['--seed', '-3'], /--seed/],
      ] as const) {
        const run = await runCliCaptured(['demo', ...args], { DATABASE_URL: t.databaseUrl })
        assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
        assert.match(run.stderr, pattern)
      }
    })

    it('reports an unwritable --out path in one line, exit 1', async () => {
      const run = await runCliCaptured(['demo', '--brands', '1', '--days', '1', '--out', join(dir, 'missing', 'x.ndjson')], { DATABASE_URL: t.databaseUrl })
      assert.equal(run.code, 1)
      assert.match(run.stderr, /^error: ENOENT: no such file or directory/m)
      assert.doesNotMatch(run.stderr, /\n\s+at /)
    })
  })
}
