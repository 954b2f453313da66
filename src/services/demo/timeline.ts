import { ENGAGEMENT_DENOMINATOR, metricAppliesTo, platformMetricsOf, type PlatformMetric } from '../../domain/metrics.js'
import type { DemoAccount } from './catalog.js'
import { buildPost, type PostMetrics } from './posts.js'
import { PLATFORM_PROFILES, type PlatformProfile } from './profiles.js'
import { Random } from './random.js'
import type { DailyRecord, PostRecord } from './records.js'

/**
 * One account's history, day by day: followers that grow, views that follow followers with a
 * weekly rhythm and the odd viral day, interactions at the platform's usual rate, posts, and
 * the reporting gaps real data has (missing days, outages, metrics left null, revenue that
 * arrives late). It is a simulation, so the numbers stay consistent with each other:
 * followers(d) = followers(d − 1) + new_followers(d) on consecutive reported days,
 * reach ≤ impressions, interactions ≈ likes + comments + shares.
 */

/** The window: one entry per day, oldest first. */
export interface Calendar {
  dates: readonly string[]
  /** UTC weekday of each date, Sunday = 0. */
  weekdays: readonly number[]
  /** The moment of generation (`YYYY-MM-DDTHH:MM:SSZ`): no post is published after it. */
  notAfter: string
}

/** An account's fixed character, drawn once. */
interface Traits {
  startDay: number
  followers: number
  growth: number
  viewsPerFollower: number
  reachPerView: number
  impressionsPerView: number
  videoShare: number
  engagement: number
  monetised: boolean
  rpm: number
  /** Share of video views bought through ads (0 for accounts that run none). */
  paidShare: number
  /** The last days whose revenue is not reported yet (payouts lag). */
  revenueLag: number
}

function drawTraits (random: Random, profile: PlatformProfile, days: number): Traits {
  const monetised = random.chance(profile.monetisedChance)
  const runsAds = random.chance(0.5)
  return {
    // One account in six is launched inside the window and has no history before that.
    startDay: random.chance(1 / 6) ? random.int(1, Math.floor(days * 0.6)) : 0,
    followers: random.logBetween(...profile.followers),
    growth: random.between(...profile.dailyGrowth),
    viewsPerFollower: random.between(...profile.viewsPerFollower),
    reachPerView: random.between(...profile.reachPerView),
    impressionsPerView: random.between(...profile.impressionsPerView),
    videoShare: random.between(...profile.videoShare),
    engagement: random.between(...profile.engagement),
    monetised,
    rpm: monetised ? random.between(...profile.rpm) : 0,
    paidShare: runsAds ? random.between(0.05, 0.35) : 0,
    revenueLag: random.int(0, 3),
  }
}

/** Money rounded to cents, as a plain number (never more than 2 decimals). */
function cents (value: number): number {
  return Math.round(value * 100) / 100
}

/** Splits interactions into likes, comments and shares where each applies; the rest are other reactions. */
function splitInteractions (random: Random, profile: PlatformProfile, total: number): Pick<PostMetrics, 'likes' | 'comments' | 'shares' | 'interactions'> {
  const likes = Math.round(total * profile.split.likes * random.noise(0.1))
  const comments = Math.round(total * profile.split.comments * random.noise(0.2))
  const shares = Math.round(total * profile.split.shares * random.noise(0.2))
  const parts = likes + comments + shares
  return { likes, comments, shares, interactions: parts + Math.round(parts * random.between(0, 0.04)) }
}

