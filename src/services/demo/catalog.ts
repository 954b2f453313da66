import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import { Random } from './random.js'
import type { AccountRecord, BrandRecord } from './records.js'

/**
 * Who exists in the demo data: brands, their accounts, names, ids and profile URLs. Everything
 * here is a pure function of (seed, brand id), so any brand can be produced on its own.
 */

/** Images point at a reserved `.example` host: the demo must never look like real assets. */
export const DEMO_CDN = 'https://cdn.partner-analytics.example'

/** Account ids are 1000 + 3 × (brand − 1) + slot: compact, stable, unique per platform. */
const ACCOUNT_ID_BASE = 1000
const ACCOUNTS_PER_BRAND = 3

const NAME_HEADS = [
  'Northwind', 'Bluebird', 'Copperleaf', 'Silverline', 'Maple & Co', 'Harbor', 'Lumen', 'Atlas',
  'Juniper', 'Redwood', 'Solstice', 'Kestrel', 'Meridian', 'Evergreen', 'Pioneer', 'Saffron',
  'Cobalt', 'Willow', 'Summit', 'Orchard', 'Beacon', 'Velvet', 'Granite', 'Tidewater',
]
const NAME_TAILS = [
  'Foods', 'Travel', 'Studios', 'Sports', 'Beauty', 'Motors', 'Kitchen', 'Media', 'Outdoors',
  'Games', 'Fashion', 'Coffee', 'Labs', 'Living', 'Music', 'Pets',
]
const REGIONS = ['', '', '', ' US', ' UK', ' FR', ' DE', ' ES', ' Global']

/** Industry of a brand, derived from its name's tail; used for post subjects and categories. */
const INDUSTRIES: Record<string, string> = {
  Foods: 'Food & Drink',
  Kitchen: 'Food & Drink',
  Coffee: 'Food & Drink',
  Travel: 'Travel',
  Outdoors: 'Travel',
  Studios: 'Entertainment',
  Media: 'Entertainment',
  Music: 'Entertainment',
  Games: 'Gaming',
  Sports: 'Sports',
  Beauty: 'Beauty',
  Fashion: 'Fashion',
  Motors: 'Automotive',
  Labs: 'Technology',
  Living: 'Lifestyle',
  Pets: 'Lifestyle',
}

export interface DemoBrand {
  record: BrandRecord
  industry: string
}

export interface DemoAccount {
  record: AccountRecord
  industry: string
  brandName: string
  /** Lower-case handle used in URLs. */
  handle: string
}

/** Steps coprime to the number of name combinations (24 × 16 = 2^7 × 3). */
const NAME_STEPS = [5, 7, 11, 13, 17, 19, 23, 25, 29, 31]

/**
 * Brand names walk the head × tail combinations with a seed-chosen start and step, so the first
 * 384 brands all have different names; later rounds add a number ("Atlas Foods 2").
 */
export function describeBrand (seed: number, brandId: number): DemoBrand {
  const random = new Random(`${seed}|brand-names`)
  const combinations = NAME_HEADS.length * NAME_TAILS.length
  const start = random.int(0, combinations - 1)
  const step = random.pick(NAME_STEPS)
  const index = (start + (brandId - 1) * step) % combinations
  const round = Math.floor((brandId - 1) / combinations)
  const tail = NAME_TAILS[Math.floor(index / NAME_HEADS.length)] as string
  const name = `${NAME_HEADS[index % NAME_HEADS.length] as string} ${tail}${round > 0 ? ` ${round + 1}` : ''}`
  return { record: { kind: 'brand', brand_id: brandId, brand_name: name }, industry: INDUSTRIES[tail] ?? 'Lifestyle' }
}

/**
 * The brand's accounts: three, on consecutive platforms of the canonical order (so any three
 * brands in a row cover all nine), and every eighth brand (1, 9, 17, …) a fourth one. That
 * fourth account deliberately reuses the numeric id of the brand's first account on another
 * platform: ids are unique per platform only (docs/api-reference.md "Basics"), and the demo data shows it.
 * Eight brands therefore have exactly 25 accounts.
 */
