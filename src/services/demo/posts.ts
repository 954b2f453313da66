import { metricAppliesTo } from '../../domain/metrics.js'
import { derivePostType } from '../../domain/post-types.js'
import type { PlatformCode } from '../../domain/platforms.js'
import { BASE36, BASE64URL, DEMO_CDN, encodeNumber, type DemoAccount } from './catalog.js'
import type { PostTypeProfile } from './profiles.js'
import type { Random } from './random.js'
import type { PostRecord } from './records.js'

/**
 * One demo post: platform-shaped id and permalink, a title and text about the brand's
 * industry, and the metrics the platform has (views, interactions and revenue everywhere;
 * likes, comments, shares, reach and impressions only where the platform-specific field table (src/domain/metrics.ts) applies them).
 */

/** Metrics of one post before the reporting gaps are applied. */
export interface PostMetrics {
  views: number
  likes: number
  comments: number
  shares: number
  /** likes + comments + shares + a few other reactions (saves, clicks). */
  interactions: number
  reach: number
  impressions: number
  /** null when the account is not monetised. */
  revenue: number | null
}

const TOPICS: Record<string, readonly string[]> = {
  'Food & Drink': ['brunch recipes', 'street food', 'coffee brewing', 'plant-based cooking', 'wine pairing', 'baking'],
  Travel: ['city breaks', 'hiking trails', 'packing lists', 'island hopping', 'road trips', 'local guides'],
  Entertainment: ['premieres', 'live sessions', 'behind the scenes', 'playlists', 'fan questions', 'award season'],
  Gaming: ['patch notes', 'speedruns', 'esports finals', 'indie picks', 'hardware reviews', 'co-op nights'],
  Sports: ['match highlights', 'training drills', 'transfer news', 'race day', 'recovery tips', 'fan zone'],
  Beauty: ['skincare routines', 'makeup looks', 'fragrance notes', 'hair care', 'clean beauty', 'product swatches'],
  Fashion: ['spring collection', 'street style', 'capsule wardrobe', 'runway recap', 'sustainable fabrics', 'styling tips'],
  Automotive: ['electric cars', 'test drives', 'classic restorations', 'motor shows', 'maintenance tips', 'road safety'],
  Technology: ['product launches', 'AI tools', 'security tips', 'developer stories', 'gadget reviews', 'open source'],
  Lifestyle: ['home makeovers', 'morning routines', 'pet care', 'wellness', 'weekend plans', 'small spaces'],
}

const TITLES = [
  '{Topic}: what we learned this week', '5 things to know about {topic}', 'Behind the scenes at {brand}',
  'Our take on {topic}', '{Topic}, explained in 60 seconds', 'New at {brand}: {topic}',
  'Why everyone is talking about {topic}', 'A day with the {brand} team', '{Topic} tips you can use today',
  'Live recap: {topic}', 'You asked, we answered: {topic}', 'The {brand} guide to {topic}',
]

const DESCRIPTIONS = [
  'Tell us what you think in the comments.', 'Save this for later and share it with a friend.',
  'Full story on our website, link in bio.', 'Thanks to everyone who joined us!', 'More coming next week.',
]

function capitalise (text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function hashtag (text: string): string {
  return '#' + text.replace(/[^A-Za-z0-9]+/g, '')
}

/** The platform's post id (unique per platform: it embeds the account id) and its URL. */
function identify (account: DemoAccount, kind: PostTypeProfile, postNumber: number): { id: string, permalink: string } {
  const { platform, network_id: networkId } = account.record
  const long = '7' + String(postNumber).padStart(18, '0')
  const code = encodeNumber(postNumber, BASE64URL, 11)
  switch (platform) {
    case 'fb': return { id: `${networkId}_${postNumber}`, permalink: `https://www.facebook.com/${networkId}/posts/${postNumber}` }
    case 'ig': return { id: String(postNumber), permalink: `https://www.instagram.com/${kind.type === 'REELS' ? 'reel' : 'p'}/${code}/` }
    case 'tk': return { id: long, permalink: `https://www.tiktok.com/@${account.handle}/video/${long}` }
    case 'yt': return { id: code, permalink: kind.type === 'short' ? `https://www.youtube.com/shorts/${code}` : `https://www.youtube.com/watch?v=${code}` }
    case 'li': return { id: long, permalink: `https://www.linkedin.com/feed/update/urn:li:activity:${long}/` }
    case 'th': return { id: long, permalink: `https://www.threads.net/@${account.handle}/post/${code}` }
    case 'sc': {
      const id = encodeNumber(postNumber, BASE36, 12)
      return { id, permalink: kind.type === 'spotlight' ? `https://www.snapchat.com/spotlight/${id}` : `https://story.snapchat.com/p/${networkId}/${id}` }
    }
    case 'da': {
      const id = 'x' + encodeNumber(postNumber, BASE36, 8)
      return { id, permalink: `https://www.dailymotion.com/video/${id}` }
    }
    case 'pi': return { id: long, permalink: `https://www.pinterest.com/pin/${long}/` }
  }
}

/** A metric reported on this post, or null in the rare case the platform left it out. */
function reported (random: Random, value: number | null): number | null {
  return random.chance(0.01) ? null : value
}

export interface BuildPostInput {
  account: DemoAccount
  kind: PostTypeProfile
  /** Unique within the account: its running post counter, combined with the account id. */
  postNumber: number
  createdTime: string
  metrics: PostMetrics
}

export function buildPost (random: Random, input: BuildPostInput): PostRecord {
  const { account, kind, metrics } = input
  const platform: PlatformCode = account.record.platform
  const { id, permalink } = identify(account, kind, input.postNumber)
  const topics = TOPICS[account.industry] ?? TOPICS.Lifestyle as readonly string[]
  const topic = random.pick(topics)
  const category = derivePostType(platform, kind.type)
  const title = category === 'story'
    ? null
    : random.pick(TITLES).replace('{Topic}', capitalise(topic)).replace('{topic}', topic).replace('{brand}', account.brandName)
  const description = random.chance(0.35) ? null : `${random.pick(DESCRIPTIONS)} ${hashtag(topic)} ${hashtag(account.brandName)}`
  const subjects = random.chance(0.2) ? null : [...new Set([topic, random.pick(topics), random.pick(topics)].slice(0, random.int(1, 3)))].join(', ')
  const topicCategory = random.chance(0.1) ? null : account.industry

  const post: PostRecord = { kind: 'post', id, platform, account_id: account.record.account_id, created_time: input.createdTime, type: kind.type } as PostRecord
  // Some posts leave post_type out: the import then derives it from `type`.
  if (random.chance(0.7)) post.post_type = category
  post.title = title
  post.description = description
  post.permalink = permalink
  post.thumbnail_url = kind.hasThumbnail ? `${DEMO_CDN}/thumbs/${platform}/${encodeURIComponent(id)}.jpg` : null
  post.subjects = subjects
  post.category = topicCategory

  post.views = reported(random, metrics.views)
  if (metricAppliesTo('likes', platform)) post.likes = reported(random, metrics.likes)
  if (metricAppliesTo('comments', platform)) post.comments = reported(random, metrics.comments)
  if (metricAppliesTo('shares', platform)) post.shares = reported(random, metrics.shares)
  post.interactions = reported(random, metrics.interactions)
  if (metricAppliesTo('reach', platform)) post.reach = reported(random, metrics.reach)
  if (metricAppliesTo('impressions', platform)) post.impressions = reported(random, metrics.impressions)
  post.revenue = metrics.revenue === null ? null : reported(random, metrics.revenue)
  return post
}
