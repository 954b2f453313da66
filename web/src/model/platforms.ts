/**
 * The nine platforms in the API's canonical order (DECISIONS.md §1), their display names, and
 * which of them divide engagement by reach rather than by views (DECISIONS.md §6).
 */

export const PLATFORMS = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi'] as const
export type Platform = (typeof PLATFORMS)[number]

export const PLATFORM_NAMES: Record<Platform, string> = {
  fb: 'Facebook',
  ig: 'Instagram',
  tk: 'TikTok',
  yt: 'YouTube',
  li: 'LinkedIn',
  th: 'Threads',
  sc: 'Snapchat',
  da: 'Dailymotion',
  pi: 'Pinterest',
}

/** Engagement rate = interactions / reach on these platforms, / views on the others. */
export const REACH_PLATFORMS: readonly Platform[] = ['fb', 'ig', 'sc', 'li']

/** The full names /posts uses on its records (`platform: "facebook"`), back to codes. */
const BY_NAME: Record<string, Platform> = {
  facebook: 'fb', instagram: 'ig', tiktok: 'tk', youtube: 'yt', linkedin: 'li', threads: 'th', snapchat: 'sc', dailymotion: 'da', pinterest: 'pi',
}

export function isPlatform (value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value)
}

/** A display name for a code (`fb`) or a full name (`facebook`); unknown values as they are. */
export function platformName (value: string): string {
  const code = isPlatform(value) ? value : BY_NAME[value.toLowerCase()]
  return code === undefined ? value : PLATFORM_NAMES[code]
}

/** The /me field listing a brand's accounts on a platform (`fb_accounts`, …). */
export function accountsField (platform: Platform): `${Platform}_accounts` {
  return `${platform}_accounts`
}

/** Post categories accepted by GET /posts' post_type (DECISIONS.md §7). */
export const POST_TYPES = ['video', 'image', 'carousel', 'reel', 'story', 'short', 'text', 'share', 'document', 'other'] as const
export type PostType = (typeof POST_TYPES)[number]