export function planAccounts (seed: number, brand: DemoBrand): DemoAccount[] {
  const brandId = brand.record.brand_id
  const slots = brandId % 8 === 1 ? ACCOUNTS_PER_BRAND + 1 : ACCOUNTS_PER_BRAND
  const firstId = ACCOUNT_ID_BASE + ACCOUNTS_PER_BRAND * (brandId - 1)
  const accounts: DemoAccount[] = []
  for (let slot = 0; slot < slots; slot++) {
    const platform = PLATFORM_CODES[(ACCOUNTS_PER_BRAND * (brandId - 1) + slot) % PLATFORM_CODES.length] as PlatformCode
    const accountId = slot < ACCOUNTS_PER_BRAND ? firstId + slot : firstId
    accounts.push(describeAccount(seed, brand, platform, accountId))
  }
  return accounts
}

function describeAccount (seed: number, brand: DemoBrand, platform: PlatformCode, accountId: number): DemoAccount {
  const random = new Random(`${seed}|account|${platform}|${accountId}`)
  const brandName = brand.record.brand_name
  const region = random.pick(REGIONS)
  const handle = (brandName + region).toLowerCase().replace(/[^a-z0-9]+/g, '')
  const name = platform === 'yt' ? `${brandName}${region} TV` : `${brandName}${region}`
  const networkId = networkIdFor(platform, random)
  return {
    record: {
      kind: 'account',
      account_id: accountId,
      brand_id: brand.record.brand_id,
      platform,
      account_name: name,
      network_id: networkId,
      storage_avatar: `${DEMO_CDN}/avatars/${platform}/${accountId}.jpg`,
      permalink: profileUrl(platform, handle, networkId),
    },
    industry: brand.industry,
    brandName,
    handle,
  }
}

const DIGITS = '0123456789'
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'

function numericId (random: Random, length: number): string {
  return String(random.int(1, 9)) + random.chars(DIGITS, length - 1)
}

/** The id each platform gives a page or channel, in its usual shape. */
function networkIdFor (platform: PlatformCode, random: Random): string {
  switch (platform) {
    case 'fb': return numericId(random, 15)
    case 'ig': return numericId(random, 17)
    case 'tk': return numericId(random, 19)
    case 'yt': return 'UC' + random.chars(BASE64URL, 22)
    case 'li': return numericId(random, 8)
    case 'th': return numericId(random, 17)
    case 'sc': return [8, 4, 4, 4, 12].map((n) => random.chars('0123456789abcdef', n)).join('-')
    case 'da': return 'x' + random.chars(BASE36, 6)
    case 'pi': return numericId(random, 18)
  }
}

function profileUrl (platform: PlatformCode, handle: string, networkId: string): string {
  switch (platform) {
    case 'fb': return `https://www.facebook.com/${handle}`
    case 'ig': return `https://www.instagram.com/${handle}/`
    case 'tk': return `https://www.tiktok.com/@${handle}`
    case 'yt': return `https://www.youtube.com/channel/${networkId}`
    case 'li': return `https://www.linkedin.com/company/${handle}/`
    case 'th': return `https://www.threads.net/@${handle}`
    case 'sc': return `https://www.snapchat.com/add/${handle}`
    case 'da': return `https://www.dailymotion.com/${handle}`
    case 'pi': return `https://www.pinterest.com/${handle}/`
  }
}

/** Writes a non-negative integer in the given alphabet, left-padded to `width`. */
export function encodeNumber (value: number, alphabet: string, width = 1): string {
  let out = ''
  let rest = value
  do {
    out = alphabet[rest % alphabet.length] + out
    rest = Math.floor(rest / alphabet.length)
  } while (rest > 0)
  return out.padStart(width, alphabet[0])
}

export { BASE36, BASE64URL }