/** UTC time of day for a post: mostly daytime, never the small hours. */
function postTime (random: Random): string {
  const hour = random.weighted([[7, 1], [9, 2], [11, 3], [13, 3], [15, 2], [17, 3], [19, 4], [21, 2]] as const) + random.int(0, 1)
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${pad(hour)}:${pad(random.int(0, 59))}:${pad(random.int(0, 59))}`
}

const NULL_METRIC_CHANCE = 0.008
const MISSING_DAY_CHANCE = 0.012
const OUTAGE_CHANCE = 0.003
const VIRAL_CHANCE = 0.01

/** The daily rows and posts of one account, in date order, each day's row before its posts. */
export function * generateAccountHistory (seed: number, account: DemoAccount, calendar: Calendar): Generator<DailyRecord | PostRecord> {
  const { platform, account_id: accountId } = account.record
  const profile = PLATFORM_PROFILES[platform]
  const random = new Random(`${seed}|history|${platform}|${accountId}`)
  const days = calendar.dates.length
  const traits = drawTraits(random, profile, days)
  const specific = platformMetricsOf(platform)
  const usesReach = ENGAGEMENT_DENOMINATOR[platform] === 'reach'
  const postTypes = profile.postTypes.map((type) => [type, type.weight] as const)
  const maybe = (value: number | null): number | null => random.chance(NULL_METRIC_CHANCE) ? null : value

  let followers = Math.round(traits.followers)
  let drift = 1
  let outageLeft = 0
  let postSeq = 0
  for (let day = traits.startDay; day < days; day++) {
    const weekday = profile.weekday[calendar.weekdays[day] as number] as number
    const viral = random.chance(VIRAL_CHANCE) ? random.between(2.5, 8) : 1
    // Audience interest wanders slowly, within a factor of two of the account's norm.
    drift = Math.min(2, Math.max(0.5, drift * random.noise(0.02)))

    const newFollowers = day === traits.startDay ? 0 : Math.round(followers * traits.growth * Math.sqrt(weekday * viral) * random.noise(0.5))
    followers += newFollowers
    const postsCount = random.poisson(profile.postsPerDay * weekday)
    const activity = 0.75 + 0.25 * Math.min(3, postsCount / Math.max(profile.postsPerDay, 0.3))
    const typicalViews = followers * traits.viewsPerFollower * drift
    const views = Math.round(typicalViews * weekday * activity * viral * random.noise(0.2))
    const reach = Math.round(views * traits.reachPerView)
    const impressions = Math.round(views * traits.impressionsPerView * random.noise(0.05))
    const videoViews = Math.round(views * traits.videoShare * random.noise(0.1))
    const paidViews = Math.round(videoViews * traits.paidShare * random.noise(0.3))
    const denominator = usesReach ? reach : views
    const { likes, comments, shares, interactions } = splitInteractions(random, profile, denominator * traits.engagement * random.noise(0.25))
    const revenue = traits.monetised ? cents(views * traits.rpm / 1000 * random.noise(0.15)) : null

    const values: Record<PlatformMetric, number> = {
      video_views_3s: videoViews,
      video_views_2s: videoViews,
      views_video: videoViews,
      reach,
      // Impressions count every display, so never fewer than the unique reach.
      impressions: Math.max(impressions, metricAppliesTo('reach', platform) ? reach : 0),
      ad_reach: Math.round(reach * traits.paidShare * random.noise(0.2)),
      likes,
      shares,
      comments,
      views_organic: videoViews - paidViews,
      views_paid: paidViews,
      link_clicks: Math.round(reach * random.between(0.002, 0.012)),
    }

    // Reporting gaps: a lone missing day now and then, sometimes an outage of a few days.
    let missing = false
    if (outageLeft > 0) {
      outageLeft--
      missing = true
    } else if (random.chance(OUTAGE_CHANCE)) {
      outageLeft = random.int(1, 8)
      missing = true
    } else {
      missing = random.chance(MISSING_DAY_CHANCE)
    }

    let record: DailyRecord | undefined
    if (!missing) {
      record = {
        kind: 'daily',
        platform,
        account_id: accountId,
        date: calendar.dates[day] as string,
        views: maybe(views),
        revenue: day >= days - traits.revenueLag ? null : (revenue === null ? null : maybe(revenue)),
        followers: maybe(followers),
        new_followers: maybe(newFollowers),
        posts_count: maybe(postsCount),
        interactions: maybe(interactions),
      }
      for (const metric of specific) record[metric] = maybe(values[metric])
    }

    // Posts exist whether or not the day's totals were reported. Those the day would publish
    // after the moment of generation do not exist yet: they are drawn (so every later draw, and
    // every other day, stays the same) but not emitted, and the day's posts_count counts only
    // the ones published so far.
    const date = calendar.dates[day] as string
    const times = Array.from({ length: postsCount }, () => postTime(random)).sort()
    const published = times.filter((time) => `${date}T${time}Z` <= calendar.notAfter).length
    if (record !== undefined) {
      if (published < postsCount && record.posts_count !== null) record.posts_count = published
      yield record
    }
    for (const [index, time] of times.entries()) {
      const kind = random.weighted(postTypes)
      const postViews = Math.round(typicalViews / Math.max(profile.postsPerDay, 0.3) * kind.reachFactor * viral * random.noise(0.6))
      const postReach = Math.round(postViews * traits.reachPerView)
      const postDenominator = usesReach ? postReach : postViews
      const post = buildPost(random, {
        account,
        kind,
        postNumber: accountId * 10_000_000 + postSeq++,
        createdTime: `${date}T${time}Z`,
        metrics: {
          views: postViews,
          reach: postReach,
          impressions: Math.max(postReach, Math.round(postViews * traits.impressionsPerView * random.noise(0.05))),
          revenue: traits.monetised ? cents(postViews * traits.rpm / 1000 * random.noise(0.2)) : null,
          ...splitInteractions(random, profile, postDenominator * traits.engagement * random.noise(0.4)),
        },
      })
      // Times are sorted: the first `published` are the ones out by now.
      if (index < published) yield post
    }
  }
}
