/**
 * `npm run bench:explain -- DATABASE_URL`: the plans of the hot report statements on an imported
 * store — SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN (ANALYZE, BUFFERS)` of one warm run —
 * with the values of the reference benchmark's fixed queries (brand 1; a week; a year). Read-only.
 * The plans recorded in docs/benchmarks.md come from this script.
 */
import { aggStatement, dailyPageStatement, monthlyStatement, periodValues, type Statement } from '../src/storage/queries/brand-reports.query.js'
import { parseDatabaseUrl } from '../src/config/load.js'
import { createStore } from '../src/storage/db.js'

const url = process.argv[2] ?? process.env.DATABASE_URL
if (url === undefined) {
  console.error('usage: npm run bench:explain -- DATABASE_URL')
  process.exit(2)
}

const week = { since: '2026-10-25', until: '2026-10-31' }
const year = { since: '2025-11-01', until: '2026-10-31' }
const hundred = Array.from({ length: 100 }, (_, index) => index + 1)

async function main (): Promise<void> {
  const config = parseDatabaseUrl(url as string)
  if (typeof config === 'string') {
    console.error(config)
    process.exit(2)
  }
  const store = createStore(config)
  const cases: Array<{ label: string, statement: Statement, values: Record<string, unknown> }> = [
    { label: 'daily page, 1 brand, 7 days (rendered entries)', statement: dailyPageStatement(store.dialect, 'one', false, 'rendered'), values: { brand: 1, ...week } },
    { label: 'agg, 1 brand, 2026-01-15 … 2026-09-20 (partial months at both edges)', statement: aggStatement(store.dialect, 'one'), values: periodValues([1], { since: '2026-01-15', until: '2026-09-20' }) },
    { label: 'monthly, 100 brands, 365 days', statement: monthlyStatement(store.dialect), values: periodValues(hundred, year) },
  ]
  try {
    for (const { label, statement, values } of cases) {
      console.log(`\n### ${label} (${store.dialect})\n`)
      if (store.dialect === 'sqlite') {
        const bound = Object.fromEntries(statement.parameters.map((name) => [name, Array.isArray(values[name]) ? JSON.stringify(values[name]) : values[name]]))
        const plan = store.sqlite.prepare(`explain query plan ${statement.text}`).all(bound) as Array<{ id: number, parent: number, detail: string }>
        const depth = new Map<number, number>([[0, -1]])
        for (const row of plan) {
          const level = (depth.get(row.parent) ?? -1) + 1
          depth.set(row.id, level)
          console.log(`${'  '.repeat(level)}${row.detail}`)
        }
      } else {
        const parameters = statement.parameters.map((name) => values[name])
        await store.pool.query(statement.text, parameters)
        const plan = await store.pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${statement.text}`, parameters)
        for (const row of plan.rows) console.log(row['QUERY PLAN'])
      }
    }
  } finally {
    await store.destroy()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
