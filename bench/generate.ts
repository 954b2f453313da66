/**
 * `npm run bench:generate -- --brands N --accounts-per-brand K --days D [--end YYYY-MM-DD] [--seed S] --out FILE`
 *
 * Writes an NDJSON import file (docs/import.md) of a given scale, deterministically: the same
 * options give the same file, byte for byte. Records, in an order the import takes in one pass:
 *
 *   - brands 1..N (`{"kind":"brand","brand_id":b,"brand_name":"Bench brand b"}`);
 *   - K accounts per brand, account ids 1..N×K (brand b owns (b−1)×K+1 … b×K), platforms taken
 *     in turn from the nine (account id − 1 modulo 9), so every brand has every platform when
 *     K ≥ 9;
 *   - one daily record per account per day, the D days ending at --end (default 2026-10-31),
 *     account after account, each in date order.
 *
 * Metrics are plausible rather than realistic: each account has its own seeded generator
 * (src/services/demo/random.ts, seeded from --seed and the account id, so an account's rows do
 * not depend on the others), a log-uniform audience that grows by its new followers every day,
 * views proportional to it with a weekly rhythm and noise, interactions a few per cent of views
 * split into likes, comments and shares, a few posts a day, revenue on fb, yt, tk, sc and da
 * (an RPM of a few units, two decimals). Only the platform-specific fields the platform reports
 * are written (src/domain/metrics.ts), every one of them filled.
 *
 * It streams: one account's rows at a time, written in chunks with back-pressure, so memory
 * stays flat at any scale (scale M, 1000 × 10 × 730 = 7.3 M daily rows, ~1.9 GB). A summary goes
 * to stderr at the end (records, bytes, seconds).
 *
 * Examples:
 *   npm run bench:generate -- --brands 100 --accounts-per-brand 10 --days 365 --end 2026-10-31 --out /tmp/pa-s/s.ndjson
 *   npm run bench:generate -- --brands 1000 --accounts-per-brand 10 --days 730 --out /tmp/pa-m/m.ndjson
 */
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { parseArgs } from 'node:util'
import { addDays, isCalendarDate, weekdayOf } from '../src/domain/dates.js'
import { platformMetricsOf, type PlatformMetric } from '../src/domain/metrics.js'
import { PLATFORM_CODES, type PlatformCode } from '../src/domain/platforms.js'
import { Random } from '../src/services/demo/random.js'
import { positiveOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    brands: { type: 'string' },
    'accounts-per-brand': { type: 'string' },
    days: { type: 'string' },
    end: { type: 'string', default: '2026-10-31' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
})

function required (name: string, value: string | undefined): string {
  if (value === undefined) {
    console.error(`--${name} is required\nusage: npm run bench:generate -- --brands N --accounts-per-brand K --days D [--end YYYY-MM-DD] [--seed S] --out FILE`)
    process.exit(2)
  }
  return value
}

const BRANDS = positiveOption('brands', required('brands', args.brands))
const ACCOUNTS_PER_BRAND = positiveOption('accounts-per-brand', required('accounts-per-brand', args['accounts-per-brand']))
const DAYS = positiveOption('days', required('days', args.days))
const SEED = args.seed
const OUT = required('out', args.out)
const END = args.end
if (!isCalendarDate(END) || END < '2000-01-01') {
  console.error(`--end must be a date YYYY-MM-DD from 2000-01-01 (got "${END}")`)
  process.exit(2)
}

/** Platforms whose daily rows carry revenue here. */
const MONETISED = new Set<PlatformCode>(['fb', 'yt', 'tk', 'sc', 'da'])
/** Views relative to followers, per platform (video platforms see more than their audience). */
const VIEW_RATE: Record<PlatformCode, number> = { fb: 0.25, ig: 0.35, tk: 1.2, yt: 0.8, li: 0.08, th: 0.15, sc: 0.5, da: 0.6, pi: 0.3 }
/** Weekly rhythm, Sunday first (weekdayOf: 0 = Sunday). */
const WEEKDAY_FACTOR = [0.85, 1.05, 1.08, 1.06, 1.04, 0.98, 0.88]

const dates = Array.from({ length: DAYS }, (_, i) => addDays(END, i - DAYS + 1))
const weekdayFactors = dates.map((date) => WEEKDAY_FACTOR[weekdayOf(date)] ?? 1)

