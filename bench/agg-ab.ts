/**
 * `npm run bench:agg-ab -- URL_A URL_B [--rounds N]`: the agg statement's time on two PostgreSQL
 * databases holding the same imported data, taking turns (A then B, then B then A), one connection
 * each — to tell whether something that changes plans (statistics, an index, a setting) changes
 * what the agg read costs, without the HTTP, cache and load-generator noise of the reference
 * harness. Two questions: the reference harness's agg365 (brand 1, 2025-11-01 … 2026-10-31) and
 * its aggv (a random brand of 1..100 and a random 90–365-day window ending by 2026-10-31, the same
 * seeded sequence on both sides). The first 50 rounds of each are not counted. Read-only.
 */
import { parseArgs } from 'node:util'
import pg from 'pg'
import { addDays } from '../src/domain/dates.js'
import { aggStatement, periodValues } from '../src/storage/queries/brand-reports.query.js'
import { positiveOption } from './support.js'

const { values: options, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '2000' } } })
if (positionals.length !== 2) {
  console.error('usage: npm run bench:agg-ab -- URL_A URL_B [--rounds N]')
  process.exit(2)
}
const rounds = positiveOption('rounds', options.rounds)
const WARM_UP = 50
const statement = aggStatement('postgres')

/** A small seeded generator, so both sides (and every run) get the same questions. */
function seeded (seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

function question (varied: boolean, random: () => number): Record<string, unknown> {
  if (!varied) return periodValues([1], { since: '2025-11-01', until: '2026-10-31' })
  const brand = 1 + Math.floor(random() * 100)
  const days = 90 + Math.floor(random() * 276)
  const until = addDays('2026-10-31', -Math.floor(random() * (366 - days)))
  return periodValues([brand], { since: addDays(until, -(days - 1)), until })
}

function summary (times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (fraction: number): string => (sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0).toFixed(2)
  const mean = sorted.reduce((sum, time) => sum + time, 0) / sorted.length
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, mean ${mean.toFixed(2)} ms`
}

const sides = positionals.map((url) => new pg.Pool({ connectionString: url, max: 1 }))
try {
  for (const varied of [false, true]) {
    const random = seeded(7)
    const times: number[][] = sides.map(() => [])
    for (let round = 0; round < rounds + WARM_UP; round++) {
      const values = question(varied, random)
      const query = { name: statement.name, text: statement.text, values: statement.parameters.map((name) => values[name]) }
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const started = process.hrtime.bigint()
        await sides[side]?.query(query)
        if (round >= WARM_UP) times[side]?.push(Number(process.hrtime.bigint() - started) / 1e6)
      }
    }
    const [a, b] = times as [number[], number[]]
    const mean = (list: number[]): number => list.reduce((sum, time) => sum + time, 0) / list.length
    console.log(`${varied ? 'aggv  ' : 'agg365'}  A: ${summary(a)}  |  B: ${summary(b)}  |  B ÷ A mean ${(mean(b) / mean(a)).toFixed(3)}`)
  }
} finally {
  await Promise.all(sides.map(async (pool) => { await pool.end() }))
}
