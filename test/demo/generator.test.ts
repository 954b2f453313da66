import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CORE_COUNT_METRICS } from '../../src/domain/metrics.js'
import { PLATFORM_CODES, type PlatformCode } from '../../src/domain/platforms.js'
import { generateDemoRecords, type DemoOptions } from '../../src/services/demo/generator.js'
import { PLATFORM_PROFILES } from '../../src/services/demo/profiles.js'
import type { AccountRecord, DailyRecord, DemoRecord, PostRecord } from '../../src/services/demo/records.js'

const DEFAULT_SET: DemoOptions = { brands: 8, days: 400, seed: 42, until: '2026-11-21' }

/** The platform-specific fields of each platform, in catalogue order (docs/api-reference.md's table). */
const PLATFORM_FIELDS: Record<PlatformCode, string[]> = {
  fb: ['video_views_3s', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid', 'link_clicks'],
  ig: ['views_video', 'reach', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid'],
  tk: ['views_video', 'likes', 'shares', 'comments'],
  yt: ['views_video', 'likes', 'shares', 'comments'],
  li: ['views_video', 'reach', 'impressions', 'likes', 'shares', 'comments', 'link_clicks'],
  th: ['views_video', 'likes', 'shares', 'comments'],
  sc: ['views_video', 'reach', 'shares'],
  da: ['views_video', 'impressions', 'likes'],
  pi: ['video_views_2s', 'impressions', 'likes', 'comments'],
}
const ALL_PLATFORM_FIELDS = [...new Set(Object.values(PLATFORM_FIELDS).flat())]

/** The post types the demo uses and their category, as docs/import.md "post_type mapping" lists them. */
const DEMO_POST_TYPES: Record<PlatformCode, Record<string, string>> = {
  fb: { video_inline: 'video', photo: 'image', link: 'share', status: 'text' },
  ig: { REELS: 'reel', IMAGE: 'image', CAROUSEL_ALBUM: 'carousel', STORY: 'story' },
  tk: { video: 'video' },
  yt: { video: 'video', short: 'short' },
  li: { article: 'text', document: 'document', image: 'image', video: 'video' },
  // `text` is not in Threads' own table: a type that is a category name is that category.
  th: { text: 'text', image: 'image' },
  sc: { story: 'story', spotlight: 'short' },
  da: { video: 'video' },
  pi: { pin: 'image', video_pin: 'video' },
}

function digest (options: DemoOptions): string {
  const hash = createHash('sha256')
  for (const record of generateDemoRecords(options)) hash.update(JSON.stringify(record) + '\n')
  return hash.digest('hex')
}

const all: DemoRecord[] = [...generateDemoRecords(DEFAULT_SET)]
const accounts = all.filter((r): r is AccountRecord => r.kind === 'account')
const daily = all.filter((r): r is DailyRecord => r.kind === 'daily')
const posts = all.filter((r): r is PostRecord => r.kind === 'post')
const key = (r: { platform: string, account_id: number }): string => `${r.platform}:${r.account_id}`

function dailyOf (account: AccountRecord): DailyRecord[] {
  return daily.filter((r) => key(r) === key(account))
}

function mean (values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length
}

describe('demo generator: determinism', () => {
  it('gives the same bytes for the same options, run after run', () => {
    // Pinned: a change to the generator changes every demo database; if it is intended, update
    // this digest (and docs/demo-data.md if what the data looks like changed).
    const options = { brands: 3, days: 60, seed: 7, until: '2026-03-01', asOf: '2026-03-01T23:59:59Z' }
    assert.equal(digest(options), '296af1d962d4752b4e1c51b55f90b99aad02d815d7ac0e3eeea545f41d9e329b')
    assert.equal([...generateDemoRecords(options)].length, 1095)
  })

  it('gives different data for a different seed, and moves the window with until', () => {
    const base = { brands: 3, days: 60, seed: 7, until: '2026-03-01' }
    assert.notEqual(digest(base), digest({ ...base, seed: 8 }))
    const shifted = [...generateDemoRecords({ ...base, until: '2026-04-01' })].filter((r): r is DailyRecord => r.kind === 'daily')
    assert.ok(shifted.every((r) => r.date >= '2026-02-01' && r.date <= '2026-04-01'))
    assert.ok(shifted.some((r) => r.date === '2026-04-01'))
  })

  it('generates a brand the same way whatever the number of brands around it', () => {
    const brandTwoOf = (brands: number): string => JSON.stringify([...generateDemoRecords({ brands, days: 30, seed: 5, until: '2026-01-31' })]
      .filter((r) => (r.kind === 'brand' && r.brand_id === 2) || (r.kind !== 'brand' && r.kind !== 'account' && r.account_id >= 1003 && r.account_id <= 1005)))
    assert.equal(brandTwoOf(2), brandTwoOf(5))
  })

  it('generates nothing after the moment of generation: no later day, no post published later that day', () => {
    const options = { brands: 4, days: 20, seed: 3, until: '2026-05-10' }
    const endOfDay = [...generateDemoRecords({ ...options, asOf: '2026-05-10T23:59:59Z' })]
    const noon = [...generateDemoRecords({ ...options, asOf: '2026-05-10T12:00:00Z' })]
    const lastDayPosts = endOfDay.filter((r): r is PostRecord => r.kind === 'post' && r.created_time.startsWith('2026-05-10'))
    assert.ok(lastDayPosts.some((r) => r.created_time > '2026-05-10T12:00:00Z'), 'the fixture day has afternoon posts')
    // At noon: exactly the posts published by noon, the same records, and every earlier day untouched.
    assert.deepEqual(noon.filter((r) => r.kind === 'post' && r.created_time > '2026-05-10T12:00:00Z'), [])
    const later = new Set(lastDayPosts.filter((r) => r.created_time > '2026-05-10T12:00:00Z').map((r) => `${r.platform}:${r.id}`))
    const withoutDaily = (records: DemoRecord[]) => records.filter((r) => r.kind !== 'daily' && !(r.kind === 'post' && later.has(`${r.platform}:${r.id}`)))
    assert.deepEqual(withoutDaily(noon), withoutDaily(endOfDay))
    const daily = (records: DemoRecord[]) => records.filter((r): r is DailyRecord => r.kind === 'daily')
    assert.deepEqual(daily(noon).filter((r) => r.date < '2026-05-10'), daily(endOfDay).filter((r) => r.date < '2026-05-10'))
    // The day's posts_count counts the posts published so far.
    for (const row of daily(noon).filter((r) => r.date === '2026-05-10' && r.posts_count !== null)) {
      const count = noon.filter((r) => r.kind === 'post' && r.platform === row.platform && r.account_id === row.account_id && r.created_time.startsWith('2026-05-10')).length
      assert.equal(row.posts_count, count, `${row.platform}:${row.account_id}`)
    }
    // By default the moment is now: nothing is ever later than the clock.
    const today = [...generateDemoRecords({ brands: 2, days: 3, seed: 9 })]
    const now = new Date().toISOString().slice(0, 19) + 'Z'
    assert.deepEqual(today.filter((r) => r.kind === 'post' && r.created_time > now), [])
  })

  it('refuses bad options with a message naming the option', () => {
    assert.throws(() => [...generateDemoRecords({ ...DEFAULT_SET, until: '2026-05-11', asOf: '2026-05-10T08:00:00Z' })], /until must not be after today, 2026-05-10 \(got 2026-05-11\): data in the future cannot exist/)
    assert.throws(() => [...generateDemoRecords({ ...DEFAULT_SET, until: '2026-02-30' })], /until must be a date/)
    assert.throws(() => [...generateDemoRecords({ ...DEFAULT_SET, brands: 0 })], /brands must be an integer from 1/)
    assert.throws(() => [...generateDemoRecords({ ...DEFAULT_SET, days: 1.5 })], /days must be an integer/)
    assert.throws(() => [...generateDemoRecords({ ...DEFAULT_SET, seed: -1 })], /seed must be an integer from 0/)
  })

  // A million brands over ten years could never be generated whole: the first records can only
  // arrive if the rest is not generated first. The timeout only stops a broken generator's run.
  it('streams: the first records of a huge set arrive without generating the rest', { timeout: 120_000 }, () => {
    const iterator = generateDemoRecords({ brands: 1_000_000, days: 3660, seed: 1, until: '2026-01-01' })
    const first = Array.from({ length: 3 }, () => iterator.next().value as DemoRecord)
    iterator.return(undefined)
    assert.deepEqual(first, [
      { kind: 'brand', brand_id: 1, brand_name: 'Solstice Coffee' },
      {
        kind: 'account',
        account_id: 1000,
        brand_id: 1,
        platform: 'fb',
        account_name: 'Solstice Coffee',
        network_id: '469693025552834',
        storage_avatar: 'https://cdn.partner-analytics.example/avatars/fb/1000.jpg',
        permalink: 'https://www.facebook.com/solsticecoffee',
      },
      {
        kind: 'account',
        account_id: 1001,
        brand_id: 1,
        platform: 'ig',
        account_name: 'Solstice Coffee DE',
        network_id: '89220588780772825',
        storage_avatar: 'https://cdn.partner-analytics.example/avatars/ig/1001.jpg',
        permalink: 'https://www.instagram.com/solsticecoffeede/',
      },
    ])
  })
})

describe('demo generator: brands and accounts', () => {
  it('makes brands 1..8 with 25 accounts covering all nine platforms', () => {
    assert.deepEqual(all.filter((r) => r.kind === 'brand').map((r) => r.kind === 'brand' && r.brand_id), [1, 2, 3, 4, 5, 6, 7, 8])
    assert.equal(accounts.length, 25)
    assert.deepEqual(new Set(accounts.map((a) => a.platform)), new Set(PLATFORM_CODES))
    for (let brand = 1; brand <= 8; brand++) {
      const count = accounts.filter((a) => a.brand_id === brand).length
      assert.ok(count === 3 || count === 4, `brand ${brand} has ${count} accounts`)
    }
  })

  it('keeps account ids unique per platform, with one numeric id on two platforms', () => {
    assert.equal(new Set(accounts.map(key)).size, accounts.length)
    const platformsById = new Map<number, Set<string>>()
    for (const a of accounts) platformsById.set(a.account_id, (platformsById.get(a.account_id) ?? new Set()).add(a.platform))
    assert.ok([...platformsById.values()].some((platforms) => platforms.size >= 2))
  })

  it('emits every record after the account it belongs to', () => {
    const seen = new Set<string>()
    for (const record of all) {
      if (record.kind === 'account') seen.add(key(record))
      if (record.kind === 'daily' || record.kind === 'post') assert.ok(seen.has(key(record)), `${key(record)} before its account`)
    }
  })
})

describe('demo generator: metrics', () => {
  it('never emits a platform-specific field on a platform it does not apply to, and reports every one that does', () => {
    const core = new Set(['kind', 'platform', 'account_id', 'date', 'revenue', ...CORE_COUNT_METRICS])
    for (const record of daily) {
      const fields = Object.keys(record).filter((field) => !core.has(field))
      assert.deepEqual(fields, PLATFORM_FIELDS[record.platform], `${key(record)} ${record.date}`)
    }
    for (const record of posts) {
      for (const metric of ALL_PLATFORM_FIELDS) {
        if (!PLATFORM_FIELDS[record.platform].includes(metric)) assert.ok(!(metric in record), `${metric} on a ${record.platform} post`)
      }
    }
  })

  it('has revenue on some accounts and none on others, in cents', () => {
    const withRevenue = accounts.filter((a) => dailyOf(a).some((r) => r.revenue !== null))
    assert.ok(withRevenue.length > 0 && withRevenue.length < accounts.length, `${withRevenue.length} of ${accounts.length}`)
    for (const record of [...daily, ...posts]) {
      if (typeof record.revenue === 'number') assert.ok(/^\d+(\.\d{1,2})?$/.test(String(record.revenue)), String(record.revenue))
    }
  })

  it('has gaps: missing days inside an account history, and metrics left null', () => {
    const withMissingDays = accounts.filter((a) => {
      const dates = dailyOf(a).map((r) => Date.parse(r.date))
      return dates.some((date, i) => i > 0 && date - (dates[i - 1] as number) > 86_400_000)
    })
    assert.ok(withMissingDays.length >= 5, `${withMissingDays.length} accounts with missing days`)
    assert.ok(daily.some((r) => r.views === null) && daily.some((r) => r.followers === null))
    assert.ok(daily.length < 25 * 400)
  })

  it('grows followers by exactly new_followers between consecutive reported days', () => {
    let checked = 0
    for (const account of accounts) {
      const rows = dailyOf(account)
      const followers = rows.map((r) => r.followers)
      for (let i = 1; i < rows.length; i++) {
        const [before, now] = [rows[i - 1] as DailyRecord, rows[i] as DailyRecord]
        if (Date.parse(now.date) - Date.parse(before.date) !== 86_400_000) continue
        if (now.followers === null || before.followers === null || now.new_followers === null) continue
        assert.equal(now.followers - before.followers, now.new_followers)
        checked++
      }
      const first = followers.find((f) => f !== null) as number
      const last = followers.findLast((f) => f !== null) as number
      assert.ok(last > first, `${key(account)} followers ${first} → ${last}`)
    }
    assert.ok(checked > 8000)
  })

  it('keeps reach ≤ impressions and interactions ≈ likes + comments + shares', () => {
    for (const record of [...daily, ...posts]) {
      if (typeof record.reach === 'number' && typeof record.impressions === 'number') assert.ok(record.reach <= record.impressions)
      if (record.interactions === null || record.interactions === undefined) continue
      const parts = [record.likes, record.comments, record.shares]
      if (parts.some((part) => part === null)) continue
      const sum = parts.reduce<number>((total, part) => total + (part ?? 0), 0)
      assert.ok(record.interactions >= sum && record.interactions <= Math.ceil(sum * 1.05), `${record.interactions} vs ${sum}`)
    }
  })

  it('gives platforms their own magnitudes and weekly rhythm', () => {
    const meanViews = (platform: PlatformCode, rows = daily): number =>
      mean(rows.filter((r) => r.platform === platform && r.views !== null).map((r) => r.views as number))
    assert.ok(meanViews('yt') > 10 * meanViews('li'), `yt ${meanViews('yt')} vs li ${meanViews('li')}`)
    const weekday = (r: DailyRecord): number => new Date(`${r.date}T00:00:00Z`).getUTCDay()
    const linkedin = daily.filter((r) => r.platform === 'li')
    const workdays = meanViews('li', linkedin.filter((r) => weekday(r) >= 1 && weekday(r) <= 5))
    const weekends = meanViews('li', linkedin.filter((r) => weekday(r) === 0 || weekday(r) === 6))
    assert.ok(workdays > 1.5 * weekends, `LinkedIn workdays ${workdays} vs weekends ${weekends}`)
  })
})

describe('demo generator: posts', () => {
  it('uses the platform’s own types, derives post_type like the import, and leaves it out on some', () => {
    for (const post of posts) {
      assert.ok(PLATFORM_PROFILES[post.platform].postTypes.some((t) => t.type === post.type), `${post.platform} ${post.type}`)
      const category = DEMO_POST_TYPES[post.platform][post.type ?? '']
      assert.ok(category !== undefined, `${post.platform} ${post.type} is not a type the demo is known to use`)
      if (post.post_type !== undefined) assert.equal(post.post_type, category, `${post.platform} ${post.type}`)
    }
    // Every type of the table occurs, each one at least once with its post_type written out.
    for (const platform of PLATFORM_CODES) {
      for (const type of Object.keys(DEMO_POST_TYPES[platform])) {
        assert.ok(posts.some((p) => p.platform === platform && p.type === type && p.post_type !== undefined), `${platform} ${type}`)
      }
    }
    const omitted = posts.filter((p) => p.post_type === undefined).length
    assert.ok(omitted > 0 && omitted < posts.length)
    assert.deepEqual(new Set(posts.filter((p) => p.platform === 'ig').map((p) => p.type)), new Set(['REELS', 'IMAGE', 'CAROUSEL_ALBUM', 'STORY']))
  })

  it('gives posts ids unique per platform, created on days of the window', () => {
    assert.equal(new Set(posts.map((p) => `${p.platform}:${p.id}`)).size, posts.length)
    assert.ok(posts.every((p) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(p.created_time)))
    assert.ok(posts.every((p) => p.created_time >= '2025-10-18' && p.created_time < '2026-11-22'))
    assert.ok(posts.length > 5000)
  })
})