/** The metric of a platform-specific field, derived from the day's core figures. */
function platformValue (metric: PlatformMetric, day: { views: number, interactions: number, rng: Random }): number {
  const { views, interactions, rng } = day
  switch (metric) {
    case 'video_views_3s': return Math.round(views * 0.45 * rng.noise(0.1))
    case 'video_views_2s': return Math.round(views * 0.5 * rng.noise(0.1))
    case 'views_video': return Math.round(views * 0.55 * rng.noise(0.1))
    case 'reach': return Math.round(views * 0.7 * rng.noise(0.05))
    case 'impressions': return Math.round(views * 1.4 * rng.noise(0.05))
    case 'ad_reach': return Math.round(views * 0.12 * rng.noise(0.3))
    case 'likes': return Math.round(interactions * 0.75)
    case 'comments': return Math.round(interactions * 0.1)
    case 'shares': return Math.round(interactions * 0.08)
    case 'views_organic': return Math.round(views * 0.4 * rng.noise(0.1))
    case 'views_paid': return Math.round(views * 0.1 * rng.noise(0.4))
    case 'link_clicks': return Math.round(views * 0.006 * rng.noise(0.3))
  }
}

/** One account's daily lines, in date order. */
function * accountLines (accountId: number, platform: PlatformCode): Generator<string> {
  const rng = new Random(`bench:${SEED}:${accountId}`)
  const extras = platformMetricsOf(platform)
  let followers = Math.round(rng.logBetween(500, 2_000_000))
  const viewRate = VIEW_RATE[platform] * rng.between(0.4, 1.6)
  const engagement = rng.between(0.01, 0.06)
  const growth = rng.between(0.0002, 0.002)
  const postsPerDay = rng.between(0.3, 3)
  const rpm = MONETISED.has(platform) ? rng.between(0.5, 6) : 0
  for (let i = 0; i < DAYS; i++) {
    const postsCount = rng.poisson(postsPerDay)
    const views = Math.round(followers * viewRate * (weekdayFactors[i] ?? 1) * (0.7 + 0.15 * postsCount) * rng.noise(0.3))
    const interactions = Math.round(views * engagement * rng.noise(0.25))
    const newFollowers = rng.poisson(Math.max(0.5, followers * growth * rng.noise(0.4)))
    followers += newFollowers
    let line = `{"kind":"daily","platform":"${platform}","account_id":${accountId},"date":"${dates[i] ?? ''}","views":${views}`
    if (rpm > 0) line += `,"revenue":${Math.round(views * rpm / 10) / 100}`
    line += `,"followers":${followers},"new_followers":${newFollowers},"posts_count":${postsCount},"interactions":${interactions}`
    for (const metric of extras) line += `,"${metric}":${platformValue(metric, { views, interactions, rng })}`
    yield line + '}'
  }
}

async function main (): Promise<void> {
  const started = performance.now()
  const out = createWriteStream(OUT)
  let failure: Error | undefined
  out.on('error', (error) => { failure = error })
  let chunk: string[] = []
  let records = 0
  const flush = async (): Promise<void> => {
    if (failure !== undefined) throw failure
    if (chunk.length === 0) return
    const text = chunk.join('\n') + '\n'
    chunk = []
    if (!out.write(text)) await once(out, 'drain')
  }
  const push = async (line: string): Promise<void> => {
    chunk.push(line)
    records++
    if (chunk.length >= 4096) await flush()
  }

  for (let brandId = 1; brandId <= BRANDS; brandId++) {
    await push(JSON.stringify({ kind: 'brand', brand_id: brandId, brand_name: `Bench brand ${brandId}` }))
  }
  const accounts = BRANDS * ACCOUNTS_PER_BRAND
  const platformOf = (accountId: number): PlatformCode => PLATFORM_CODES[(accountId - 1) % PLATFORM_CODES.length] ?? 'fb'
  for (let accountId = 1; accountId <= accounts; accountId++) {
    const brandId = Math.floor((accountId - 1) / ACCOUNTS_PER_BRAND) + 1
    const platform = platformOf(accountId)
    await push(JSON.stringify({
      kind: 'account',
      account_id: accountId,
      brand_id: brandId,
      platform,
      account_name: `Bench ${brandId} ${platform} ${accountId}`,
      network_id: String(100_000_000 + accountId),
    }))
  }
  for (let accountId = 1; accountId <= accounts; accountId++) {
    for (const line of accountLines(accountId, platformOf(accountId))) await push(line)
    if (accountId % 1000 === 0) process.stderr.write(`… ${accountId}/${accounts} accounts\n`)
  }
  await flush()
  out.end()
  await once(out, 'finish')
  if (failure !== undefined) throw failure
  const seconds = (performance.now() - started) / 1000
  console.error(`wrote ${OUT}: ${records} records (${BRANDS} brands, ${accounts} accounts, ${accounts * DAYS} daily, ${dates[0] ?? ''} … ${END}), ${out.bytesWritten} bytes in ${seconds.toFixed(1)} s`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
